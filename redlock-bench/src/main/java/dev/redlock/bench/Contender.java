/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

/**
 * One lock implementation under comparison: a name for the tables, the settings it runs with, and a factory of
 * per-thread handles. Each contender owns its own clients, so no two implementations share a connection.
 */
interface Contender extends AutoCloseable {

    /** Short, stable identifier used in the CSV and as part of the lock names. */
    String id();

    /** Human-readable name used in the tables and the chart. */
    String label();

    /** Every setting that differs from the library defaults, plus the ones that matter for the comparison. */
    String settings();

    /**
     * Opens a handle on one lock, for use by the calling thread only (Redisson locks and connections of the floor
     * are bound to a thread).
     */
    Handle open(String lockName) throws Exception;

    /** Closes every client this contender created. */
    @Override
    void close();

    /** One lock as seen by one thread. Not thread-safe. */
    interface Handle extends AutoCloseable {

        /**
         * Tries to acquire the lock within {@code waitMillis} (0 = a single attempt) with a fixed 10 s lease.
         *
         * @return true if acquired, false if the lock stayed busy (or the library reported failure without throwing)
         * @throws Exception whatever the library throws (node failures are reported that way by some)
         */
        boolean acquire(long waitMillis) throws Exception;

        /** Releases the lock acquired by the last successful {@link #acquire}. */
        void release() throws Exception;

        /** Frees per-handle resources (the floor's connection); does not release a held lock. */
        @Override
        default void close() {
            // Most handles own nothing.
        }
    }
}
