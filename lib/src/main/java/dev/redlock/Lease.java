/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

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
 * <p>A lease acquired without a fixed lease time is <em>auto-extended</em>: the client's watchdog renews it every third
 * of its TTL until it is released. A lease whose extension cannot reach a quorum before its deadline is <em>lost</em>:
 * {@link #isValid()} turns false at once, {@link #checkValid()} throws {@link LockLostException}, and listeners
 * registered with {@link #onLost} fire on the client's async executor.
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
     * Returns the time to live set on each node by the acquisition or the latest successful extension.
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
     * Returns the lease's fencing token, for leases of a {@link QuorumLock#fenced() fenced} lock: a number strictly
     * greater than the token of every earlier lease of the same lock, as long as no node loses its data (restart
     * quarantine guards the window in which a restarted node could). Pass it to the protected resource with every
     * write, and have the resource reject a write carrying a token lower than the highest it has seen: that stops a
     * holder that was paused past its validity from acting on a lock it no longer has.
     *
     * @return the token, or empty for leases of a lock without fencing
     */
    java.util.OptionalLong fencingToken();

    /**
     * Returns whether the client's watchdog keeps this lease alive until it is released.
     *
     * @return true for leases acquired without a fixed lease time
     */
    boolean isAutoExtended();

    /**
     * Extends the lease: sets the TTL of the key to {@code leaseTime} on every node that still holds this lease's
     * token, in parallel. Succeeds when a quorum confirms before the current deadline; the new deadline is then
     * computed like an acquisition's, from the start of this round: {@code t1 + leaseTime - elapsed - drift}. A lease
     * that is no longer valid is not extended (nothing is sent), and an extension never recreates a key that is
     * gone. If too many nodes no longer hold the token, the lease is lost. A failed extension may still have been
     * applied by the nodes it reached: one to a longer TTL leaves the current deadline in place, and one to a shorter
     * TTL cuts the deadline (from the moment it was sent) to what those nodes may now hold.
     *
     * @param leaseTime the new TTL; must exceed the per-node timeout
     * @return the round's outcome; {@link RoundOutcome#succeeded()} tells whether the deadline moved
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout
     */
    RoundOutcome extend(Duration leaseTime);

    /**
     * Extends the lease without blocking; see {@link #extend(Duration)}. The future never completes exceptionally.
     *
     * @param leaseTime the new TTL; must exceed the per-node timeout
     * @return a future of the round's outcome, completed on the client's async executor
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout
     */
    CompletableFuture<RoundOutcome> extendAsync(Duration leaseTime);

    /**
     * Throws if the caller may no longer assume it holds the lock. Call it right before acting on the protected
     * resource.
     *
     * @throws LockLostException if the lease was lost, has expired, or was released
     */
    void checkValid();

    /**
     * Registers a listener that is told when the lease is lost (not when it is released). It runs on the client's
     * async executor, never on the thread that detected the loss; if the lease is already lost it is scheduled at
     * once. Listeners of a lease acquired with a fixed lease time fire when that time runs out.
     *
     * @param listener receives the loss, with its reason and the last extension's per-node results
     * @return this lease
     */
    Lease onLost(Consumer<? super LockLostException> listener);

    /**
     * Returns why the lease was lost.
     *
     * @return the loss, or empty while the lease is held or after a plain release
     */
    Optional<LockLostException> lossCause();

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
     * <p>The watchdog of an auto-extended lease is stopped before the release is sent, so no renewal can follow
     * it. Releasing an expired or lost lease is not an error: the release still goes to every node, which report
     * {@link NodeStatus#ALREADY_EXPIRED} or {@link NodeStatus#OWNED_BY_ANOTHER}.
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
