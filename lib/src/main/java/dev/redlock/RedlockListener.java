/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;

/**
 * Hears what a client's locks do, for metrics and logs: every acquisition, every acquire round with each node's
 * answer, failed extensions and lost leases. Registered with {@link RedlockConfig.Builder#listener(RedlockListener)}.
 *
 * <p>Methods are called on the threads that learn the outcome (the caller's, a node's I/O thread, the scheduler), so
 * they must be quick, must not block and must be thread-safe. What one throws (an exception, an assertion error or a
 * linkage error) is logged at WARN and otherwise ignored: a listener never changes an outcome. Every method does
 * nothing by default.
 */
public interface RedlockListener {

    /**
     * An acquisition ended: with a lease, or without one when its wait budget ran out. Not called for an acquisition
     * that ended by an exception (interrupted, cancelled, client closed).
     *
     * @param kind the lock's kind
     * @param result the result, with the last round's per-node outcomes
     * @param elapsed from the call to the result, on the client's ticker
     */
    default void acquisitionEnded(LockKind kind, AcquireResult result, Duration elapsed) {}

    /**
     * One acquire round was decided; its outcome names each node's answer.
     *
     * @param kind the lock's kind
     * @param round the round's outcome
     */
    default void acquireRound(LockKind kind, RoundOutcome round) {}

    /**
     * An extension (the watchdog's or the caller's) failed; the lease may still be valid until its deadline.
     *
     * @param lease the lease
     * @param round the failed round's outcome
     */
    default void extensionFailed(Lease lease, RoundOutcome round) {}

    /**
     * A lease was lost (once per lease): its validity ended while held, extensions failed, or the client closed.
     *
     * @param lease the lease
     * @param cause why, with the last extension's per-node outcomes
     */
    default void leaseLost(Lease lease, LockLostException cause) {}
}
