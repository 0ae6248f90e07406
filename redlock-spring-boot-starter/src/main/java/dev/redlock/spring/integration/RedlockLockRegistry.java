/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.integration;

import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.RoundOutcome;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} whose locks are RedLocks
 * of a {@link RedlockClient}: granted by a majority of its Redis masters. Works with everything that takes a
 * {@code LockRegistry}: {@code LockRegistryLeaderInitiator}, aggregators, {@code executeLocked(...)}.
 *
 * <p>{@link #obtain(Object)} takes a {@code String} key, used as the lock's name ({@code client.redLock(key)}, so a
 * registry lock and the client's own {@code redLock} of the same name exclude each other), and returns the same
 * {@link Lock} instance for a key until {@link #expireUnusedOlderThan(long)} drops it. The lock:
 * <ul>
 *   <li>is <b>bound to a thread and reentrant</b>, like {@link ReentrantLock}: threads of one process queue on a
 *       local lock first, and only the thread that holds it asks the nodes;</li>
 *   <li>holds a <b>lease with a fixed TTL</b>, the registry's lease time, instead of a lease kept alive by the
 *       client's watchdog. The lease lives as long as its owner keeps acquiring: every reentrant {@code lock},
 *       {@code lockInterruptibly} or {@code tryLock} by the owner <b>goes to the quorum and renews the lease</b>
 *       ({@link Lease#extend(Duration)}) before it counts as acquired. That is the heartbeat of
 *       {@code LockRegistryLeaderInitiator}, which calls {@code tryLock} on its lock at every heartbeat: a leader
 *       whose process stalls, or that cannot reach a quorum, stops renewing and its lease expires, so another
 *       instance takes over after at most one lease time, and the stalled one learns it at its next heartbeat. (A
 *       watchdog-kept lease would outlive a stuck leader thread for as long as the process runs.) For long critical
 *       sections outside leader election, call {@link #renewLock(Object)} or set a
 *       {@link #setRenewalTaskScheduler(TaskScheduler) renewal scheduler};</li>
 *   <li><b>reports a lost lease</b>: a reentrant acquisition whose renewal finds the lease lost (its keys expired,
 *       were force-unlocked, or are held by another owner), or left with a third of the lease time or less (failed
 *       renewals, such as when too few nodes answer), or whose client is closed, does not count: {@code tryLock}
 *       returns {@code false}, and the thread no longer holds the lock. Its holds are dropped (each later
 *       {@code unlock()} of one of them throws, see below) and its next acquisition starts afresh; {@code lock()} and
 *       {@code lockInterruptibly()} start it at once. A lease given up with validity left is not released: its
 *       keys expire within that third, so an owner that acquires again at least every third of the lease time never
 *       acts on an expired lease, and the next owner only gets in after the old one learnt of the loss (unless the
 *       keys were deleted under it, as {@link RedlockClient#forceUnlock(String)} does: then until its next
 *       acquisition). Keep a leader initiator's {@code heartBeatMillis} plus one per-node timeout well under a third
 *       of the lease time;</li>
 *   <li>{@code unlock()} by a thread that does not hold it throws {@link IllegalMonitorStateException}; the owner's
 *       last {@code unlock()} releases the lease on every node. {@code unlock()} of a hold whose lease was lost
 *       still releases what it can and drops the local hold, then throws {@link ConcurrentModificationException}
 *       (as Spring Integration's JDBC and Redis registries do) with the loss as its cause (a
 *       {@link LockLostException}, or an {@link IllegalStateException} for a lease given up): the critical section
 *       was not protected to its end;</li>
 *   <li>store failures while acquiring (too few nodes for the whole wait, a closed client) throw
 *       {@link CannotAcquireLockException}; {@code newCondition()} is not supported.</li>
 * </ul>
 *
 * <p>On a graceful hand-over ({@code stop()} or {@code yield}), {@code LockRegistryLeaderInitiator} unlocks before
 * it calls the candidate's {@code onRevoked}, so the next leader's {@code onGranted} may come a moment before the
 * old one's {@code onRevoked}; work that must never overlap should check the lock (or a fencing token), not only the
 * candidate callbacks.
 *
 * <p>Thread-safe. The registry does not own the client: closing the client fails further acquisitions, and leases
 * still held expire after their TTL.
 */
public class RedlockLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockLockRegistry.class);

    private final RedlockClient client;
    private final Duration leaseTime;
    private final ConcurrentHashMap<String, RedlockRegistryLock> locks = new ConcurrentHashMap<>();
    private volatile TaskScheduler renewalScheduler;

    /**
     * Creates a registry whose leases live for the client's configured lease time.
     *
     * @param client the client; not closed by the registry
     */
    public RedlockLockRegistry(RedlockClient client) {
        this(client, client.config().leaseTime());
    }

    /**
     * Creates a registry.
     *
     * @param client the client; not closed by the registry
     * @param leaseTime the fixed TTL of every lease, renewed by each reentrant acquisition of the owner; it must
     *     leave validity after a worst-case round, as {@link RedlockConfig#checkLeaseTime} checks
     * @throws IllegalArgumentException if the lease time can never yield a lease with the client's settings
     */
    public RedlockLockRegistry(RedlockClient client, Duration leaseTime) {
        this.client = Objects.requireNonNull(client, "client");
        this.leaseTime = Objects.requireNonNull(leaseTime, "leaseTime");
        RedlockConfig config = client.config();
        RedlockConfig.checkLeaseTime(
                "leaseTime", leaseTime, config.perNodeTimeout(), config.driftFactor(), config.minValidity());
    }

    /**
     * Returns the client whose nodes hold the locks.
     *
     * @return the client
     */
    public RedlockClient getClient() {
        return client;
    }

    /**
     * Returns the TTL of the registry's leases.
     *
     * @return the lease time
     */
    public Duration getLeaseTime() {
        return leaseTime;
    }

    /**
     * Returns the lock for a key: the same instance for the same key while it stays in the registry.
     *
     * @param lockKey the lock's name, a non-empty {@code String} (see {@link RedlockClient#redLock(String)})
     * @return the lock
     * @throws IllegalArgumentException if the key is not a {@code String} or not a valid lock name
     */
    @Override
    public Lock obtain(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lockKey: must be a String, got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return locks.computeIfAbsent(key, k -> new RedlockRegistryLock(k, client.redLock(k)));
    }

    /**
     * Drops cached locks that no thread holds or waits for and that were last acquired or released more than
     * {@code age} milliseconds ago. A later {@link #obtain(Object)} of such a key creates a new instance.
     *
     * @param age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        locks.values().removeIf(lock -> now - lock.lastUsed > age && lock.isIdle());
    }

    /**
     * Renews the lease of a lock the calling thread holds: sets its TTL to the lease time again on every node that
     * still holds it.
     *
     * @param lockKey the lock's key
     * @throws IllegalStateException if the calling thread does not hold the lock, or the renewal did not reach a
     *     quorum (the lease may be lost; {@code unlock()} tells)
     */
    @Override
    public void renewLock(Object lockKey) {
        RedlockRegistryLock lock = lockKey instanceof String key ? locks.get(key) : null;
        if (lock == null) {
            throw new IllegalStateException("Could not renew lock " + lockKey + ": not held by the current thread");
        }
        lock.renew();
    }

    /**
     * Sets a scheduler that renews every lease acquired from now on, every third of the lease time, until it is
     * released or lost. Renewal then no longer depends on the owner's thread: a lease outlives a stalled owner for
     * as long as the process runs, as a watchdog-kept lease does. Leave it unset for leader election.
     *
     * @param renewalTaskScheduler the scheduler, or null to stop renewing leases acquired from now on
     */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        this.renewalScheduler = renewalTaskScheduler;
    }

    @Override
    public String toString() {
        return "RedlockLockRegistry{leaseTime=" + leaseTime + ", locks=" + locks.size() + ", client=" + client + '}';
    }

    /** Holds of one thread that were dropped because their lease was lost: each later unlock() by it reports it. */
    private static final class LostHolds {
        int count;
        final RuntimeException cause;

        LostHolds(int count, RuntimeException cause) {
            this.count = count;
            this.cause = cause;
        }
    }

    /** One key's lock: a local reentrant lock for the threads of this process, and the owner's lease. */
    private final class RedlockRegistryLock implements Lock {

        private final String key;
        private final QuorumLock quorumLock;
        private final ReentrantLock local = new ReentrantLock();
        /** The owner's lease; written only by the thread holding {@link #local}. */
        private volatile Lease lease;
        /** The owner's renewal task, if any; touched only by the thread holding {@link #local}. */
        private ScheduledFuture<?> renewal;

        private volatile long lastUsed = System.currentTimeMillis();
        /** Threads whose holds were dropped on a lost lease; guarded by itself. */
        private final Map<Thread, LostHolds> lost = new WeakHashMap<>();

        RedlockRegistryLock(String key, QuorumLock quorumLock) {
            this.key = key;
            this.quorumLock = quorumLock;
        }

        boolean isIdle() {
            return !local.isLocked() && !local.hasQueuedThreads();
        }

        @Override
        public void lock() {
            if (local.isHeldByCurrentThread() && reenter()) {
                return;
            }
            local.lock();
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        Optional<Lease> acquired = quorumLock.tryAcquire(ChronoUnit.FOREVER.getDuration(), leaseTime);
                        if (acquired.isPresent()) {
                            hold(acquired.get());
                            return;
                        }
                    } catch (InterruptedException e) {
                        // lock() is not interruptible: remember it and try again.
                        interrupted = true;
                    } catch (RuntimeException e) {
                        local.unlock();
                        throw cannotAcquire(e);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            if (local.isHeldByCurrentThread() && reenter()) {
                return;
            }
            local.lockInterruptibly();
            try {
                Optional<Lease> acquired;
                do {
                    acquired = quorumLock.tryAcquire(ChronoUnit.FOREVER.getDuration(), leaseTime);
                } while (acquired.isEmpty());
                hold(acquired.get());
            } catch (InterruptedException e) {
                local.unlock();
                throw e;
            } catch (RuntimeException e) {
                local.unlock();
                throw cannotAcquire(e);
            }
        }

        @Override
        public boolean tryLock() {
            try {
                return tryLock(0, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            Objects.requireNonNull(unit, "unit");
            if (local.isHeldByCurrentThread()) {
                return reenter();
            }
            long start = System.nanoTime();
            long budget = Math.max(0, unit.toNanos(time));
            if (!local.tryLock(budget, TimeUnit.NANOSECONDS)) {
                return false;
            }
            try {
                long left = Math.max(0, budget - (System.nanoTime() - start));
                Optional<Lease> acquired = quorumLock.tryAcquire(Duration.ofNanos(left), leaseTime);
                if (acquired.isEmpty()) {
                    local.unlock();
                    return false;
                }
                hold(acquired.get());
                return true;
            } catch (InterruptedException e) {
                local.unlock();
                throw e;
            } catch (RuntimeException e) {
                local.unlock();
                throw cannotAcquire(e);
            }
        }

        /**
         * The owner acquires again: renew the lease on the quorum, then count one more hold. If the lease is lost,
         * or could not be renewed and has a third of the lease time or less left, drop the thread's holds and
         * return false.
         */
        private boolean reenter() {
            Lease current = lease;
            if (client.isClosed()) {
                // Nothing can renew the lease any more: give it up now rather than at two thirds of its time.
                dropLostHolds(current, new IllegalStateException("the Redlock client is closed"));
                return false;
            }
            RuntimeException failure = null;
            boolean renewed = false;
            try {
                renewed = current.extend(leaseTime).succeeded();
            } catch (RuntimeException e) {
                failure = e;
            }
            if (renewed || (current.isValid() && current.remainingValidity().compareTo(leaseTime.dividedBy(3)) > 0)) {
                if (!renewed) {
                    LOG.debug(
                            "lock '{}': renewal failed, {} ms of validity left",
                            key,
                            current.remainingValidity().toMillis(),
                            failure);
                }
                local.lock();
                lastUsed = System.currentTimeMillis();
                return true;
            }
            dropLostHolds(current, failure);
            return false;
        }

        private void hold(Lease acquired) {
            // Holds dropped earlier stay recorded: a fresh acquisition does not make them protected after the fact.
            lease = acquired;
            lastUsed = System.currentTimeMillis();
            TaskScheduler scheduler = renewalScheduler;
            if (scheduler != null) {
                renewal = scheduleRenewal(scheduler, acquired);
            }
        }

        private ScheduledFuture<?> scheduleRenewal(TaskScheduler scheduler, Lease acquired) {
            Duration period = leaseTime.dividedBy(3);
            AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
            ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                    () -> {
                        if (!acquired.isValid()) {
                            ScheduledFuture<?> f = self.get();
                            if (f != null) {
                                f.cancel(false);
                            }
                            return;
                        }
                        RoundOutcome outcome = acquired.extend(leaseTime);
                        if (!outcome.succeeded()) {
                            LOG.debug("lock '{}': scheduled renewal failed: {}", key, outcome);
                        }
                    },
                    Instant.now().plus(period),
                    period);
            self.set(future);
            return future;
        }

        private void cancelRenewal() {
            if (renewal != null) {
                renewal.cancel(false);
                renewal = null;
            }
        }

        /**
         * Drops every hold of the calling thread, whose lease is lost or given up; its next unlock() calls each
         * report the loss. A lease that is no longer valid is released (token-checked: it only removes what is
         * still ours); one given up with validity left is left to expire.
         */
        private void dropLostHolds(Lease current, RuntimeException failure) {
            int holds = local.getHoldCount();
            cancelRenewal();
            lease = null;
            RuntimeException cause = lossOf(current);
            if (cause == null) {
                cause = new IllegalStateException(
                        "lock '" + key + "': the lease could not be renewed and had "
                                + current.remainingValidity().toMillis() + " ms of validity left; given up",
                        failure);
            }
            if (!current.isValid() && !client.isClosed()) {
                try {
                    java.util.concurrent.CompletableFuture<?> unused = current.releaseAsync();
                } catch (RuntimeException e) {
                    LOG.debug("lock '{}': release of a lost lease failed", key, e);
                }
            }
            LOG.warn(
                    "lock '{}': lease lost by thread '{}' ({} hold(s) dropped): {}",
                    key,
                    Thread.currentThread().getName(),
                    holds,
                    cause.getMessage());
            synchronized (lost) {
                lost.put(Thread.currentThread(), new LostHolds(holds, cause));
            }
            while (local.isHeldByCurrentThread()) {
                local.unlock();
            }
            lastUsed = System.currentTimeMillis();
        }

        @Override
        public void unlock() {
            if (!local.isHeldByCurrentThread()) {
                LostHolds dropped;
                synchronized (lost) {
                    dropped = lost.get(Thread.currentThread());
                    if (dropped != null && --dropped.count <= 0) {
                        lost.remove(Thread.currentThread());
                    }
                }
                if (dropped != null) {
                    throw lostException(dropped.cause);
                }
                throw new IllegalMonitorStateException("The current thread doesn't own lock " + key);
            }
            Lease current = lease;
            RuntimeException lostCause = lossOf(current);
            RuntimeException releaseFailure = null;
            try {
                if (local.getHoldCount() == 1) {
                    cancelRenewal();
                    lease = null;
                    try {
                        current.release();
                    } catch (RuntimeException e) {
                        releaseFailure = e;
                    }
                }
            } finally {
                local.unlock();
                lastUsed = System.currentTimeMillis();
            }
            if (lostCause != null) {
                throw lostException(lostCause);
            }
            if (releaseFailure != null) {
                throw new DataAccessResourceFailureException("Failed to release lock " + key, releaseFailure);
            }
        }

        /** Renews the calling thread's lease, for {@link RedlockLockRegistry#renewLock(Object)}. */
        void renew() {
            if (!local.isHeldByCurrentThread()) {
                throw new IllegalStateException("Could not renew lock " + key + ": not held by the current thread");
            }
            RoundOutcome outcome;
            try {
                outcome = lease.extend(leaseTime);
            } catch (RuntimeException e) {
                throw new IllegalStateException("Could not renew lock " + key, e);
            }
            if (!outcome.succeeded()) {
                throw new IllegalStateException("Could not renew lock " + key + ": " + outcome.reason() + " ("
                        + outcome.granted() + " of " + outcome.required() + " nodes)");
            }
            lastUsed = System.currentTimeMillis();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("Conditions are not supported");
        }

        private CannotAcquireLockException cannotAcquire(RuntimeException e) {
            return new CannotAcquireLockException("Failed to lock mutex at " + key, e);
        }

        @Override
        public String toString() {
            Lease current = lease;
            return "RedlockRegistryLock{" + key + (current == null ? ", free here" : ", " + current) + '}';
        }
    }

    /** The loss of a lease that is no longer valid (recording an expiry no timer saw yet), or null if it is valid. */
    private static RuntimeException lossOf(Lease lease) {
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

    private static ConcurrentModificationException lostException(RuntimeException cause) {
        ConcurrentModificationException e = new ConcurrentModificationException("Lock was released in the store due "
                + "to expiration. The integrity of data protected by this lock may have been compromised.");
        e.initCause(cause);
        return e;
    }
}
