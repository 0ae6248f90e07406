/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.internal.Background;
import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.engine.ReleaseWatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A counting semaphore over the client's nodes: at most {@link #permits()} leases of it are held at any time, under the
 * same fault model as a RedLock.
 *
 * <p><b>How, and why this way.</b> Permit {@code i} is a RedLock of its own, named {@code name + "/permit-" + i}. A
 * permit is acquired by trying the permits one after another, starting at a random one, one round each, until one is
 * granted; a full pass that finds every permit held sleeps (as a lock's waiter does) and tries again while the wait
 * budget lasts. Since each permit is a RedLock, each has at most one holder, so at most {@code permits} leases exist
 * at once. Counting holders on each node and admitting on a majority would not be: with 2 permits and 3 nodes, three
 * clients can each be admitted by a different majority (nodes {1,2}, {2,3}, {1,3} each count two) and hold at the same
 * time.
 *
 * <p>A permit is a {@link Lease}: it has a TTL, can be extended, is kept by the watchdog when auto-extended, signals its
 * loss, and, from a {@link #fenced()} semaphore, carries a fencing token. Fencing tokens increase per permit (each
 * permit has its own counter), not across the semaphore. Clients must agree on the number of permits of a name: a
 * client that believes in more permits uses more of them. Its keys are those of the locks
 * {@code name + "/permit-0"} ... {@code name + "/permit-(permits-1)"}; do not use those names for locks of your own.
 *
 * <p>Waiting: a full pass that finds every permit held sleeps until a permit is released, and passes again. With
 * release notifications (the default) the waiter is in this client's wait queue of every permit, so a release of any
 * permit, by this client or heard from the nodes, wakes it (one waiter of each client per release, the one waiting
 * longest); it still polls, in case a message was lost: after the retry delay while this client hears too few nodes,
 * else after a third of {@link RedlockClient#handOverWindow()}. Without notifications it polls after the retry delay.
 * It never sleeps past the moment the first holder's keys expire.
 *
 * <p>Thread-safe. Instances are cheap. Not reentrant: every acquisition takes another permit. Blocking
 * ({@link #tryAcquire(Duration)}) and asynchronous ({@link #tryAcquireAsync(Duration)}) acquisitions share the permits.
 */
public final class QuorumSemaphore {

    /** The most permits a semaphore may have. */
    public static final int MAX_PERMITS = 1024;
    /** Room left in a lock name for the permit suffix ({@code "/permit-1023"}). */
    static final int SUFFIX_BYTES = 16;

    private final String name;
    private final int permits;
    private final List<QuorumLock> slots;
    private final QuorumEngine engine;

    QuorumSemaphore(String name, int permits, List<QuorumLock> slots, QuorumEngine engine) {
        this.name = name;
        this.permits = permits;
        this.slots = List.copyOf(slots);
        this.engine = engine;
    }

    /**
     * Returns the semaphore's name.
     *
     * @return the name given to {@link RedlockClient#semaphore(String, int)}
     */
    public String name() {
        return name;
    }

    /**
     * Returns how many leases may be held at once.
     *
     * @return the number of permits
     */
    public int permits() {
        return permits;
    }

    /**
     * Returns the same semaphore whose permits carry fencing tokens ({@link Lease#fencingToken()}), increasing per
     * permit. See {@link QuorumLock#fenced()} for the cost and the guarantee.
     *
     * @return the fenced view; it shares the permits of this one
     */
    public QuorumSemaphore fenced() {
        List<QuorumLock> fenced = new ArrayList<>(slots.size());
        for (QuorumLock slot : slots) {
            fenced.add(slot.fenced());
        }
        return new QuorumSemaphore(name, permits, fenced, engine);
    }

    /**
     * Tries to take a permit as an auto-extended lease within {@code wait}: the watchdog keeps it, with the configured
     * lease time as TTL, until it is released.
     *
     * @param wait the wait budget; zero (or negative) means one pass over the permits
     * @return the permit's lease, or empty if every permit stayed held
     * @throws InterruptedException if the thread is interrupted while acquiring; a permit won by the round in flight
     *         is released
     * @throws NotEnoughNodesException if, in the last pass, no permit could be decided because too few nodes were
     *         reachable
     * @throws IllegalStateException if the client is closed
     */
    public Optional<Lease> tryAcquire(Duration wait) throws InterruptedException {
        return acquire(wait, null);
    }

    /**
     * Tries to take a permit as a lease with a fixed lease time within {@code wait}. It is not extended automatically.
     *
     * @param wait the wait budget; zero means one pass over the permits
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return the permit's lease, or empty if every permit stayed held
     * @throws InterruptedException if the thread is interrupted while acquiring; a permit won by the round in flight
     *         is released
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     * @throws NotEnoughNodesException if, in the last pass, no permit could be decided because too few nodes were
     *         reachable
     * @throws IllegalStateException if the client is closed
     */
    public Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException {
        Objects.requireNonNull(leaseTime, "leaseTime");
        engine.checkLeaseTime(leaseTime);
        return acquire(wait, leaseTime);
    }

    /**
     * Takes a permit without blocking, as an auto-extended lease, within {@code wait}: as {@link #tryAcquire(Duration)},
     * with the rounds driven by the client's I/O and scheduler threads.
     *
     * @param wait the wait budget; zero (or negative) means one pass over the permits
     * @return a future of the permit's lease, or of empty if every permit stayed held. It fails with
     *         {@link NotEnoughNodesException} when the last pass decided no permit for lack of nodes, and with
     *         {@link IllegalStateException} if the client closes. Cancelling it stops further rounds; a permit won by
     *         the round in flight is released.
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait) {
        return acquireAsync(wait, null);
    }

    /**
     * Takes a permit without blocking, as a lease with a fixed lease time, within {@code wait}; see
     * {@link #tryAcquireAsync(Duration)}.
     *
     * @param wait the wait budget; zero means one pass over the permits
     * @param leaseTime the time to live set on each node; must exceed the per-node timeout
     * @return a future of the permit's lease, or of empty if every permit stayed held
     * @throws IllegalArgumentException if the lease time is not above the per-node timeout, or above 7 days
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(Duration wait, Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        engine.checkLeaseTime(leaseTime);
        return acquireAsync(wait, leaseTime);
    }

    private CompletableFuture<Optional<Lease>> acquireAsync(Duration wait, Duration leaseTime) {
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0 : saturatedNanos(wait);
        AsyncPass pass = new AsyncPass(leaseTime, engine.ticker().nanoTime() + waitNanos);
        // A pass asleep between passes is a task on the client's scheduler, which closing drops: fail it then.
        Runnable closing = () -> pass.result.completeExceptionally(closed());
        if (engine.onClose(closing)) {
            CompletableFuture<?> unused = pass.result.whenComplete((r, e) -> engine.removeCloseListener(closing));
            pass.start();
        }
        return pass.result;
    }

    /** One asynchronous acquisition: passes over the permits, one round at a time, until one is granted. */
    private final class AsyncPass {
        final Duration leaseTime;
        final long deadline;
        final CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        int start;
        int tried;
        boolean anyDecided;
        AcquireResult last;
        long freesIn;
        /** Signalled by the release of any permit, once the first pass found every permit held. */
        ReleaseWatch watch;
        /** Between passes: set by each sleep, cleared by whichever of its timer and a release signal ends it. */
        final java.util.concurrent.atomic.AtomicBoolean asleep = new java.util.concurrent.atomic.AtomicBoolean();

        volatile java.util.concurrent.ScheduledFuture<?> timer;

        AsyncPass(Duration leaseTime, long deadline) {
            this.leaseTime = leaseTime;
            this.deadline = deadline;
            CompletableFuture<?> unused = result.whenComplete((r, e) -> {
                ReleaseWatch w = watch;
                if (w != null) {
                    w.close();
                }
            });
        }

        void start() {
            ReleaseWatch w = watch;
            if (w != null) {
                w.takeSignal(); // this pass answers the releases signalled so far
            }
            start = ThreadLocalRandom.current().nextInt(permits);
            tried = 0;
            anyDecided = false;
            freesIn = Long.MAX_VALUE;
            next();
        }

        void next() {
            if (result.isDone()) {
                return;
            }
            QuorumLock slot = slots.get((start + tried) % permits);
            CompletableFuture<AcquireResult> round =
                    leaseTime == null ? slot.attemptAsync(Duration.ZERO) : slot.attemptAsync(Duration.ZERO, leaseTime);
            CompletableFuture<?> unused = round.whenComplete(this::answered);
        }

        private void answered(AcquireResult r, Throwable error) {
            if (error != null) {
                result.completeExceptionally(
                        error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                                ? error.getCause()
                                : error);
                return;
            }
            if (r.acquired()) {
                Lease lease = r.lease().orElseThrow();
                if (!result.complete(Optional.of(lease))) {
                    Background.watch(lease.releaseAsync(), "giving back a permit won too late"); // cancelled meanwhile
                }
                return;
            }
            last = r;
            anyDecided |= r.reason() != FailureReason.NOT_ENOUGH_NODES;
            Optional<Duration> ttl = r.holderTtl();
            if (ttl.isPresent()) {
                freesIn = Math.min(
                        freesIn, TimeUnit.MILLISECONDS.toNanos(ttl.get().toMillis() + 1));
            }
            if (++tried < permits) {
                next();
                return;
            }
            long remaining = deadline - engine.ticker().nanoTime();
            if (remaining <= 0) {
                if (anyDecided) {
                    result.complete(Optional.empty());
                } else {
                    result.completeExceptionally(new NotEnoughNodesException(last.lastRound()));
                }
                return;
            }
            if (watch == null && !result.isDone()) {
                watch = engine.watchReleases(keys(), this::signalled);
                if (watch != null) {
                    if (result.isDone()) {
                        watch.close(); // cancelled meanwhile: its completion may have run before the watch was set
                        return;
                    }
                    passSoon(); // a permit released before the watch began would go unheard: pass once more
                    return;
                }
            }
            asleep.set(true);
            timer = engine.schedule(this::wake, Math.min(Math.min(pollNanos(watch), freesIn), remaining));
            if (timer == null) {
                result.completeExceptionally(closed());
            } else if (watch != null && watch.signalled()) {
                signalled(); // signalled before the sleep was in place: do not sleep through it
            }
        }

        /** A release of a permit was signalled: end the sleep, if asleep, on the scheduler (never the I/O thread). */
        void signalled() {
            if (asleep.compareAndSet(true, false)) { // only one of the timer and the signals ends a sleep
                java.util.concurrent.ScheduledFuture<?> t = timer;
                if (t != null) {
                    t.cancel(false);
                }
                passSoon();
            }
        }

        /** The next pass, on the scheduler. */
        private void passSoon() {
            if (engine.schedule(
                            () -> {
                                if (!result.isDone()) {
                                    start();
                                }
                            },
                            0)
                    == null) {
                result.completeExceptionally(closed());
            }
        }

        /** The sleep's timer: ends it and passes again, unless a signal ended it first. */
        private void wake() {
            if (asleep.compareAndSet(true, false) && !result.isDone()) {
                start();
            }
        }
    }

    /** The retry delay with its jitter, so that competing clients spread out. */
    private long retryDelayNanos() {
        return jittered(engine.config().retryDelay().toNanos());
    }

    /** {@code nanos} spread by the retry jitter. */
    private long jittered(long nanos) {
        double jitter = Math.min(engine.config().retryJitter(), 0.999);
        return (long)
                (nanos * (1 - jitter + 2 * jitter * ThreadLocalRandom.current().nextDouble()));
    }

    private Optional<Lease> acquire(Duration wait, Duration leaseTime) throws InterruptedException {
        Objects.requireNonNull(wait, "wait");
        long waitNanos = wait.isNegative() ? 0 : saturatedNanos(wait); // as a lock's wait budget
        long deadline = engine.ticker().nanoTime() + waitNanos;
        Thread waiting = Thread.currentThread();
        long[] freesIn = new long[1];
        ReleaseWatch watch = null;
        try {
            while (true) {
                if (watch != null) {
                    watch.takeSignal(); // this pass answers the releases signalled so far
                }
                Optional<Lease> got = pass(leaseTime, deadline, freesIn);
                if (got != null) {
                    return got;
                }
                if (watch == null && waitNanos > 0) {
                    watch = engine.watchReleases(keys(), () -> LockSupport.unpark(waiting));
                    if (watch != null) {
                        continue; // a permit released before the watch began would go unheard: pass once more
                    }
                }
                sleep(
                        Math.min(
                                Math.min(pollNanos(watch), freesIn[0]),
                                deadline - engine.ticker().nanoTime()),
                        watch);
            }
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    /** The permits' lock keys, for the release watch. */
    private List<String> keys() {
        List<String> keys = new ArrayList<>(slots.size());
        for (QuorumLock slot : slots) {
            keys.add(slot.ref().key());
        }
        return keys;
    }

    /** The poll between passes: see the class's note on waiting. */
    private long pollNanos(ReleaseWatch watch) {
        return watch == null ? retryDelayNanos() : jittered(engine.waiterPollNanos(keys()));
    }

    /**
     * One pass over the permits from a random one, one round each: a lease, empty when the budget ran out, or null to
     * wait and pass again; then {@code freesIn[0]} is when, at the latest, the first holder's keys expire (ns).
     */
    private Optional<Lease> pass(Duration leaseTime, long deadline, long[] freesIn) throws InterruptedException {
        int start = ThreadLocalRandom.current().nextInt(permits);
        boolean anyDecided = false;
        AcquireResult last = null;
        freesIn[0] = Long.MAX_VALUE;
        for (int k = 0; k < permits; k++) {
            QuorumLock slot = slots.get((start + k) % permits);
            AcquireResult r = leaseTime == null ? slot.attempt(Duration.ZERO) : slot.attempt(Duration.ZERO, leaseTime);
            if (r.acquired()) {
                return r.lease();
            }
            last = r;
            if (r.reason() != FailureReason.NOT_ENOUGH_NODES) {
                anyDecided = true;
            }
            Optional<Duration> ttl = r.holderTtl();
            if (ttl.isPresent()) {
                freesIn[0] = Math.min(
                        freesIn[0], TimeUnit.MILLISECONDS.toNanos(ttl.get().toMillis() + 1));
            }
        }
        if (deadline - engine.ticker().nanoTime() <= 0) {
            if (!anyDecided) {
                throw new NotEnoughNodesException(last.lastRound());
            }
            return Optional.empty();
        }
        return null; // every permit is held
    }

    /**
     * Sleeps between passes until {@code nanos} passed or {@code watch} holds a release signal; closing the client
     * wakes it, and it then throws as a closed client's calls do.
     */
    private void sleep(long nanos, ReleaseWatch watch) throws InterruptedException {
        Thread waiting = Thread.currentThread();
        Runnable wake = () -> LockSupport.unpark(waiting);
        try {
            engine.onClose(wake);
            long wakeAt = System.nanoTime() + nanos;
            for (long left = nanos; left > 0; left = wakeAt - System.nanoTime()) {
                if (engine.isClosed()) {
                    throw closed();
                }
                if (watch != null && watch.signalled()) {
                    return;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while acquiring a permit of semaphore '" + name + "'");
                }
            }
        } finally {
            engine.removeCloseListener(wake);
        }
    }

    private static IllegalStateException closed() {
        return new IllegalStateException("the Redlock client is closed");
    }

    /** At most about 146 years, so that the deadline cannot overflow. */
    private static long saturatedNanos(Duration d) {
        return d.compareTo(Duration.ofNanos(Long.MAX_VALUE / 2)) > 0 ? Long.MAX_VALUE / 2 : d.toNanos();
    }

    @Override
    public String toString() {
        return "QuorumSemaphore{" + name + ", permits=" + permits + '}';
    }
}
