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
     * An extension found the lease no longer valid: it had expired or been released before the round, the round
     * ended after the lease's deadline, or too many nodes no longer held its token. Extensions never recreate a
     * lock that is gone.
     */
    LEASE_EXPIRED
}
