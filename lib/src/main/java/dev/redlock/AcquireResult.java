/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.util.Optional;

/**
 * The full result of an acquisition that may have taken several rounds: the lease, or why there is none.
 *
 * <p>Returned by {@link QuorumLock#attempt(java.time.Duration, java.time.Duration)}, which never throws for node
 * failures, so callers can inspect every node's answer in the last round. Immutable and thread-safe.
 */
public final class AcquireResult {

    private final Lease lease;
    private final RoundOutcome lastRound;
    private final int rounds;

    /**
     * Creates a result. Normally built by the library.
     *
     * @param lease the lease, or {@code null} when the acquisition failed
     * @param lastRound the last round that ran
     * @param rounds how many rounds ran
     */
    public AcquireResult(Lease lease, RoundOutcome lastRound, int rounds) {
        this.lease = lease;
        this.lastRound = lastRound;
        this.rounds = rounds;
    }

    /**
     * Returns the lease.
     *
     * @return the lease, or empty when the acquisition failed
     */
    public Optional<Lease> lease() {
        return Optional.ofNullable(lease);
    }

    /**
     * Returns whether a lease was acquired.
     *
     * @return true when {@link #lease()} is present
     */
    public boolean acquired() {
        return lease != null;
    }

    /**
     * Returns why the acquisition failed: the reason of the last round.
     *
     * @return {@link FailureReason#NONE} on success
     */
    public FailureReason reason() {
        return lastRound.reason();
    }

    /**
     * Returns the last round, with each node's answer. On success this is the winning round.
     *
     * @return the last round
     */
    public RoundOutcome lastRound() {
        return lastRound;
    }

    /**
     * For a failed acquisition refused by another owner: how long, at the latest, until its keys expire on enough
     * nodes for a quorum, as the last round's nodes reported it. See {@link RoundOutcome#holderTtl()}.
     *
     * @return the holder's remaining TTL, or empty when acquired or when no holder refused the last round
     */
    public Optional<java.time.Duration> holderTtl() {
        return lastRound.holderTtl();
    }

    /**
     * Returns how many rounds ran within the wait budget. A waiter of a RedLock or MultiLock with others of its client
     * ahead of it ends at its deadline without a last round (it could only be refused), so it may have run none; its
     * {@link #lastRound()} is then its client's last refused round for that lock.
     *
     * @return how many rounds ran; at least 1 unless the acquisition waited behind others of its client throughout
     */
    public int rounds() {
        return rounds;
    }

    @Override
    public String toString() {
        return "AcquireResult{acquired=" + acquired() + ", rounds=" + rounds + ", last=" + lastRound + '}';
    }
}
