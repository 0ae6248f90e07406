/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.internal.Background;
import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock over the client's nodes: a RedLock ({@link QuorumPolicy#MAJORITY}) or a MultiLock ({@link QuorumPolicy#ALL}).
 * Obtained from {@link RedlockClient#redLock(String)} or {@link RedlockClient#multiLock(String)}.
 *
 * <p>It has two faces:
 * <ul>
 *   <li><b>{@link Lock}</b>, bound to a thread like {@link java.util.concurrent.locks.ReentrantLock}: {@link #lock()},
 *       {@link #tryLock(long, TimeUnit)}, {@link #unlock()}. Reentrant: the holding thread may lock again without a
 *       network round, and the lock is released on the last {@link #unlock()}. {@link #unlock()} by a thread that does
 *       not hold it throws {@link IllegalMonitorStateException}. Without a fixed lease time the hold is
 *       auto-extended by the client's watchdog until the last {@link #unlock()};
 *       {@link #tryLock(long, long, TimeUnit)} fixes one instead. If the lease is lost, the thread no longer counts
 *       as holding the lock ({@link #isHeldByCurrentThread()} is false), and {@link #unlock()} releases what it
 *       can, then throws {@link IllegalMonitorStateException} with the {@link LockLostException} as its cause.</li>
 *   <li><b>Handle</b>, not bound to a thread: {@link #tryAcquire(Duration, Duration)} returns a {@link Lease} that may
 *       be passed between threads and released from any of them; {@link #attempt(Duration, Duration)} returns every
 *       node's answer; asynchronous variants return {@link CompletableFuture}s. The handle face is not reentrant.</li>
 * </ul>
 *
 * <p>Contention is never an exception: a busy lock yields {@code false} or an empty result. When the wait budget
 * runs out because too few nodes are reachable to form a quorum, the blocking methods throw
 * {@link NotEnoughNodesException}, whose outcome names each node and its error. {@link #lock()} and
 * {@link #lockInterruptibly()} wait through both contention and node failures.
 *
 * <p>Waiting works by rounds: each round asks every node in parallel and takes at most one per-node timeout; between
 * rounds the caller sleeps a random delay ({@link RedlockConfig#retryDelay()}, {@link RedlockConfig#retryJitter()}),
 * never past the refusing holder's remaining TTL ({@link AcquireResult#holderTtl()}), and is woken earlier when the
 * lock is released ({@link RedlockConfig.Builder#releaseNotifications(boolean)}): one waiter of this client per
 * release, the one waiting longest. A new acquisition with a wait budget queues behind the waiters this client already
 * has for the lock.
 *
 * <p>Thread-safe. Instances are cheap; all instances for the same name and policy from one client share the hold
 * state.
 */
public final class QuorumLock implements Lock {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumLock.class);

    /** Who holds a lock through the {@link Lock} face: one entry per (lock, thread). */
    record HoldKey(String lockId, Thread thread) {}

    /** Hold state; touched only by its owning thread, so the count needs no synchronization. */
    static final class Hold {
        final Lease lease;
        int count = 1;

        Hold(Lease lease) {
            this.lease = lease;
        }
    }

    private final RedlockClient client;
    private final QuorumEngine engine;
    private final LockRef ref;
    private final String lockId;

    QuorumLock(RedlockClient client, QuorumEngine engine, LockRef ref) {
        this.client = client;
        this.engine = engine;
        this.ref = ref;
        // Fenced and plain views of one lock share the hold: they are the same lock.
        this.lockId = ref.holdId();
    }

    /**
     * Returns the lock's name.
     *
     * @return the name given to {@link RedlockClient#redLock(String)} or {@link RedlockClient#multiLock(String)}
     */
    public String name() {
        return ref.name();
    }

    LockRef ref() {
        return ref;
    }

    /**
     * Returns the same lock with fencing: every lease it grants carries a {@link Lease#fencingToken() fencing token}
     * that is strictly greater than the token of every earlier lease of this lock.
     *
     * <p>How: on each node the lock has a counter next to its key. The acquire round also returns each granting
     * node's counter; the candidate token is the largest of them plus one. A second round raises the counter to the
     * candidate on every node that still holds our key, and the lease is fenced once a quorum confirms that within
     * its validity (else the acquisition fails and is released). Any later holder's quorum overlaps ours on a node
     * whose counter is already at least our token, so its token is larger. It costs one more round per acquisition.
     *
     * @return a fenced view of this lock (this lock if it is fenced already)
     */
    public QuorumLock fenced() {
        if (ref.kind() == LockRef.Kind.READ || ref.kind() == LockRef.Kind.MULTI) {
            throw new UnsupportedOperationException(
                    "lock '" + ref.name() + "': "
                            + (ref.kind() == LockRef.Kind.READ
                                    ? "a read lock is shared, so its leases carry no fencing token (the write lock's do)"
                                    : "a multi-resource lock has no fencing token: each resource's tokens come from its own counter"));
        }
        return ref.fenced() ? this : new QuorumLock(client, engine, ref.withFencing(true));
    }

    /**
     * Returns whether leases of this lock carry fencing tokens.
     *
     * @return true for a {@link #fenced()} lock
     */
    public boolean isFenced() {
        return ref.fenced();
    }

    /**
     * Returns the Redis key that holds this lock on every node.
     *
     * @return {@code keyPrefix + "{" + name + "}"}
     */
    public String key() {
        return ref.key();
    }

    /**
     * Returns the quorum policy.
     *
     * @return {@link QuorumPolicy#MAJORITY} for a RedLock, {@link QuorumPolicy#ALL} for a MultiLock
     */
    public QuorumPolicy policy() {
        return ref.policy();
    }

    // ----------------------------------------------------------------------------------------- the Lock face

    /**
     * Acquires the lock, waiting as long as it takes: through contention and through node failures (logged at WARN).
     * Not interruptible; an interrupt is remembered and the thread's interrupt status is set on return. The hold is
     * auto-extended until the last {@link #unlock()}.
     *
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public void lock() {
        if (reenter()) {
            return;
        }
        try {
            hold(engine.acquire(threadRef(), defaultTtlMillis(), QuorumEngine.FOREVER, false, true));
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible acquire threw InterruptedException", e);
        }
    }

    /**
     * Acquires the lock, waiting as long as it takes unless interrupted. The hold is auto-extended until the last
     * {@link #unlock()}.
     *
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (reenter()) {
            return;
        }
        hold(engine.acquire(threadRef(), defaultTtlMillis(), QuorumEngine.FOREVER, true, true));
    }

    /**
     * Acquires the lock only if it is free now: exactly one round, no retry. The hold is auto-extended until the
     * last {@link #unlock()}.
     *
     * <p>For every locking method: if the calling thread already holds this lock, the hold count goes up without a
     * network round, provided the lease is still valid; if it expired or was lost, {@link LockLostException} is
     * thrown (the earlier hold still needs its {@link #unlock()}).
     *
     * @return true if acquired (or already held by this thread)
     * @throws NotEnoughNodesException if too few nodes were reachable to form a quorum
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public boolean tryLock() {
        if (reenter()) {
            return true;
        }
        try {
            return holdIfAcquired(engine.acquire(threadRef(), defaultTtlMillis(), 0, false, true));
        } catch (InterruptedException e) {
            throw new AssertionError("an uninterruptible acquire threw InterruptedException", e);
        }
    }

    /**
     * Acquires the lock, waiting up to {@code time} for it. The hold is auto-extended until the last
     * {@link #unlock()}.
     *
     * @param time the wait budget; zero or negative means one round
     * @param unit the unit of {@code time}
     * @return true if acquired (or already held by this thread)
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws NotEnoughNodesException if the budget ran out because too few nodes were reachable
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(time, defaultTtlMillis(), unit, true);
    }

    /**
     * Acquires the lock with a fixed lease time, waiting up to {@code waitTime} for it. The keys expire after
     * {@code leaseTime} unless released or extended first; there is no watchdog.
     *
     * @param waitTime the wait budget; zero or negative means one round, and a budget too large for a long of
     *        nanoseconds (such as {@code Long.MAX_VALUE} days) means as long as it takes
     * @param leaseTime the time to live set on each node; in [1 ms, {@link RedlockConfig#MAX_LEASE_TIME} (7 days)]
     *        and above the per-node timeout
     * @param unit the unit of both times
     * @return true if acquired (or already held by this thread, in which case the lease time is unchanged)
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws IllegalArgumentException if the lease time is outside [1 ms, 7 days] or not above the per-node timeout
     * @throws NotEnoughNodesException if the budget ran out because too few nodes were reachable
     * @throws IllegalStateException if the client is closed
     */
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return tryLock(waitTime, engine.checkLeaseTime(leaseDuration(leaseTime, unit)), unit, false);
    }

    private boolean tryLock(long waitTime, long ttlMillis, TimeUnit unit, boolean autoExtend)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (reenter()) {
            return true;
        }
        long waitNanos = Math.max(0, unit.toNanos(waitTime));
        return holdIfAcquired(engine.acquire(threadRef(), ttlMillis, waitNanos, true, autoExtend));
    }

    /**
     * Releases one hold of the calling thread; the last one stops the watchdog and releases the lock on every node,
     * waiting only until the outcome is decided (at most one per-node timeout).
     *
     * <p>If the lease was lost (it expired, or too many nodes no longer hold it), the critical section was not
     * protected to its end, and the caller must hear of it: every {@code unlock()} of that hold throws
     * {@link IllegalMonitorStateException} with the {@link LockLostException} as its cause. The hold count still goes
     * down, and the last {@code unlock()} still sends the release to every node first (it never deletes another
     * owner's key).
     *
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock, or its lease was lost
     */
    @Override
    public void unlock() {
        HoldKey key = new HoldKey(lockId, Thread.currentThread());
        Hold hold = client.holds().get(key);
        if (hold == null) {
            throw new IllegalMonitorStateException("lock '" + ref.name() + "' (" + ref.policy()
                    + ") is not held by thread " + Thread.currentThread().getName());
        }
        LockLostException lost = lossOf(hold.lease);
        if (--hold.count == 0) {
            client.holds().remove(key);
            ReleaseResult result = hold.lease.release();
            if (lost != null) {
                LOG.warn(
                        "lock '{}' unlocked after its lease was lost ({}); release: {}",
                        ref.name(),
                        lost.reason(),
                        result);
            }
        }
        if (lost != null) {
            IllegalMonitorStateException e = new IllegalMonitorStateException("lock '" + ref.name() + "' ("
                    + ref.policy() + "): the lease was lost before unlock (" + lost.reason() + "); the critical "
                    + "section was not protected to its end");
            e.initCause(lost);
            throw e;
        }
    }

    /** The loss of a lease that is no longer valid (recording an expiry no timer saw yet), or null if it is valid. */
    private static LockLostException lossOf(Lease lease) {
        if (lease.isValid()) {
            return null;
        }
        try {
            lease.checkValid();
        } catch (LockLostException e) {
            return e;
        }
        return null;
    }

    /**
     * Not supported: a distributed lock has no condition variables.
     *
     * @return never
     * @throws UnsupportedOperationException always
     */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a QuorumLock has no conditions");
    }

    /**
     * Extends the calling thread's hold; see {@link Lease#extend(Duration)}.
     *
     * @param leaseTime the new TTL; must exceed the per-node timeout
     * @return true if the deadline moved
     * @throws IllegalMonitorStateException if the calling thread does not hold this lock
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     */
    public boolean extend(Duration leaseTime) {
        Hold hold = client.holds().get(new HoldKey(lockId, Thread.currentThread()));
        if (hold == null) {
            throw new IllegalMonitorStateException("lock '" + ref.name() + "' (" + ref.policy()
                    + ") is not held by thread " + Thread.currentThread().getName());
        }
        return hold.lease.extend(leaseTime).succeeded();
    }

    /**
     * Returns whether the calling thread holds this lock through the {@link Lock} face and its lease is still valid.
     * False once the lease is lost, even before {@link #unlock()}.
     *
     * @return true if held by the calling thread and valid
     */
    public boolean isHeldByCurrentThread() {
        Hold hold = client.holds().get(new HoldKey(lockId, Thread.currentThread()));
        return hold != null && hold.lease.isValid();
    }

    /**
     * Returns how many times the calling thread holds this lock through the {@link Lock} face.
     *
     * @return the hold count, 0 if not held
     */
    public int getHoldCount() {
        Hold hold = client.holds().get(new HoldKey(lockId, Thread.currentThread()));
        return hold == null ? 0 : hold.count;
    }

    /**
     * Returns the lease behind the calling thread's hold, for its validity, token and node outcomes.
     *
     * @return the lease, or empty if the calling thread does not hold this lock
     */
    public Optional<Lease> currentLease() {
        Hold hold = client.holds().get(new HoldKey(lockId, Thread.currentThread()));
        return hold == null ? Optional.empty() : Optional.of(hold.lease);
    }

    /**
     * The lock as the current thread acquires it through the {@link Lock} face: a read lock taken by the thread that
     * holds the write lock is let in by it (a downgrade, as {@link java.util.concurrent.locks.ReentrantReadWriteLock}
     * allows).
     */
    private LockRef threadRef() {
        if (ref.kind() == LockRef.Kind.READ) {
            Hold writer = client.holds().get(new HoldKey(ref.siblingHoldId(), Thread.currentThread()));
            if (writer != null && writer.lease.isValid()) {
                return ref.withWriterToken(writer.lease.token());
            }
        }
        return ref;
    }

    private boolean reenter() {
        Hold hold = client.holds().get(new HoldKey(lockId, Thread.currentThread()));
        if (hold == null) {
            if (ref.kind() == LockRef.Kind.WRITE
                    && client.holds().containsKey(new HoldKey(ref.siblingHoldId(), Thread.currentThread()))) {
                // ReentrantReadWriteLock would deadlock here; waiting for our own read lock to go never ends.
                throw new IllegalStateException("lock '" + ref.name() + "': this thread holds the read lock, and a "
                        + "read lock cannot be upgraded; unlock it before taking the write lock");
            }
            return false;
        }
        // Re-entering a hold whose lease expired or was lost would claim a lock someone else may now hold.
        hold.lease.checkValid();
        if (ref.fenced() && hold.lease.fencingToken().isEmpty()) {
            // The plain and fenced views are one lock; a hold taken without a token cannot hand one out.
            throw new IllegalStateException("lock '" + ref.name() + "' is held by this thread without a fencing "
                    + "token (through its plain view): unlock it before locking the fenced view");
        }
        hold.count++;
        return true;
    }

    private void hold(AcquireResult result) {
        client.holds()
                .put(
                        new HoldKey(lockId, Thread.currentThread()),
                        new Hold(result.lease().orElseThrow()));
    }

    private boolean holdIfAcquired(AcquireResult result) {
        if (leaseOrThrow(result).isPresent()) {
            hold(result);
            return true;
        }
        return false;
    }

    // ----------------------------------------------------------------------------------------- the handle face

    /**
     * Tries to acquire an auto-extended lease within the configured wait budget: the watchdog keeps it, with the
     * configured lease time as TTL, until it is released.
     *
     * @return the lease, or empty if the lock stayed busy
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws NotEnoughNodesException if the budget ran out because too few nodes were reachable
     * @throws IllegalStateException if the client is closed
     */
    public Optional<Lease> tryAcquire() throws InterruptedException {
        return tryAcquire(engine.config().waitBudget());
    }

    /**
     * Tries to acquire an auto-extended lease within {@code wait}: the watchdog keeps it, with the configured lease
     * time as TTL, until it is released.
     *
     * @param wait the wait budget; zero means one round
     * @return the lease, or empty if the lock stayed busy
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws NotEnoughNodesException if the budget ran out because too few nodes were reachable
     * @throws IllegalStateException if the client is closed
     */
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return leaseOrThrow(attempt(wait));
    }

    /**
     * Tries to acquire a lease with a fixed lease time within {@code wait}. It is not extended automatically; the
     * keys expire after {@code leaseTime} unless released or {@link Lease#extend extended} first.
     *
     * @param wait the wait budget; zero means one round
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return the lease, or empty if the lock stayed busy
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     * @throws NotEnoughNodesException if the budget ran out because too few nodes were reachable
     * @throws IllegalStateException if the client is closed
     */
    public Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        return leaseOrThrow(attempt(wait, leaseTime));
    }

    /**
     * Tries to acquire an auto-extended lease and reports everything; see {@link #attempt(Duration, Duration)}.
     *
     * @param wait the wait budget; zero means one round
     * @return the result
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws IllegalStateException if the client is closed
     */
    public AcquireResult attempt(Duration wait) throws InterruptedException {
        return engine.acquire(ref, defaultTtlMillis(), waitNanos(wait), true, true);
    }

    /**
     * Tries to acquire a lease with a fixed lease time and reports everything: the lease or the reason there is
     * none, and every node's answer in the last round. Never throws for node failures or contention.
     *
     * @param wait the wait budget; zero means one round
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return the result
     * @throws InterruptedException if the thread is interrupted while acquiring; a lease won by the round in flight
     *         is released
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     * @throws IllegalStateException if the client is closed
     */
    public AcquireResult attempt(Duration wait, Duration leaseTime) throws InterruptedException {
        return engine.acquire(ref, engine.checkLeaseTime(leaseTime), waitNanos(wait), true, false);
    }

    /**
     * Acquires an auto-extended lease without blocking; see {@link #tryAcquire(Duration)}. The future completes on
     * the configured async executor: with the lease, empty if the lock stayed busy, or exceptionally with
     * {@link NotEnoughNodesException}. Completing the returned future any other way (cancel, {@code orTimeout},
     * complete) stops the acquisition: no further round, and a lease won by a round in flight is released at once and
     * never kept by the watchdog. Futures derived from it ({@code thenApply}...) do not reach back.
     *
     * @param wait the wait budget; zero means one round
     * @return a future of the lease
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        return leaseOf(attemptAsync(wait));
    }

    /**
     * Acquires a lease with a fixed lease time without blocking; see {@link #tryAcquire(Duration, Duration)}. The
     * future completes on the configured async executor: with the lease, empty if the lock stayed busy, or
     * exceptionally with {@link NotEnoughNodesException}. Completing the returned future any other way (cancel,
     * {@code orTimeout}, complete) stops the acquisition: no further round, and a lease won by a round in flight is
     * released at once. Futures derived from it ({@code thenApply}...) do not reach back.
     *
     * @param wait the wait budget; zero means one round
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return a future of the lease
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait, Duration leaseTime) {
        return leaseOf(attemptAsync(wait, leaseTime));
    }

    /**
     * The lease of an asynchronous acquisition, linked both ways: completing the returned future in any other way
     * (cancel, {@code orTimeout}, complete) stops the acquisition, and a lease that arrives after that is released.
     */
    private static CompletableFuture<Optional<Lease>> leaseOf(CompletableFuture<AcquireResult> acquisition) {
        CompletableFuture<Optional<Lease>> out = new CompletableFuture<>();
        CompletableFuture<?> unused = acquisition.whenComplete((result, error) -> {
            if (error != null) {
                out.completeExceptionally(
                        error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error);
                return;
            }
            Optional<Lease> lease;
            try {
                lease = leaseOrThrow(result);
            } catch (NotEnoughNodesException e) {
                out.completeExceptionally(e);
                return;
            }
            if (!out.complete(lease)) {
                lease.ifPresent(l -> Background.watch(l.releaseAsync(), "giving back a lease won too late"));
            }
        });
        unused = out.whenComplete((lease, error) -> {
            if (!acquisition.isDone()) {
                acquisition.cancel(false);
            }
        });
        return out;
    }

    /**
     * Acquires an auto-extended lease without blocking and reports everything. The future completes on the
     * configured async executor, exceptionally only with {@link IllegalStateException} if the client closes. Completing it any other way (cancel,
     * {@code orTimeout}) stops the acquisition and releases a lease won meanwhile.
     *
     * @param wait the wait budget; zero means one round
     * @return a future of the result
     */
    public CompletableFuture<AcquireResult> attemptAsync(Duration wait) {
        return engine.acquireAsync(ref, defaultTtlMillis(), waitNanos(wait), true);
    }

    /**
     * Acquires a lease with a fixed lease time without blocking and reports everything; see
     * {@link #attempt(Duration, Duration)}. The future completes on the configured async executor, exceptionally
     * only with {@link IllegalStateException} if the client closes. Completing it any other way (cancel,
     * {@code orTimeout}) stops the acquisition and releases a lease won meanwhile.
     *
     * @param wait the wait budget; zero means one round
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return a future of the result
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     */
    public CompletableFuture<AcquireResult> attemptAsync(Duration wait, Duration leaseTime) {
        return engine.acquireAsync(ref, engine.checkLeaseTime(leaseTime), waitNanos(wait), false);
    }

    private static Optional<Lease> leaseOrThrow(AcquireResult result) {
        if (!result.acquired() && result.reason() == FailureReason.NOT_ENOUGH_NODES) {
            throw new NotEnoughNodesException(result.lastRound());
        }
        return result.lease();
    }

    // ----------------------------------------------------------------------------------------- helpers

    private long defaultTtlMillis() {
        return engine.config().leaseTime().toMillis();
    }

    /** A wait budget in nanoseconds: none below zero, and "as long as it takes" beyond what a long holds. */
    private static long waitNanos(Duration wait) {
        Objects.requireNonNull(wait, "wait");
        return wait.isNegative() ? 0 : saturatedNanos(wait);
    }

    private static long saturatedNanos(Duration d) {
        // Not toNanos(): it throws ArithmeticException past Long.MAX_VALUE ns (about 292 years).
        return d.compareTo(MAX_NANOS) > 0 ? QuorumEngine.FOREVER - 1 : d.toNanos();
    }

    private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

    /**
     * A lease time given as an amount of a unit, exactly (sub-millisecond parts included, which the lease-time check
     * judges). An amount no {@link Duration} holds (beyond about 292 billion years) is far outside the allowed range.
     */
    private static Duration leaseDuration(long amount, TimeUnit unit) {
        try {
            return Duration.of(amount, unit.toChronoUnit());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("leaseTime: must be in [1 ms, "
                    + ConfigChecks.human(RedlockConfig.MAX_LEASE_TIME) + "], got " + amount + " " + unit);
        }
    }

    @Override
    public String toString() {
        return "QuorumLock{" + ref.name() + ", " + ref.policy() + ", key=" + ref.key() + '}';
    }
}
