/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a blocking caller waits for its round's replies, and how it is woken. Plainly, it parks and the I/O thread
 * that reads the replies unparks it. With {@link NioLoop#drivingParking}, a caller that is the only one waiting
 * reads the replies itself instead, so a round costs no hand-off between threads.
 */
public interface Parking {

    /**
     * Waits until {@code done} says so, or at most {@code nanos}, or until {@link #unpark} (or a spurious wake-up):
     * callers check their condition again after it returns. Keeps the interrupt status.
     *
     * @param blocker what a thread dump shows the thread waiting for
     * @param nanos the longest wait, in nanoseconds (positive)
     * @param done what the caller waits for; checked before the wait and whenever replies were read
     */
    void await(Object blocker, long nanos, BooleanSupplier done);

    /** Wakes {@code thread} if it waits in {@link #await}; as {@link LockSupport#unpark} otherwise. */
    void unpark(Thread thread);

    /**
     * The calling thread will not wait for a round for a while: it sleeps until a release is heard, or it starts an
     * asynchronous call, whose replies it does not read itself.
     */
    default void idle() {}

    /** Parks and unparks, nothing more. */
    Parking PLAIN = new Parking() {
        @Override
        public void await(Object blocker, long nanos, BooleanSupplier done) {
            if (!done.getAsBoolean()) {
                LockSupport.parkNanos(blocker, nanos);
            }
        }

        @Override
        public void unpark(Thread thread) {
            LockSupport.unpark(thread);
        }
    };
}
