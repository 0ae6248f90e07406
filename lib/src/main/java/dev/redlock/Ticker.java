/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * A source of monotonic time in nanoseconds. Every lock decision (validity, deadlines, wait budgets) reads this
 * ticker and never the wall clock, so a clock step on the client machine cannot stretch or shrink a lease.
 *
 * <p>The value has no relation to wall-clock time; only differences between two readings are meaningful, exactly as
 * with {@link System#nanoTime()}. Implementations must be thread-safe and must never go backwards.
 *
 * <p>Tests inject a fake ticker through {@link RedlockConfig.Builder#ticker(Ticker)} to control time.
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Returns the current reading of this ticker.
     *
     * @return nanoseconds since an arbitrary, fixed origin
     */
    long nanoTime();

    /**
     * Returns the ticker backed by {@link System#nanoTime()}, the default.
     *
     * @return the system ticker
     */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}

/** The default ticker; an enum so it is a serializable-free singleton with a readable {@code toString}. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
