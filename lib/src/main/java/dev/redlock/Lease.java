package dev.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A held lock, as a handle that is not bound to a thread: it may be passed between threads and released from any of
 * them. Obtained from {@link QuorumLock#tryAcquire(Duration, Duration)} and its variants.
 *
 * <p>A lease is valid until its deadline: the start of the winning round plus its validity
 * ({@code ttl - elapsed - drift}), on the client's monotonic {@link Ticker}. After that the caller must assume another
 * owner may hold the lock, even if the keys have not yet expired on the nodes. Protect resources that must never see
 * two writers with a fencing check of their own: a paused process can act after its lease expired.
 *
 * <p>{@link #close()} releases the lease and is idempotent, so a lease fits try-with-resources:
 * <pre>{@code
 * try (Lease lease = lock.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(10)).orElseThrow()) {
 *     // critical section
 * }
 * }</pre>
 *
 * <p>Implementations are thread-safe.
 */
public interface Lease extends AutoCloseable {

    /**
     * Returns the name of the lock this lease holds.
     *
     * @return the lock name
     */
    String lockName();

    /**
     * Returns the Redis key that holds the lock on every node.
     *
     * @return the key
     */
    String key();

    /**
     * Returns the quorum policy the lease was acquired under.
     *
     * @return {@link QuorumPolicy#MAJORITY} for RedLock, {@link QuorumPolicy#ALL} for MultiLock
     */
    QuorumPolicy policy();

    /**
     * Returns this acquisition's unique owner token: 128 random bits from {@link java.security.SecureRandom}, the
     * value stored in the lock key. Treat it as a secret: whoever knows it can release the lock.
     *
     * @return the token
     */
    String token();

    /**
     * Returns the time to live that was set on each node.
     *
     * @return the lease time
     */
    Duration leaseTime();

    /**
     * Returns the ticker reading (nanoseconds, see {@link Ticker}) at which this lease stops being valid.
     *
     * @return the deadline on the client's monotonic ticker
     */
    long deadlineNanos();

    /**
     * Returns how much validity is left, on the client's monotonic ticker.
     *
     * @return the remaining validity, or {@link Duration#ZERO} once expired or released
     */
    Duration remainingValidity();

    /**
     * Returns whether the caller may still assume it holds the lock: not released and before the deadline.
     *
     * @return true while the lease is held and valid
     */
    boolean isValid();

    /**
     * Returns the round that granted this lease, with each node's answer and latency.
     *
     * @return the winning round
     */
    RoundOutcome acquisition();

    /**
     * Releases the lease on every node and waits until the outcome is decided (the lock's quorum confirmed the key
     * is gone, or every node answered or timed out; at most one per-node timeout). Nodes that had not answered complete in the
     * background. Calling it again returns the first call's result without sending anything.
     *
     * <p>Releasing an expired lease is not an error: nodes report {@link NodeStatus#ALREADY_EXPIRED}.
     *
     * @return what each node did
     */
    ReleaseResult release();

    /**
     * Releases the lease without blocking. Same semantics as {@link #release()}; the future never completes
     * exceptionally.
     *
     * @return a future of the result, completed on the client's asynchronous executor
     */
    CompletableFuture<ReleaseResult> releaseAsync();

    /**
     * Releases the lease, as {@link #release()}. Idempotent: a second call does nothing.
     */
    @Override
    void close();
}
