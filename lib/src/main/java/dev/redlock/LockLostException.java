/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.util.Optional;

/**
 * Thrown, or handed to {@link Lease#onLost lost-lease listeners}, when a lease is lost: the caller can no longer
 * assume it holds the lock. Names the lock, why the lease was lost, and the last extension round's per-node results
 * when there was one.
 *
 * <p>Unchecked: {@link Lease#checkValid()} throws it before the holder acts on a lock it no longer has, and
 * {@link RedlockClient#withLock} throws it when the lease was lost while the body ran.
 */
public class LockLostException extends RedlockException {

    private static final long serialVersionUID = 1L;

    /** Why a lease was lost. */
    public enum Reason {
        /** The deadline passed without a successful extension (fixed-time leases: their lease time ran out). */
        EXPIRED,
        /** An extension found that too many nodes no longer hold this lease's token: it cannot be kept. */
        OWNERSHIP_LOST,
        /** The watchdog gave up after the configured number of consecutive failed extensions. */
        EXTENSION_FAILED,
        /** The watchdog stopped extending at the configured maximum hold time, and the lease then expired. */
        MAX_HOLD_TIME,
        /** The client was closed while the lease was held; the watchdog stopped and the keys will expire. */
        CLIENT_CLOSED,
        /** The lease was released; it is no longer held, by design. */
        RELEASED
    }

    private final String lockName;
    private final Reason reason;
    private final transient RoundOutcome lastRound;

    /**
     * Creates the exception.
     *
     * @param lockName the lock's name
     * @param tokenPrefix a short prefix of the lease's token, for correlation in logs (never the full token)
     * @param reason why the lease was lost
     * @param lastRound the last extension round, or {@code null} if none ran
     */
    public LockLostException(String lockName, String tokenPrefix, Reason reason, RoundOutcome lastRound) {
        super(
                "lease of lock '" + lockName + "' (token " + tokenPrefix + "…) lost: " + reason
                        + (lastRound == null
                                ? ""
                                : "; last extension: " + lastRound.granted() + "/" + lastRound.required() + " "
                                        + lastRound.reason() + " " + lastRound.nodes()),
                null);
        this.lockName = lockName;
        this.reason = reason;
        this.lastRound = lastRound;
    }

    /**
     * Returns the name of the lock whose lease was lost.
     *
     * @return the lock name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * Returns why the lease was lost.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * Returns the last extension round, with each node's answer.
     *
     * @return the round, or empty when no extension ran (a fixed-time lease that expired)
     */
    public Optional<RoundOutcome> lastRound() {
        return Optional.ofNullable(lastRound);
    }
}
