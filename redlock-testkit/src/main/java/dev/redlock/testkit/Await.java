/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.exceptions.JedisException;

/** Polls a condition on the monotonic clock until it holds or a deadline passes. */
final class Await {

    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private Await() {}

    /** A condition: returns its result once it holds, throws {@link NotYet} (or a Jedis error) while it does not. */
    @FunctionalInterface
    interface Probe<T> {
        T poll();
    }

    /** The condition does not hold yet, and why; cheap (no stack trace). */
    static final class NotYet extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotYet(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * Polls {@code probe} every 50 ms until it returns, for at most {@code timeout}; a Jedis error counts as "not yet"
     * (a node that is starting, stopping or busy).
     *
     * @throws IllegalStateException naming {@code what} and the last reason, if the condition does not hold in time
     */
    static <T> T until(Duration timeout, String what, Probe<T> probe) {
        long start = System.nanoTime();
        long budget = timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                return probe.poll();
            } catch (NotYet | JedisException e) {
                last = e;
            }
            long elapsed = System.nanoTime() - start;
            if (elapsed >= budget) {
                throw new IllegalStateException(
                        what + " did not happen within " + timeout.toMillis() + " ms; last: " + last, last);
            }
            LockSupport.parkNanos(Math.min(POLL_NANOS, budget - elapsed));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting until " + what, last);
            }
        }
    }

    /** Throws {@link NotYet} with {@code why} unless {@code condition} holds. */
    static void check(boolean condition, String why) {
        if (!condition) {
            throw new NotYet(why);
        }
    }
}
