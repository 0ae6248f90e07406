/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Background;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.script.LockRef;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One acquisition: its rounds, the decision after each, and the wait before the next. There is one copy of this
 * logic for both ways of calling it; only what drives the time differs.
 *
 * <ul>
 *   <li><b>Asynchronous</b> ({@link #Acquisition(QuorumEngine, LockRef, long, long, boolean)}): the scheduler decides
 *       a round at its deadline and ends the sleep between rounds; the future completes on the async executor.
 *   <li><b>Joined</b> ({@link #join}): the caller's thread is the timer. It parks until the round in flight is due or
 *       the sleep ends, decides or starts rounds itself, and the result is handed to it directly: no timer task and no
 *       thread hand-off per round, which keeps the blocking calls as fast as a loop on the caller's thread.
 * </ul>
 *
 * <p>Rounds are decided wherever their last vote arrives (a node's I/O thread, usually). Cancelling the future stops
 * further rounds; a lease won after that is given back. Thread-safe.
 */
final class Acquisition implements Round.Listener {
    private final QuorumEngine engine;
    final LockRef ref;
    final long ttlMillis;
    final boolean autoExtend;
    final boolean forever;
    final long deadline;
    final CompletableFuture<AcquireResult> future = new CompletableFuture<>();
    /** Set just before this acquisition completes its own future; any other completion stops it. */
    final AtomicBoolean delivering = new AtomicBoolean();
    /** The thread that joins this acquisition and drives its time; null for an asynchronous one. */
    private final Thread joiner;

    volatile boolean stopped;
    int rounds;
    String token;
    /** Asynchronous: starts the next round after the delay between rounds. */
    volatile ScheduledFuture<?> sleep;
    /** Joined: the round in flight, which the joiner decides when due if its votes have not. */
    private volatile Round due;
    /** Joined: when the sleep between rounds ends ({@link System#nanoTime()}: real time, as the scheduler's). */
    private volatile long wakeAt;
    /** Whether the round in flight was started by a release signal (its turn was announced). */
    boolean woken;
    /**
     * How many of this acquisition's rounds, unprompted, were granted somewhere but refused by a quorum: split votes,
     * or, again and again, a holder whose acquire missed the nodes that grant them.
     */
    private int splits;
    /** While round 2 of a fenced acquisition runs: the won round, and the candidate token. */
    Attempt fencing;

    long candidate;
    /** Between rounds, with the next one not yet started: set by each sleep, cleared by whoever ends it. */
    private final AtomicBoolean asleep = new AtomicBoolean();
    /** In the key's wait queue once a round was refused by a holder; null before, or without notifications. */
    volatile WaitRoom.Waiter waiter;

    /** The name of the thread that asked: its lease's holder, as inspections show it. */
    private final String caller;

    /** An asynchronous acquisition. */
    Acquisition(QuorumEngine engine, LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend) {
        this(engine, ref, ttlMillis, waitNanos, autoExtend, null);
    }

    /** An acquisition joined by {@code joiner} (see {@link #join}), or an asynchronous one if null. */
    Acquisition(QuorumEngine engine, LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend, Thread joiner) {
        this.engine = engine;
        this.ref = ref;
        this.ttlMillis = ttlMillis;
        this.autoExtend = autoExtend;
        this.forever = waitNanos == QuorumEngine.FOREVER;
        this.deadline = engine.ticker.nanoTime() + (forever ? 0 : waitNanos);
        this.joiner = joiner;
        this.caller = Thread.currentThread().getName();
        // Cancelled, timed out (orTimeout) or completed by the caller: no further round, and a lease won by the
        // round in flight is given back when it decides.
        CompletableFuture<?> unused = future.whenComplete((r, e) -> {
            if (!delivering.get()) {
                stop();
            }
            WaitRoom.Waiter w = waiter;
            if (w != null) {
                engine.waitRoom.leave(w, r != null && r.acquired());
                engine.acquisitions.wakeNextReader(this.ref, r != null && r.acquired());
            }
            if (r == null || !r.acquired()) {
                engine.acquisitions.leaveQueue(this.ref);
            } else {
                engine.acquisitions.stopTracking(this.ref);
            }
        });
    }

    /**
     * Drives a joined acquisition on the calling thread (its joiner) until it ends, and returns its result. The
     * first round must have been started (or the first sleep begun) already.
     *
     * @param interruptible whether an interrupt ends the acquisition: the rounds stop, a lease won by the round in
     *     flight (or already won) is given back, and {@link InterruptedException} is thrown. If not, the interrupt
     *     status is kept for the caller.
     * @throws IllegalStateException if the client closed before the acquisition ended
     */
    AcquireResult join(boolean interruptible) throws InterruptedException {
        boolean interrupted = false;
        try {
            while (!future.isDone()) {
                if (Thread.interrupted()) {
                    if (interruptible) {
                        // Like ReentrantLock: answer the interrupt. The round in flight still decides, and gives back
                        // what it wins (stopped); a result delivered meanwhile is given back below.
                        interrupted = true;
                        break;
                    }
                    interrupted = true; // parking returns at once while the flag is set: keep it aside until the end
                }
                long park = Long.MAX_VALUE;
                // The blocker a thread dump shows: the round in flight, or this acquisition between rounds.
                Object blocker = this;
                Round r = due;
                if (r != null && !r.isDecided()) {
                    long left = r.dueNanos() - engine.ticker.nanoTime();
                    if (left <= 0) {
                        r.expire(); // decides it here: the listener (this) starts a sleep, a round, or delivers
                        continue;
                    }
                    park = left;
                    blocker = r;
                }
                if (asleep.get()) {
                    WaitRoom.Waiter w = waiter;
                    long left = wakeAt - System.nanoTime();
                    if (left <= 0 || engine.closed || (w != null && engine.waitRoom.signalled(w))) {
                        wake();
                        continue;
                    }
                    park = Math.min(park, left);
                    blocker = this;
                }
                if (future.isDone()) {
                    continue;
                }
                if (blocker == r) {
                    // A round in flight: a caller alone may read its replies itself rather than wait to be woken.
                    engine.parking.await(r, park, () -> future.isDone() || r.isDecided());
                } else {
                    engine.parking.idle(); // asleep until a release or a poll: no round of ours to read for a while
                    LockSupport.parkNanos(blocker, park);
                }
            }
            if (interruptible && Thread.interrupted()) {
                interrupted = true; // came as the result did: still answered, as if the round had not ended yet
            }
            if (interrupted && interruptible) {
                Round r = due;
                if (r != null && !r.isDecided() && !r.expireWhenDue(engine)) {
                    r.expire(); // the client is closing: decide it now
                }
                // The joiner leaves; the scheduler decides the round in flight when due, and its grants are released.
                if (!future.cancel(false)) {
                    AcquireResult won = future.getNow(null);
                    if (won != null && won.acquired()) {
                        Background.watch(
                                won.lease().get().releaseAsync(), "giving back a lease won by an interrupted round");
                    }
                }
                throw new InterruptedException("interrupted while acquiring lock '" + ref.name() + "'");
            }
            return result();
        } finally {
            if (interrupted && !interruptible) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The result of an ended joined acquisition; a failure to acquire is a result, only a closed client throws. */
    private AcquireResult result() {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException | CancellationException e) {
            throw new IllegalStateException("acquisition of lock '" + ref.name() + "' ended unexpectedly", e);
        }
    }

    /** Wakes the joiner (when another thread changed what it waits for); never leaves a permit on itself. */
    private void poke() {
        Thread j = joiner;
        if (j != null && j != Thread.currentThread()) {
            engine.parking.unpark(j);
        }
    }

    /**
     * A release was signalled while this acquisition sleeps between rounds: start the next round now. Only one of the
     * sleep's timer and the wake-ups gets to start it ({@link #wake}): cancelling the timer is not enough, since a
     * timer already running its task still reports the cancel as done.
     */
    void signalled() {
        if (!asleep.get()) {
            return; // in a round: the signal is taken when the round ends
        }
        if (joiner != null) {
            poke(); // the joiner sees the signal and starts the round on its own thread
            return;
        }
        ScheduledFuture<?> s = sleep;
        if (s != null) {
            s.cancel(false);
        }
        try {
            engine.scheduler.execute(this::wake);
        } catch (RejectedExecutionException e) {
            if (asleep.compareAndSet(true, false)) {
                engine.acquisitions.betweenRounds.remove(this);
                failClosed();
            }
        }
    }

    /** Takes {@code w} as this acquisition's place in its client's queue, told when it moves up to the pollers. */
    void joined(WaitRoom.Waiter w) {
        w.movedUp = this::movedUp;
        waiter = w;
    }

    /**
     * This acquisition's waiter moved up to the pollers while it slept parked: it sleeps no longer than a poll from
     * now. No round of its own now (a release's signal usually comes first); a timer left over from this sleep can
     * only start a later sleep's round early, which costs one round.
     */
    void movedUp() {
        WaitRoom.Waiter w = waiter;
        if (!asleep.get() || w == null) {
            return; // in a round: the delay after it is worked out afresh
        }
        long delay = engine.acquisitions.pollDelay(ref, w);
        if (joiner != null) {
            wakeAt = Math.min(wakeAt, System.nanoTime() + delay);
            poke();
            return;
        }
        try {
            engine.scheduler.schedule(this::wake, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // Closing: the client's close wakes every waiter.
        }
    }

    /** Ends the sleep between rounds and starts the next round, once per sleep whoever calls it first. */
    private void wake() {
        if (asleep.compareAndSet(true, false)) {
            startRound();
        }
    }

    void stop() {
        stopped = true;
        engine.acquisitions.betweenRounds.remove(this);
        // A round in flight still decides (and releases what it won); only the sleep before the next one ends.
        ScheduledFuture<?> s = sleep;
        if (s != null) {
            s.cancel(false);
        }
    }

    void startRound() {
        engine.acquisitions.betweenRounds.remove(this);
        if (stopped || future.isDone()) {
            return;
        }
        if (engine.closed) {
            failClosed();
            return;
        }
        WaitRoom.Waiter w = waiter;
        boolean signal = w != null && engine.waitRoom.consumeSignal(w);
        RoundOutcome last = w == null || !ref.handsOver() || forever || deadline - engine.ticker.nanoTime() > 0
                ? null
                : engine.waitRoom.behindOthers(w);
        if (!signal && last != null) {
            // A hand-over waiter (one place per client on the nodes, at its oldest waiter's order) whose wait ran out
            // with others of this client ahead of it and no signal: a last round could only be refused (or overtake
            // them), and thousands of waiters whose waits end together sent thousands at once,
            // which made every node's replies late for the rounds that could win. It ends with the outcome of this
            // client's last refused round for the lock.
            deliver(new AcquireResult(null, last, rounds));
            return;
        }
        rounds++;
        woken = signal;
        // 64 random bits, then the client's id: an inspection finds the holder's client entry through it.
        token = Tokens.half(engine.random) + engine.clientId;
        long t1 = engine.ticker.nanoTime();
        Round round = engine.acquireRound
                .start(ref, t1)
                .dueAt(t1 + engine.perNodeTimeoutNanos)
                .listener(this);
        if (!decideWhenDue(round)) {
            failClosed();
            return;
        }
        // A fair waiter's round takes the places of this client's newer waiters that are still to be carried.
        engine.acquireRound.submit(
                round, engine.acquisitions.carrying(ref, w), token, ttlMillis, t1 + engine.perNodeTimeoutNanos);
        if (endedWithoutLease()) {
            // Cancelled while this round was submitted: its place may have reached a node after the removal the
            // cancellation sent; remove it again (removing twice is harmless).
            engine.acquisitions.leaveQueue(ref);
        }
    }

    /**
     * Whether this acquisition ended without a lease (cancelled, timed out or failed). Not merely whether it ended:
     * the round just submitted may have won and been delivered already, and a holder keeps its place.
     */
    private boolean endedWithoutLease() {
        if (stopped) {
            return true;
        }
        if (!future.isDone()) {
            return false;
        }
        AcquireResult r = future.isCompletedExceptionally() ? null : future.join();
        return r == null || !r.acquired();
    }

    /**
     * Arranges for {@code round} to be decided when due if its votes have not decided it: by the joiner, or by a
     * scheduler task. False if the scheduler is shut down (the client closed).
     */
    private boolean decideWhenDue(Round round) {
        if (joiner != null) {
            due = round;
            poke();
            return true;
        }
        return round.expireWhenDue(engine);
    }

    @Override
    public void decided(Round round) {
        try {
            decide(round);
        } catch (RuntimeException | Error e) {
            // A fault while deciding (never expected: listeners are isolated by the engine) must not leave the caller
            // waiting forever for a result: it gets the fault, as a blocking call did when it decided on its own
            // thread.
            complete(() -> future.completeExceptionally(e));
            if (e instanceof VirtualMachineError) {
                throw e;
            }
        }
    }

    private void decide(Round round) {
        Attempt a;
        if (fencing != null) {
            a = engine.fenceRound.evaluate(fencing, round, candidate);
            fencing = null;
        } else {
            a = engine.acquireRound.evaluate(ref, round, token, ttlMillis);
            if (a.lease != null && ref.fenced() && !engine.closed && !stopped) {
                // Round 2: raise the fencing counters; this listener hears of it too.
                fencing = a;
                candidate = round.maxValueAtDecision() + 1;
                Round fence = engine.fenceRound.start(a.lease, candidate);
                fence.dueAt(engine.fenceRound.deadline(fence, a.lease)).listener(this);
                if (!decideWhenDue(fence)) {
                    fence.expire(); // the client closed: decide it now (not fenced), which gives the lease back
                }
                engine.fenceRound.submit(fence, a.lease, candidate);
                return;
            }
        }
        if (a.lease != null && (stopped || engine.closed)) {
            // Won after the caller gave up, or while the client closed: give it back at once, never watched.
            Background.watch(a.lease.releaseAsync(), "giving back a lease won after the caller gave up");
            if (engine.closed && !stopped) {
                failClosed();
            }
            return;
        }
        if (a.lease != null) {
            deliver(new AcquireResult(engine.acquisitions.started(a, autoExtend, caller).lease, a.outcome, rounds));
            return;
        }
        if (stopped) {
            return;
        }
        if (engine.closed) {
            failClosed();
            return;
        }
        engine.acquisitions.logFailure(a.outcome);
        long remaining = deadline - engine.ticker.nanoTime();
        if ((!forever && remaining <= 0) || future.isDone()) {
            deliver(new AcquireResult(null, a.outcome, rounds));
            return;
        }
        if (waiter == null && engine.waitRoom != null && a.outcome.reason() == FailureReason.BUSY) {
            joined(engine.acquisitions.joinRoom(ref, this::signalled));
            if (stopped || future.isDone()) {
                // Cancelled (or timed out) while joining: the completion hook may have run before the waiter was
                // set, so leave here too (leaving twice is harmless), or the key would keep a waiter forever.
                engine.waitRoom.leave(waiter, false);
                return;
            }
        }
        WaitRoom.Waiter w = waiter;
        if (w != null && a.outcome.reason() == FailureReason.BUSY) {
            engine.waitRoom.refused(w, a.outcome); // held by another: what a waiter behind this one may report
        }
        int splitsBefore = splits;
        if (!woken && a.outcome.granted() > 0 && a.outcome.taken() >= a.outcome.required()) {
            splits++;
        }
        sleepThenRound(
                w != null && engine.waitRoom.signalled(w)
                        ? 0
                        : engine.acquisitions.delayAfter(
                                ref, a.outcome, w, rounds, forever, remaining, woken, splitsBefore));
    }

    /** Starts the next round after {@code delay}, or as soon as a release is signalled. */
    void sleepThenRound(long delay) {
        WaitRoom.Waiter fair = ref.kind() == LockRef.Kind.FAIR ? waiter : null;
        if (fair != null) {
            engine.waitRoom.betweenRounds(fair); // newer waiters of this client may stand behind its place again
        }
        engine.acquisitions.betweenRounds.add(this);
        if (stopped || future.isDone()) {
            // Cancelled (an interrupted joiner left) while its round was decided: stop() ran before the add above.
            engine.acquisitions.betweenRounds.remove(this);
            return;
        }
        if (engine.closed) {
            engine.acquisitions.betweenRounds.remove(this);
            failClosed();
            return;
        }
        if (joiner != null) {
            // The whole delay, even if the joiner wakes early: the jitter keeps competing clients apart only if it
            // is honoured. A signalled release or a closing client cuts it short (see join).
            wakeAt = System.nanoTime() + delay;
            asleep.set(true);
            poke();
            return;
        }
        asleep.set(true);
        try {
            sleep = engine.scheduler.schedule(this::wake, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            asleep.set(false);
            engine.acquisitions.betweenRounds.remove(this);
            failClosed();
            return;
        }
        WaitRoom.Waiter w = waiter;
        if (w != null && engine.waitRoom.signalled(w)) {
            signalled(); // signalled before the sleep was in place: do not sleep through it
        }
    }

    void failClosed() {
        complete(() -> future.completeExceptionally(QuorumEngine.closedException()));
    }

    void deliver(AcquireResult result) {
        complete(() -> {
            WaitRoom.Waiter w = waiter;
            if (w != null && result.acquired()) {
                // Out of the wait room before the caller has the lease (the completion hook leaves too, idempotently,
                // but may run after the caller's own dependents): a caller that releases at once releases as a client
                // with no waiter for the key, which keeps the key's subscriptions for its next acquisition and, in a
                // hand-over queue, moves no place to the waiter that just got in.
                engine.waitRoom.leave(w, true);
            }
            if (!future.complete(result) && result.acquired()) {
                // The caller cancelled while the winning round was in flight: give the lock back.
                Background.watch(result.lease().get().releaseAsync(), "giving back a lease won too late");
            }
        });
    }

    /**
     * Completes the future: on the async executor for an asynchronous acquisition (its callers' callbacks must not
     * run on a node's I/O thread), here for a joined one (no callback but the joiner's, which only wakes it).
     */
    private void complete(Runnable completion) {
        Runnable task = () -> {
            delivering.set(true);
            completion.run();
            poke();
        };
        if (joiner != null) {
            task.run();
        } else {
            engine.asyncExecutor.execute(task);
        }
    }
}
