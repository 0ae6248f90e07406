/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * What one node answered in one round (an acquire, a release or an extension).
 *
 * <p>Acquire rounds report {@link #GRANTED}, {@link #TAKEN}, {@link #TIMEOUT}, {@link #ERROR},
 * {@link #CIRCUIT_OPEN} or {@link #PENDING}. Extension rounds report {@link #GRANTED} (extended),
 * {@link #ALREADY_EXPIRED}, {@link #OWNED_BY_ANOTHER}, {@link #TIMEOUT}, {@link #ERROR}, {@link #CIRCUIT_OPEN} or
 * {@link #PENDING}. Release rounds report {@link #RELEASED}, {@link #ALREADY_EXPIRED},
 * {@link #OWNED_BY_ANOTHER}, {@link #TIMEOUT}, {@link #ERROR} or {@link #PENDING}.
 */
public enum NodeStatus {

    /**
     * The node set the lock key to this acquisition's token, or, in an extension round, moved the expiry of the key
     * that still held this lease's token.
     */
    GRANTED,

    /** The key already existed on the node: another owner holds it there. Contention, not a failure. */
    TAKEN,

    /**
     * The node granted, but its vote does not count toward the quorum: it may have lost data recently (it restarted,
     * was flushed, or another server now answers at its address, less than the longest TTL in use ago), so it may have
     * forgotten keys it granted before; or its identity cannot be read. The cause names which. The command was
     * applied; a key it set is released as usual. See {@link RedlockConfig.Builder#restartQuarantine(boolean)}.
     */
    QUARANTINED,

    /** The node held this lease's token and deleted the key. */
    RELEASED,

    /**
     * The key was absent on the node: it had expired, or this node never granted it. A release also reports it,
     * without sending anything, for a node whose acquire never ran there (its circuit breaker was open, or the
     * command was dropped unsent) or refused it ({@link #TAKEN}): nothing of the lease can be there, since
     * extensions only touch an existing key.
     */
    ALREADY_EXPIRED,

    /** The key on the node holds another owner's token; it was left untouched. */
    OWNED_BY_ANOTHER,

    /**
     * No reply within the per-node timeout. The outcome on the node is <em>unknown</em>: the command may have been
     * applied. This is why a failed acquire is released on every node, including timed-out ones.
     */
    TIMEOUT,

    /** The command failed: connection refused or lost, or an error reply. The cause is attached. */
    ERROR,

    /**
     * The node's circuit breaker is open after repeated failures, so the command was not sent at all. The node is
     * probed again after the breaker's open duration.
     */
    CIRCUIT_OPEN,

    /**
     * The round was decided before this node answered (a quorum was already reached, or had become impossible). The
     * command is still in flight and completes in the background.
     */
    PENDING;

    /**
     * Whether this status means the node could not be reached or did not answer in time, as opposed to an answer
     * about the key.
     *
     * @return true for {@link #TIMEOUT}, {@link #ERROR}, {@link #CIRCUIT_OPEN} and {@link #QUARANTINED}
     */
    public boolean isUnavailable() {
        return this == TIMEOUT || this == ERROR || this == CIRCUIT_OPEN || this == QUARANTINED;
    }
}
