/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * Why a round did not produce a lease. Lets callers tell "the lock is busy" from "not enough nodes are reachable".
 */
public enum FailureReason {

    /** The round succeeded. */
    NONE,

    /**
     * Contention: other owners hold the key on enough nodes that the quorum could not be reached, even counting every
     * node that failed as if it had granted.
     */
    BUSY,

    /**
     * Too many nodes failed, timed out or had an open circuit breaker: even if every answering node had granted, the
     * quorum could not have been reached.
     */
    NOT_ENOUGH_NODES,

    /**
     * A quorum granted, but the round took so long that the remaining validity ({@code ttl - elapsed - drift}) was not
     * above the configured minimum. The grants were released.
     */
    VALIDITY_EXHAUSTED,

    /**
     * A fenced acquisition: a quorum granted the lock, but no fencing token could be issued safely, so the grants
     * were released. A token must exceed every earlier token of the lock, which takes a read of the lock's fencing
     * counters that covers them: a quorum of nodes whose counters are intact (never lost since the counters started,
     * or repaired since), or every configured node. A node that lost its data (restart without persistence,
     * {@code FLUSHALL}, failover) counts in such a read only once a later fenced acquisition has repaired its counter
     * from the others, which needs those others to answer. A later attempt succeeds once they do.
     */
    FENCING_UNAVAILABLE,

    /**
     * An extension found the lease no longer valid: it had expired or been released before the round, the round
     * ended after the lease's deadline, or too many nodes no longer held its token. Extensions never recreate a
     * lock that is gone.
     */
    LEASE_EXPIRED
}
