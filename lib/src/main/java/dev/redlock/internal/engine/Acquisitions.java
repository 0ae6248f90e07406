/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.LockKind;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.script.LockRef;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Acquisitions: starts each {@link Acquisition} (the rounds of one acquisition, retried after a random delay while
 * the wait budget lasts), blocking or not, in this client's wait queue for the key when others wait; and what they
 * share: the delays between rounds, fair places, leaving the nodes' queues, failure logging. Thread-safe.
 */
final class Acquisitions extends EnginePart {

    /** Acquisitions sleeping between rounds; failed by {@link #failSleeping()} so none waits forever. */
    final java.util.Set<Acquisition> betweenRounds = java.util.concurrent.ConcurrentHashMap.newKeySet();

    Acquisitions(QuorumEngine engine) {
        super(engine);
    }

    /**
     * Acquires on the caller's thread: the same acquisition as {@link #acquireAsync}, joined by the caller, which
     * drives its timing itself (see {@link Acquisition#join}). Returns a failed result when the budget runs out;
     * never throws for node failures.
     *
     * @param waitNanos the wait budget; 0 for one round, {@link QuorumEngine#FOREVER} to wait until acquired
     * @param interruptible whether an interrupt aborts the wait; if not, the interrupt status is kept
     * @param autoExtend whether the watchdog keeps the lease until it is released
     * @throws InterruptedException if interruptible and the thread was interrupted before or during the acquisition
     *     (a lease the acquisition won meanwhile is given back)
     */
    public AcquireResult acquire(
            LockRef lock, long ttlMillis, long waitNanos, boolean interruptible, boolean autoExtend)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("interrupted while acquiring lock '" + lock.name() + "'");
        }
        engine.ensureOpen();
        long t0 = ticker.nanoTime();
        Acquisition a = start(lock, ttlMillis, waitNanos, autoExtend, Thread.currentThread());
        AcquireResult result = a.join(interruptible);
        acquisitionEnded(lock, result, t0);
        return result;
    }

    /** The first back-off window after a writer's split vote; it doubles with each round (see delayAfter). */
    private static final long SPLIT_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** How often a parked waiter polls all the same (see {@link WaitRoom#park}). */
    private static final long PARKED_POLL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Waiters behind others of this client poll later by their place, up to this many retry delays. */
    private static final int MAX_QUEUED_DELAYS = 10;

    /**
     * A queued waiter's poll: the retry delay for the oldest, one more for each waiter ahead, up to
     * {@link #MAX_QUEUED_DELAYS}. A release wakes the oldest first, so the others polling often would only overtake
     * it (and cost commands); they still poll, in case no release is ever signalled.
     */
    long queuedDelay(WaitRoom.Waiter waiter, int rounds) {
        long delay = nextDelayNanos(rounds);
        return waiter == null ? delay : delay * (1 + Math.min(waitRoom.position(waiter), MAX_QUEUED_DELAYS - 1));
    }

    /**
     * How long to sleep after a failed round: the (queued) retry delay with its jitter, but never past the wait
     * budget, nor past the moment the refusing holders' keys expire (reported with the refusal): a holder that
     * crashed frees the lock then, and the waiter is there.
     */
    long delayAfter(
            LockRef ref,
            RoundOutcome failed,
            WaitRoom.Waiter waiter,
            int rounds,
            boolean forever,
            long remaining,
            boolean woken,
            int splitsBefore) {
        if (ref.kind() == LockRef.Kind.WRITE && failed.granted() > 0) {
            // A split vote: what this round won is given back silently (see release.lua), so nobody is told that the
            // lock may be free. Come back soon, at a random point of a window that doubles with each round (up to the
            // retry delay): racers of several clients spread out, and the first one back takes every node.
            long window = Math.min(
                    TimeUnit.MILLISECONDS.toNanos(
                            Math.max(1, config.retryDelay().toMillis())),
                    SPLIT_BACKOFF_NANOS << Math.min(Math.max(rounds - 1, 0), 20));
            long delay = (long) (random.nextDouble() * window);
            return forever ? delay : Math.min(delay, remaining);
        }
        if (waiter != null && parks(ref) && waitRoom.park(waiter)) {
            // Behind the pollers: wait for a signal or to move up (the wait room wakes it), with a rare poll as a
            // backstop. The holder's TTL does not cut it short: the pollers ahead are there when the holder's key ends.
            return Math.min(PARKED_POLL_NANOS, forever ? Long.MAX_VALUE : remaining);
        }
        // Refused by a quorum with nothing granted, unprompted: wait to be named. A round that was granted somewhere,
        // met failures, or was started because a release named this waiter (it was its turn, but a node did not see
        // it so yet) retries at the usual delay.
        boolean byQuorum = !woken && failed.taken() >= failed.required();
        boolean queued = waiter != null && (ref.handsOver() || ref.kind() == LockRef.Kind.FAIR || ref.lined());
        long delay = queued && byQuorum && failed.granted() == 0
                ? delayAfterJoining(ref, waiter)
                : queuedDelay(waiter, rounds);
        if (queued && byQuorum && failed.granted() > 0 && splitsBefore > 0) {
            // Granted somewhere but refused by a quorum once more: a split vote the first time, but every time for
            // a waiter whose holder's acquire missed a node or two (they grant each of its rounds, for as long as the
            // holder keeps the lock). Back off eightfold with each such round, up to the poll of a waiter that waits
            // to be named: a split still retries soon, the other case soon polls as any waiter for a held lock.
            delay = Math.min(delayAfterJoining(ref, waiter), delay << Math.min(3 * splitsBefore, 24));
        }
        if (ref.queues()) {
            // A queued waiter's place lasts a window past each attempt: it comes back well within it.
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(ref.placeMillis()) / 3);
        }
        java.util.Optional<java.time.Duration> holder = failed.holderTtl();
        if (holder.isPresent()) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(holder.get().toMillis() + 1));
        }
        return forever ? delay : Math.min(delay, remaining);
    }

    /** A place at the back of a queue: now on the client's wall clock, in microseconds, distinct within the client. */
    long placeNow() {
        java.time.Instant now = config.wallClock().instant();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        return lastOrder.accumulateAndGet(micros, (last, t) -> Math.max(last + 1, t));
    }

    /**
     * A poll of a waiter in a plain lock's hand-over queue or a fair lock's queue: a third of the place's window if
     * this client hears the key's releases from a quorum (the release that hands the lock over names the client, or
     * the fair waiter, so a poll only keeps the place and catches a message lost with a subscriber connection; polling
     * more often would only cost rounds the nodes refuse), else as a queued waiter polls.
     */
    long delayAfterJoining(LockRef ref, WaitRoom.Waiter waiter) {
        if (waitRoom.deaf(ref.key(), ref.policy().required(placement.perLock()))) {
            return queuedDelay(waiter, 1);
        }
        return Tokens.jittered(
                random,
                TimeUnit.MILLISECONDS.toNanos(ref.placeMillis()) / 3,
                Math.min(config.retryJitter(), 0.999) / 3);
    }

    /** The last fair-lock place this client handed out, in microseconds: places are distinct within a client. */
    private final java.util.concurrent.atomic.AtomicLong lastOrder = new java.util.concurrent.atomic.AtomicLong();

    /**
     * The lock for one acquisition: a fair lock's waiter (or a writer's) gets the id it keeps through all its rounds,
     * and a fair one its place, read from the wall clock once (so a retry never loses it).
     */
    LockRef begin(LockRef ref, long waitNanos) {
        if (ref.handsOver() && (waitNanos == 0 || waitRoom == null)) {
            return ref.begin("-", 0); // a single attempt takes no place in the hand-over queue
        }
        if (ref.kind() != LockRef.Kind.FAIR && ref.kind() != LockRef.Kind.WRITE && !ref.handsOver()) {
            return ref;
        }
        // A fair waiter has a place of its own; in a hand-over queue, the place is the client's. A writer's single
        // attempt takes no place in the writers' line (order 0): nobody would wake it.
        boolean placeless = ref.lined() && (waitNanos == 0 || waitRoom == null);
        LockRef begun =
                ref.begin(ref.handsOver() ? waitRoom.clientId : Tokens.next(random), placeless ? 0 : placeNow());
        if (begun.queues()) {
            queued.add(begun);
        }
        return begun;
    }

    /** Acquisitions of queued kinds in progress: closing the client takes their places out of the nodes' queues. */
    private final java.util.Set<LockRef> queued = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** An acquisition of a queued kind ended with a lease: the lease's release removes its place. */
    void stopTracking(LockRef ref) {
        if (ref.queues()) {
            queued.remove(ref);
        }
    }

    /**
     * A reader that waited got in: readers share, so every other reader waiting in this client may get in too, now
     * rather than at its next poll (a release wakes one waiter at a time, which may be a writer).
     */
    void wakeNextReader(LockRef ref, boolean won) {
        if (won && ref.kind() == LockRef.Kind.READ) {
            waitRoom.wakeReaders(ref.key());
        }
    }

    /**
     * An acquisition of a queued kind gave up (or failed): its place leaves every node's queue now, so the waiters
     * behind it need not wait for the place to expire. Fire-and-forget: a place not removed expires by itself.
     */
    void leaveQueue(LockRef ref) {
        if (!ref.queues()) {
            return;
        }
        queued.remove(ref);
        if (ref.handsOver()) {
            leaveHandOver(ref);
            return;
        }
        sendLeave(carrying(ref, null));
        if (waitRoom != null) {
            // Waiters of this client that its place (or a writer's entry) held back may get in now. After the leave
            // was queued: each node's connection then runs it before the round this wakes.
            waitRoom.releasedHere(ref.key(), null);
        }
    }

    /**
     * The keys whose hand-over place a leave is moving now: true when another acquisition left since that leave was
     * sent (one more goes when it is answered), false when none did.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Boolean> handOverLeaves =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * An acquisition in a hand-over queue gave up: the client's place moves to its next waiter's, or leaves with its
     * last one, and the nodes tell the waiters. One such leave per key is in flight at a time, and the next one, sent
     * when it is answered, says where the place is then: thousands of threads giving up at one deadline sent a leave
     * each to every node, a burst that made the nodes' replies late for everyone.
     */
    private void leaveHandOver(LockRef ref) {
        boolean[] send = new boolean[1];
        handOverLeaves.compute(ref.key(), (k, again) -> {
            send[0] = again == null;
            return !send[0];
        });
        if (send[0]) {
            sendHandOverLeave(ref);
        }
    }

    private void sendHandOverLeave(LockRef ref) {
        Round round;
        try {
            round = sendLeave(ref.handingOver(waitRoom.nextPlace(ref.key(), null)));
        } catch (RuntimeException e) {
            handOverLeaves.remove(ref.key()); // the next acquisition that leaves sends one again
            throw e;
        }
        // A node that never answers (a user's transport whose call hangs) holds the next leave up for two per-node
        // timeouts at most.
        CompletableFuture<?> unused = round.allAnswered()
                .completeOnTimeout(round, 2 * perNodeTimeoutNanos, TimeUnit.NANOSECONDS)
                .whenComplete((r, e) -> {
                    boolean[] again = new boolean[1];
                    handOverLeaves.compute(ref.key(), (k, more) -> {
                        again[0] = Boolean.TRUE.equals(more);
                        return again[0] ? false : null;
                    });
                    if (again[0]) {
                        // Others left meanwhile: one more leave, from where this client's waiters are now.
                        sendHandOverLeave(ref);
                    }
                });
    }

    /**
     * {@code ref} for a message of this client's that is about to go to the nodes (a fair waiter's round, its
     * lease's release or its leave), carrying the places of the client's fair waiters that are still to be carried
     * (see {@link WaitRoom#joinFair}); {@code self} is the waiter whose round it is, if it is one. Other kinds are
     * returned unchanged.
     */
    LockRef carrying(LockRef ref, WaitRoom.Waiter self) {
        if (ref.kind() != LockRef.Kind.FAIR || waitRoom == null) {
            return ref;
        }
        List<WaitRoom.Waiter> newer = waitRoom.takeUncarried(ref.key(), self);
        if (newer.isEmpty()) {
            return ref;
        }
        List<String> words = new ArrayList<>(2 * newer.size());
        for (WaitRoom.Waiter w : newer) {
            words.add(Long.toString(WaitRoom.placeOf(w)));
            words.add(WaitRoom.idOf(w));
        }
        return ref.carrying(words);
    }

    /** Sends {@code shape}'s leaving release, with no lease token: only the place goes (or moves). Fire-and-forget. */
    Round sendLeave(LockRef shape) {
        long now = ticker.nanoTime();
        Placement.Nodes at = placement.of(shape.key());
        Round round = new Round(NodeOp.Kind.RELEASE, at, at.size(), now, ticker);
        // No lease token: the key holds a round's token, never this one. A client leaving a hand-over queue (which it
        // may do often) sends a fresh one, which its message carries, so that each of its leaves is news.
        String token = shape.handsOver() ? Tokens.next(random) : "-";
        engine.fanOut(
                round,
                i -> round.op(i, shape.key(), token, 1, now + perNodeTimeoutNanos)
                        .shaped(shape, true));
        return round;
    }

    void acquisitionEnded(LockRef ref, AcquireResult result, long t0) {
        if (!engine.listeners.isEmpty()) {
            LockKind kind = ref.lockKind();
            java.time.Duration elapsed = java.time.Duration.ofNanos(ticker.nanoTime() - t0);
            engine.tell(l -> l.acquisitionEnded(kind, result, elapsed));
        }
    }

    void logFailure(RoundOutcome outcome) {
        FailureReason reason = outcome.reason();
        if (reason != FailureReason.NOT_ENOUGH_NODES && reason != FailureReason.VALIDITY_EXHAUSTED) {
            if (LOG.isTraceEnabled()) {
                LOG.trace("round for lock '{}' failed: {}", outcome.lockName(), outcome);
            }
            return;
        }
        // Warn at most once a second for the whole client: a caller retrying in a loop must not flood the log.
        long now = System.nanoTime();
        long last = lastWarn.get();
        if (now - last <= TimeUnit.SECONDS.toNanos(1) || !lastWarn.compareAndSet(last, now)) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("round for lock '{}' failed: {}", outcome.lockName(), outcome);
            }
        } else if (reason == FailureReason.VALIDITY_EXHAUSTED) {
            // A quorum granted but the round was too slow for the TTL: not contention, and worth knowing.
            LOG.warn(
                    "lock '{}': a quorum granted but the round took {} us, leaving validity {} ms; released",
                    outcome.lockName(),
                    outcome.elapsed().toNanos() / 1_000,
                    outcome.validity().toMillis());
        } else {
            LOG.warn(
                    "lock '{}': not enough nodes reachable ({} of {} unavailable, {} required): {}",
                    outcome.lockName(),
                    outcome.unavailable(),
                    outcome.nodes().size(),
                    outcome.required(),
                    outcome.nodes());
        }
    }

    /** The delay before acquire round {@code attempt + 1}: the retry delay, spread by the jitter factor. */
    long nextDelayNanos(int attempt) {
        return Tokens.jittered(
                engine.random,
                TimeUnit.MILLISECONDS.toNanos(config.retryDelay().toMillis()),
                Math.min(config.retryJitter(), 0.999));
    }

    /**
     * Acquires without blocking the caller. Rounds are driven by node I/O threads and the scheduler; the future
     * completes on the async executor. Cancelling the future stops further rounds, and a lease won after
     * cancellation is released.
     */
    public CompletableFuture<AcquireResult> acquireAsync(
            LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend) {
        engine.parking.idle(); // this thread will not read the replies, even if it read its last round's
        Acquisition a = start(ref, ttlMillis, waitNanos, autoExtend, null);
        if (!engine.listeners.isEmpty()) {
            long t0 = ticker.nanoTime();
            CompletableFuture<?> unused = a.future.thenAccept(result -> acquisitionEnded(ref, result, t0));
        }
        return a.future;
    }

    /**
     * Begins an acquisition, joined by {@code joiner} or asynchronous (null): in this client's queue for the key
     * first if it queues on the nodes (in the order acquisitions began) or others of this client wait already that
     * would hold it back (see {@link #queuesBehindOthers}), then its first round (at once, or after the queued waiter's
     * poll).
     */
    private Acquisition start(LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend, Thread joiner) {
        engine.quarantine.observeTtl(ttlMillis);
        Acquisition a = new Acquisition(engine, begin(ref, waitNanos), ttlMillis, waitNanos, autoExtend, joiner);
        WaitRoom.Waiter adopted = a.ref.handsOver() && waitNanos > 0
                ? waitRoom.adopt(ref.key(), a::signalled, a.ref.shape().order())
                : null;
        if (adopted != null) {
            // The client has its place in the nodes' hand-over queue: wait here, with no round of its own until a
            // release names the client.
            a.joined(adopted);
            a.sleepThenRound(firstSleep(a, delayAfterJoining(a.ref, adopted)));
        } else if (a.ref.handsOver()) {
            a.startRound(); // a place is taken only if refused
        } else if (waitRoom != null && waitNanos > 0 && a.ref.kind() == LockRef.Kind.FAIR) {
            // A fair waiter behind an older one of this client that stands in the nodes' queue runs no round to
            // queue: the client's next message for the lock takes its place (see WaitRoom#joinFair), and it waits to
            // be named. Otherwise it takes its place with its first round, at once.
            a.joined(waitRoom.joinFair(
                    ref.key(),
                    a::signalled,
                    a.ref.shape().order(),
                    a.ref.shape().waiter(),
                    true));
            if (waitRoom.deferred(a.waiter)) {
                // Once carried, its place lasts a window from the carrying message: it polls within a third of it.
                long third = TimeUnit.MILLISECONDS.toNanos(a.ref.placeMillis()) / 3;
                a.sleepThenRound(firstSleep(a, Math.min(third, delayAfterJoining(a.ref, a.waiter))));
            } else {
                a.startRound();
            }
        } else if (waitRoom != null && waitNanos > 0 && a.ref.queues()) {
            // A fair waiter (or a writer: a preferred writer's entry, a place in the writers' line) takes its place on
            // the nodes with its first round at once, and in this client's queue now: both in the order acquisitions
            // began, so a release wakes the head. A writer that keeps no reader out, behind others of its client,
            // waits for them first: this client's releases wake its waiters in turn, and a round of its own now
            // would only be refused (its place in the line comes with its first round).
            boolean behind = letsReadersPass(a.ref) && queuesBehindOthers(a.ref);
            a.joined(waitRoom.joinAsyncAt(
                    ref.key(),
                    a::signalled,
                    a.ref.shape().order(),
                    a.ref.shape().waiter(),
                    letsReadersPass(a.ref)));
            if (behind) {
                a.sleepThenRound(firstSleep(a, queuedDelay(a.waiter, 1)));
            } else {
                a.startRound();
            }
        } else if (waitRoom != null && waitNanos > 0 && queuesBehindOthers(a.ref)) {
            // Others of this client already wait for this lock: queue behind them rather than overtake them.
            a.joined(joinRoom(a.ref, a::signalled));
            a.sleepThenRound(firstSleep(a, queuedDelay(a.waiter, 1)));
        } else {
            a.startRound();
        }
        return a;
    }

    /**
     * Whether a new acquisition waits behind others of this client before its first round. A reader does not wait
     * behind writers that keep no reader out (a reader is admitted whenever no writer holds the lock), and the write
     * lease holder's own reader (a downgrade) waits behind no one: its writer lets it in, whoever waits.
     */
    private boolean queuesBehindOthers(LockRef ref) {
        if (ref.kind() != LockRef.Kind.READ) {
            return waitRoom.hasWaiters(ref.key());
        }
        return ref.shape().writerToken().equals("-") && waitRoom.holdsBackReaders(ref.key());
    }

    /**
     * The sleep before the first round of an acquisition that joined this client's queue without one: {@code delay},
     * or parked if it is behind the pollers (see {@link WaitRoom#park}), never past its wait budget.
     */
    private long firstSleep(Acquisition a, long delay) {
        if (parks(a.ref) && waitRoom.park(a.waiter)) {
            delay = PARKED_POLL_NANOS;
        }
        return Math.min(delay, a.forever ? Long.MAX_VALUE : Math.max(0, a.deadline - ticker.nanoTime()));
    }

    /**
     * Whether a waiter for {@code ref} may be parked: one that keeps no place of its own on the nodes (a fair waiter
     * and a preferred writer must come back within their place's window; a plain lock's hand-over place is the
     * client's, kept by its oldest waiter).
     */
    private static boolean parks(LockRef ref) {
        return ref.kind() != LockRef.Kind.FAIR && ref.kind() != LockRef.Kind.WRITE;
    }

    /** How soon a waiter that moved up to the pollers polls: as a queued waiter (or one in the hand-over queue). */
    long pollDelay(LockRef ref, WaitRoom.Waiter waiter) {
        return ref.handsOver() ? delayAfterJoining(ref, waiter) : queuedDelay(waiter, 1);
    }

    /** Joins the key's wait room as {@code ref}'s acquisition: a reader, a writer that lets readers pass, or other. */
    WaitRoom.Waiter joinRoom(LockRef ref, Runnable wake) {
        if (ref.handsOver()) {
            // Refused: the client has its place in the nodes' queue now, at this acquisition's order at most.
            return waitRoom.joinAsyncAt(ref.key(), wake, ref.shape().order(), null);
        }
        return waitRoom.joinAsync(ref.key(), wake, ref.kind() == LockRef.Kind.READ, letsReadersPass(ref));
    }

    /** Whether {@code ref} is a writer without writer preference: it keeps no new reader out. */
    private static boolean letsReadersPass(LockRef ref) {
        return ref.kind() == LockRef.Kind.WRITE && ref.shape().windowMillis() == 0;
    }

    private final java.util.concurrent.atomic.AtomicLong lastWarn =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(2));

    /** Hands out a won lease: the watchdog takes over auto-extended ones. */
    Attempt started(Attempt a, boolean autoExtend, String thread) {
        if (a.lease != null) {
            engine.leases.started(a.lease, autoExtend, thread);
        }
        return a;
    }

    /** The client closes: a fair waiter or a preferred writer must not hold the others up until its place expires. */
    void leaveQueues() {
        for (LockRef ref : queued.toArray(new LockRef[0])) {
            leaveQueue(ref);
        }
    }

    /** The client closes: acquisitions sleeping between rounds fail now rather than never. */
    void failSleeping() {
        for (Acquisition a : betweenRounds.toArray(new Acquisition[0])) {
            betweenRounds.remove(a);
            a.failClosed();
        }
    }
}
