package dev.redlock.internal;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One asynchronous acquisition: its rounds are started by the scheduler and decided on node I/O threads, and its
 * future completes on the async executor. Cancelling the future stops further rounds; a lease won after that is given
 * back. Thread-safe.
 */
final class AsyncAcquisition implements Round.Listener {
    private final QuorumEngine engine;
    final LockRef ref;
    final long ttlMillis;
    final boolean autoExtend;
    final boolean forever;
    final long deadline;
    final CompletableFuture<AcquireResult> future = new CompletableFuture<>();
    /** Set just before this acquisition completes its own future; any other completion stops it. */
    final java.util.concurrent.atomic.AtomicBoolean delivering = new java.util.concurrent.atomic.AtomicBoolean();

    volatile boolean stopped;
    int rounds;
    String token;
    /** Decides the round in flight at its deadline. */
    volatile ScheduledFuture<?> timer;
    /** Starts the next round after the delay between rounds. */
    volatile ScheduledFuture<?> sleep;
    /** While round 2 of a fenced acquisition runs: the won round, and the candidate token. */
    Attempt fencing;

    long candidate;
    /** Between rounds, with the next one not yet started: set by each sleep, cleared by whoever ends it. */
    private final java.util.concurrent.atomic.AtomicBoolean asleep = new java.util.concurrent.atomic.AtomicBoolean();
    /** In the key's wait queue once a round was refused by a holder; null before, or without notifications. */
    volatile WaitRoom.Waiter waiter;

    AsyncAcquisition(QuorumEngine engine, LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend) {
        this.engine = engine;
        this.ref = ref;
        this.ttlMillis = ttlMillis;
        this.autoExtend = autoExtend;
        this.forever = waitNanos == QuorumEngine.FOREVER;
        this.deadline = engine.ticker.nanoTime() + (forever ? 0 : waitNanos);
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
     * A release was signalled while this acquisition sleeps between rounds: start the next round now. Only one of the
     * sleep's timer and the wake-ups gets to start it ({@link #wake}): cancelling the timer is not enough, since a
     * timer already running its task still reports the cancel as done.
     */
    void signalled() {
        if (!asleep.get()) {
            return; // in a round: the signal is taken when the round ends
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
        rounds++;
        WaitRoom.Waiter w = waiter;
        if (w != null) {
            engine.waitRoom.consumeSignal(w);
        }
        token = Tokens.next(engine.random);
        long t1 = engine.ticker.nanoTime();
        Round round = engine.acquireRound.start(ref, t1).listener(this);
        try {
            timer = engine.scheduler.schedule(round::expire, engine.perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            failClosed();
            return;
        }
        engine.acquireRound.submit(round, ref, token, ttlMillis, t1 + engine.perNodeTimeoutNanos);
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

    @Override
    public void decided(Round round) {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
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
                Round fence = engine.fenceRound.start(a.lease, candidate).listener(this);
                timer = engine.schedule(
                        fence::expire, engine.fenceRound.deadline(fence, a.lease) - engine.ticker.nanoTime());
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
            deliver(new AcquireResult(engine.acquisitions.started(a, autoExtend).lease, a.outcome, rounds));
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
            waiter = engine.waitRoom.joinAsync(ref.key(), this::signalled, ref.kind() == LockRef.Kind.READ);
            if (stopped || future.isDone()) {
                // Cancelled (or timed out) while joining: the completion hook may have run before the waiter was
                // set, so leave here too (leaving twice is harmless), or the key would keep a waiter forever.
                engine.waitRoom.leave(waiter, false);
                return;
            }
        }
        WaitRoom.Waiter w = waiter;
        sleepThenRound(
                w != null && engine.waitRoom.signalled(w)
                        ? 0
                        : engine.acquisitions.delayAfter(ref, a.outcome, w, rounds, forever, remaining));
    }

    /** Starts the next round after {@code delay}, or as soon as a release is signalled. */
    void sleepThenRound(long delay) {
        engine.acquisitions.betweenRounds.add(this);
        if (engine.closed) {
            engine.acquisitions.betweenRounds.remove(this);
            failClosed();
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
        engine.asyncExecutor.execute(() -> {
            delivering.set(true);
            future.completeExceptionally(QuorumEngine.closedException());
        });
    }

    void deliver(AcquireResult result) {
        engine.asyncExecutor.execute(() -> {
            delivering.set(true);
            if (!future.complete(result) && result.acquired()) {
                // The caller cancelled while the winning round was in flight: give the lock back.
                Background.watch(result.lease().get().releaseAsync(), "giving back a lease won too late");
            }
        });
    }
}
