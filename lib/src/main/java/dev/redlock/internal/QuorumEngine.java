package dev.redlock.internal;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.LockKind;
import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import dev.redlock.ReleaseResult;
import dev.redlock.RoundOutcome;
import dev.redlock.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum engine: acquire and release rounds over N nodes, the retry loop, and validity.
 *
 * <p>One acquire round: read {@code t1}, send {@code SET key token NX PX ttl} to every node in parallel, count votes
 * until the outcome is known or the per-node timeout passes, then {@code validity = ttl - elapsed - drift}. Success
 * needs a quorum of grants and validity above the minimum; the lease is valid until {@code t1 + validity}. A failed
 * round is released on every node, including those that timed out: a SET whose reply was lost may have been applied.
 *
 * <p>Thread-safe. Synchronous calls run their rounds on the caller's thread; asynchronous calls are driven by node
 * I/O threads and the client's scheduler.
 */
public final class QuorumEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumEngine.class);
    /** Wait budget meaning "until acquired" ({@link java.util.concurrent.locks.Lock#lock()}). */
    public static final long FOREVER = Long.MAX_VALUE;

    private final RedlockConfig config;
    private final List<? extends NodeClient> nodes;
    private final List<String> names;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final Executor asyncExecutor;
    /** Tokens and jitter: a {@link java.security.SecureRandom} unless a simulation gives a seeded source. */
    private final RandomGenerator random;
    private final long perNodeTimeoutNanos;
    private final long minValidityNanos;
    private final Watchdog watchdog;
    private final Quarantine quarantine;
    private final FencingRepair repair;
    private final java.util.concurrent.atomic.AtomicLong lastWarn =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - TimeUnit.SECONDS.toNanos(2));
    /** Asynchronous acquisitions sleeping between rounds; failed by {@link #close()} so none waits forever. */
    private final java.util.Set<AsyncAcquisition> betweenRounds = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Acquisitions waiting for a lock, woken by releases; null when release notifications are off. */
    private final WaitRoom waitRoom;
    /** Where the waited-for keys are subscribed; set once by {@link #listen}. */
    private volatile WaitRoom.Subscriptions subscriptions = WaitRoom.Subscriptions.NONE;
    private volatile boolean closed;

    public QuorumEngine(RedlockConfig config, List<? extends NodeClient> nodes, ScheduledExecutorService scheduler) {
        this(config, nodes, scheduler, new Quarantine(config));
    }

    public QuorumEngine(RedlockConfig config, List<? extends NodeClient> nodes, ScheduledExecutorService scheduler,
            Quarantine quarantine) {
        this(config, nodes, scheduler, quarantine, "redlock-");
    }

    /** @param threadPrefix the name prefix of the threads this engine starts (the fencing counter repair) */
    public QuorumEngine(RedlockConfig config, List<? extends NodeClient> nodes, ScheduledExecutorService scheduler,
            Quarantine quarantine, String threadPrefix) {
        this(config, nodes, scheduler, quarantine, Tokens.SECURE,
                new FencingRepair(config, quarantine, threadPrefix + "repair"));
    }

    /**
     * The engine with its random source and fencing repair given: a deterministic simulation passes a seeded source
     * (tokens, retry jitter) and a repair that reaches its simulated nodes, so that one seed replays exactly.
     */
    QuorumEngine(RedlockConfig config, List<? extends NodeClient> nodes, ScheduledExecutorService scheduler,
            Quarantine quarantine, RandomGenerator random, FencingRepair repair) {
        this.quarantine = quarantine;
        this.random = random;
        this.repair = repair;
        this.config = config;
        this.nodes = List.copyOf(nodes);
        List<String> n = new ArrayList<>(nodes.size());
        for (NodeClient node : nodes) {
            n.add(node.name());
        }
        this.names = List.copyOf(n);
        this.ticker = config.ticker();
        this.listeners = config.listeners();
        this.scheduler = scheduler;
        Executor user = config.asyncExecutor();
        // If the user's executor rejects a task, run it inline rather than leave a future incomplete forever.
        this.asyncExecutor = task -> {
            try {
                user.execute(task);
            } catch (RejectedExecutionException e) {
                task.run();
            }
        };
        this.perNodeTimeoutNanos = config.perNodeTimeout().toNanos();
        this.minValidityNanos = config.minValidity().toNanos();
        this.watchdog = new Watchdog(this);
        this.waitRoom = config.releaseNotifications() ? new WaitRoom(new WaitRoom.Subscriptions() {
            @Override
            public void subscribe(String key) {
                subscriptions.subscribe(key);
            }

            @Override
            public void unsubscribe(String key) {
                subscriptions.unsubscribe(key);
            }
        }) : null;
    }

    /**
     * Wakes waiters on the nodes' release notifications as well as on this client's own releases (when release
     * notifications are on). Call once, before the first acquisition.
     */
    public void listen(NodeClients clients) {
        if (waitRoom != null) {
            subscriptions = clients.listen(waitRoom::released);
        }
    }

    /** How many lock keys have waiters now (0 once every acquisition has ended). */
    int waitingKeys() {
        return waitRoom == null ? 0 : waitRoom.keys();
    }

    public RedlockConfig config() {
        return config;
    }

    public Ticker ticker() {
        return ticker;
    }

    public List<String> nodeNames() {
        return names;
    }

    // ------------------------------------------------------------------------------------------------ acquire

    /** The result of one round: the outcome, and the lease when it succeeded. */
    private static final class Attempt {
        final RoundOutcome outcome;
        final DefaultLease lease;

        Attempt(RoundOutcome outcome, DefaultLease lease) {
            this.outcome = outcome;
            this.lease = lease;
        }
    }

    /**
     * Acquires on the caller's thread, retrying after a random delay while the wait budget lasts. Returns a failed
     * result when the budget runs out; never throws for node failures.
     *
     * @param waitNanos the wait budget; 0 for one round, {@link #FOREVER} to wait until acquired
     * @param interruptible whether an interrupt aborts the wait; if not, the interrupt status is kept
     * @param autoExtend whether the watchdog keeps the lease until it is released
     * @throws InterruptedException if interruptible and the thread was interrupted before or between rounds
     */
    public AcquireResult acquire(LockRef lock, long ttlMillis, long waitNanos, boolean interruptible,
            boolean autoExtend) throws InterruptedException {
        long t0 = ticker.nanoTime();
        AcquireResult result = acquireRounds(lock, ttlMillis, waitNanos, interruptible, autoExtend);
        acquisitionEnded(lock, result, t0);
        return result;
    }

    private AcquireResult acquireRounds(LockRef lock, long ttlMillis, long waitNanos, boolean interruptible,
            boolean autoExtend) throws InterruptedException {
        LockRef ref = begin(lock);
        boolean forever = waitNanos == FOREVER;
        long deadline = ticker.nanoTime() + (forever ? 0 : waitNanos);
        boolean interrupted = false;
        boolean won = false;
        WaitRoom.Waiter waiter = null;
        quarantine.observeTtl(ttlMillis);
        try {
            if (waitRoom != null && waitNanos > 0 && ref.queues()) {
                // A fair waiter (or a preferred writer) takes its place on the nodes with its first round at once, and
                // in this client's queue now: both in the order acquisitions began, so a release wakes the head.
                waiter = waitRoom.joinAsThreadAt(ref.key(), ref.shape().order());
            } else if (waitRoom != null && waitNanos > 0 && waitRoom.hasWaiters(ref.key())) {
                // Others of this client already wait for this lock: queue behind them rather than overtake them.
                waiter = waitRoom.joinAsThread(ref.key(), ref.kind() == LockRef.Kind.READ);
                interrupted = sleep(ref, waiter, Math.min(queuedDelay(waiter, 1), forever ? Long.MAX_VALUE
                        : Math.max(0, deadline - ticker.nanoTime())), interruptible);
            }
            for (int rounds = 1; ; rounds++) {
                if (interruptible && Thread.interrupted()) {
                    throw new InterruptedException("interrupted while acquiring lock '" + ref.name() + "'");
                }
                ensureOpen();
                if (waiter != null) {
                    waitRoom.consumeSignal(waiter); // this round answers it; a release during the round signals anew
                }
                Attempt a = roundSync(ref, ttlMillis, interruptible);
                if (interruptible && Thread.interrupted()) {
                    // Interrupted while the round ran: like ReentrantLock, answer the interrupt, and give back
                    // whatever the round won, at once and without ever handing it to the watchdog.
                    if (a.lease != null) {
                        a.lease.releaseAsync();
                    }
                    throw new InterruptedException("interrupted while acquiring lock '" + ref.name() + "'");
                }
                if (a.lease != null) {
                    won = true;
                    return new AcquireResult(started(a, autoExtend).lease, a.outcome, rounds);
                }
                logFailure(a.outcome);
                long remaining = deadline - ticker.nanoTime();
                if (!forever && remaining <= 0) {
                    return new AcquireResult(null, a.outcome, rounds);
                }
                if (waiter == null && waitRoom != null && a.outcome.reason() == FailureReason.BUSY) {
                    waiter = waitRoom.joinAsThread(ref.key(), ref.kind() == LockRef.Kind.READ);
                }
                long delay = delayAfter(ref, a.outcome, waiter, rounds, forever, remaining);
                interrupted |= sleep(ref, waiter, delay, interruptible);
            }
        } finally {
            if (!won) {
                leaveQueue(ref);
            } else {
                stopTracking(ref);
            }
            if (waiter != null) {
                waitRoom.leave(waiter, won);
                wakeNextReader(ref, won);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sleeps {@code delay} unless a release is signalled to the waiter. Sleeps the whole delay otherwise: park may
     * return early (spurious wake-up), and the jitter only keeps competing clients apart if it is honoured. Real
     * time, so a fake ticker cannot stall it.
     *
     * @return whether an interrupt came that is to be kept (not interruptible)
     * @throws InterruptedException if interruptible and interrupted
     */
    private boolean sleep(LockRef ref, WaitRoom.Waiter waiter, long delay, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        long wakeAt = System.nanoTime() + delay;
        for (long left = delay; left > 0; left = wakeAt - System.nanoTime()) {
            if (closed || (waiter != null && waitRoom.signalled(waiter))) {
                break;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                if (interruptible) {
                    throw new InterruptedException("interrupted while acquiring lock '" + ref.name() + "'");
                }
                interrupted = true;
            }
        }
        return interrupted;
    }

    /** Waiters behind others of this client poll later by their place, up to this many retry delays. */
    private static final int MAX_QUEUED_DELAYS = 10;

    /**
     * A queued waiter's poll: the retry delay for the oldest, one more for each waiter ahead, up to
     * {@link #MAX_QUEUED_DELAYS}. A release wakes the oldest first, so the others polling often would only overtake
     * it (and cost commands); they still poll, in case no release is ever signalled.
     */
    private long queuedDelay(WaitRoom.Waiter waiter, int rounds) {
        long delay = nextDelayNanos(rounds);
        return waiter == null ? delay : delay * (1 + Math.min(waitRoom.position(waiter), MAX_QUEUED_DELAYS - 1));
    }

    /**
     * How long to sleep after a failed round: the (queued) retry delay with its jitter, but never past the wait
     * budget, nor past the moment the refusing holders' keys expire (reported with the refusal): a holder that
     * crashed frees the lock then, and the waiter is there.
     */
    private long delayAfter(LockRef ref, RoundOutcome failed, WaitRoom.Waiter waiter, int rounds, boolean forever,
            long remaining) {
        long delay = queuedDelay(waiter, rounds);
        if (ref.queues()) {
            // A queued waiter's place lasts a window past each attempt: it comes back well within it.
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(ref.shape().windowMillis()) / 3);
        }
        java.util.Optional<java.time.Duration> holder = failed.holderTtl();
        if (holder.isPresent()) {
            delay = Math.min(delay, TimeUnit.MILLISECONDS.toNanos(holder.get().toMillis() + 1));
        }
        return forever ? delay : Math.min(delay, remaining);
    }

    /** The last fair-lock place this client handed out, in microseconds: places are distinct within a client. */
    private final java.util.concurrent.atomic.AtomicLong lastOrder = new java.util.concurrent.atomic.AtomicLong();

    /**
     * The lock for one acquisition: a fair lock's waiter (or a writer's) gets the id it keeps through all its rounds,
     * and a fair one its place, read from the wall clock once (so a retry never loses it).
     */
    private LockRef begin(LockRef ref) {
        if (ref.kind() != LockRef.Kind.FAIR && ref.kind() != LockRef.Kind.WRITE) {
            return ref;
        }
        java.time.Instant now = config.wallClock().instant();
        long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        LockRef begun = ref.begin(Tokens.next(random),
                lastOrder.accumulateAndGet(micros, (last, t) -> Math.max(last + 1, t)));
        if (begun.queues()) {
            queued.add(begun);
        }
        return begun;
    }

    /** Acquisitions of queued kinds in progress: closing the client takes their places out of the nodes' queues. */
    private final java.util.Set<LockRef> queued = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** An acquisition of a queued kind ended with a lease: the lease's release removes its place. */
    private void stopTracking(LockRef ref) {
        if (ref.queues()) {
            queued.remove(ref);
        }
    }

    /**
     * A reader that waited got in: readers share, so every other reader waiting in this client may get in too, now
     * rather than at its next poll (a release wakes one waiter at a time, which may be a writer).
     */
    private void wakeNextReader(LockRef ref, boolean won) {
        if (won && ref.kind() == LockRef.Kind.READ) {
            waitRoom.wakeReaders(ref.key());
        }
    }

    /**
     * An acquisition of a queued kind gave up (or failed): its place leaves every node's queue now, so the waiters
     * behind it need not wait for the place to expire. Fire-and-forget: a place not removed expires by itself.
     */
    private void leaveQueue(LockRef ref) {
        if (!ref.queues()) {
            return;
        }
        queued.remove(ref);
        if (waitRoom != null) {
            // Waiters of this client that its place (or a writer's entry) held back may get in now.
            waitRoom.released(ref.key(), null);
        }
        long now = ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.RELEASE, names, nodes.size(), now, ticker);
        for (int i = 0; i < nodes.size(); i++) {
            // No lease token: only the place goes (the key holds a round's token, never this one).
            nodes.get(i).submit(round.op(i, ref.key(), "-", 1, now + perNodeTimeoutNanos).shaped(ref, true));
        }
        round.endSubmit();
    }

    // ------------------------------------------------------------------------------------------------ listeners

    private final List<RedlockListener> listeners;

    /** The kind of {@code ref}, as listeners and meters name it. */
    public static LockKind kindOf(LockRef ref) {
        switch (ref.kind()) {
            case MULTI:
                return LockKind.MULTI_RESOURCE;
            case READ:
                return LockKind.READ;
            case WRITE:
                return LockKind.WRITE;
            case FAIR:
                return LockKind.FAIR;
            default:
                return ref.policy() == dev.redlock.QuorumPolicy.ALL ? LockKind.MULTILOCK : LockKind.REDLOCK;
        }
    }

    /** Tells every listener; one that throws is logged and skipped, so no outcome depends on a listener. */
    void tell(java.util.function.Consumer<RedlockListener> event) {
        for (RedlockListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                LOG.warn("a RedlockListener ({}) failed", l.getClass().getName(), e);
            }
        }
    }

    private void acquisitionEnded(LockRef ref, AcquireResult result, long t0) {
        if (!listeners.isEmpty()) {
            LockKind kind = kindOf(ref);
            java.time.Duration elapsed = java.time.Duration.ofNanos(ticker.nanoTime() - t0);
            tell(l -> l.acquisitionEnded(kind, result, elapsed));
        }
    }

    private RoundOutcome extensionEnded(DefaultLease lease, RoundOutcome outcome) {
        if (!outcome.succeeded() && !listeners.isEmpty()) {
            tell(l -> l.extensionFailed(lease, outcome));
        }
        return outcome;
    }

    /** One round (two for a fenced lock) on the caller's thread; the lease it wins is not watched yet. */
    private Attempt roundSync(LockRef ref, long ttlMillis, boolean interruptible) {
        String token = Tokens.next(random);
        long t1 = ticker.nanoTime();
        Round round = acquireRound(ref, t1).waitingThread(Thread.currentThread());
        submitAcquire(round, ref, token, ttlMillis, t1 + perNodeTimeoutNanos);
        round.await(t1 + perNodeTimeoutNanos);
        Attempt a = evaluate(ref, round, token, ttlMillis);
        if (a.lease != null && ref.fenced() && !(interruptible && Thread.currentThread().isInterrupted())) {
            long candidate = round.maxValueAtDecision() + 1;
            Round fence = fenceRound(a.lease, candidate).waitingThread(Thread.currentThread());
            submitFence(fence, a.lease, candidate);
            fence.await(fenceDeadline(fence, a.lease));
            a = evaluateFence(a, fence, candidate);
        }
        return a;
    }

    private Round acquireRound(LockRef ref, long t1) {
        NodeOp.Kind kind = ref.fenced() ? NodeOp.Kind.ACQUIRE_FENCED : NodeOp.Kind.ACQUIRE;
        return new Round(kind, names, ref.policy().required(nodes.size()), t1, ticker);
    }

    private void submitAcquire(Round round, LockRef ref, String token, long ttlMillis, long sendBy) {
        String counter = ref.fenced() ? ref.counterKey() : null;
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).submit(round.op(i, ref.key(), counter, token, ttlMillis, 0, sendBy).shaped(ref, false));
        }
        round.endSubmit();
    }

    // ------------------------------------------------------------------------------------------------ fencing

    /**
     * Round 2 of a fenced acquisition: on every node that still holds our key, raise the lock's counter to
     * {@code candidate} (the largest counter our grants reported, plus one). Confirmed by a quorum within the
     * lease's validity, {@code candidate} is larger than the token of every earlier lease of this lock.
     */
    private Round fenceRound(DefaultLease lease, long candidate) {
        return new Round(NodeOp.Kind.FENCE, names, lease.policy().required(nodes.size()), ticker.nanoTime(), ticker);
    }

    private void submitFence(Round round, DefaultLease lease, long candidate) {
        long sendBy = fenceDeadline(round, lease);
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).submit(round.op(i, lease.key(), lease.ref().counterKey(), lease.token(), 0, candidate,
                    sendBy));
        }
        round.endSubmit();
    }

    private long fenceDeadline(Round round, DefaultLease lease) {
        return earlier(round.startNanos() + perNodeTimeoutNanos, lease.deadlineNanos());
    }

    private Attempt evaluateFence(Attempt acquired, Round round, long candidate) {
        DefaultLease lease = acquired.lease;
        long decidedAt = round.decidedAtNanos();
        int confirmed = round.yesAtDecision();
        boolean inTime = decidedAt - lease.deadlineNanos() < 0;
        if (confirmed >= round.need() && inTime) {
            lease.fencingToken(candidate);
            if (LOG.isDebugEnabled()) {
                LOG.debug("lock '{}' token {}… fenced with {} by {}/{} nodes", lease.lockName(),
                        Tokens.prefix(lease.token()), candidate, confirmed, round.need());
            }
            return acquired;
        }
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        FailureReason reason = !inTime ? FailureReason.VALIDITY_EXHAUSTED : shortfall(round, outcomes);
        RoundOutcome outcome = new RoundOutcome(lease.lockName(), lease.policy(), round.need(), outcomes, confirmed,
                decidedAt - round.startNanos(), lease.deadlineNanos() - decidedAt, reason);
        // Not fenced: the grant is worthless to a caller who asked for a token. Give it back everywhere.
        lease.releaseAsync();
        return new Attempt(outcome, null);
    }

    /** Leases handed out and neither released nor lost; expired ones are dropped when counted. */
    private final java.util.Set<DefaultLease> active = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** How many leases of this client are held: handed out, neither released nor lost, and still valid. */
    public int activeLeases() {
        active.removeIf(l -> !l.isValid());
        return active.size();
    }

    /** The lease was released or lost: no longer counted, and listeners hear of a loss. */
    void ended(DefaultLease lease, dev.redlock.LockLostException lost) {
        active.remove(lease);
        if (lost != null && !listeners.isEmpty()) {
            tell(l -> l.leaseLost(lease, lost));
        }
    }

    /** Hands out a won lease: the watchdog takes over auto-extended ones. */
    private Attempt started(Attempt a, boolean autoExtend) {
        if (a.lease != null) {
            active.add(a.lease);
        }
        if (a.lease != null && autoExtend) {
            a.lease.autoExtended(true);
            watchdog.start(a.lease);
        }
        return a;
    }

    /** Turns a decided acquire round into an outcome; a failed round is released on every node. */
    private Attempt evaluate(LockRef ref, Round round, String token, long ttlMillis) {
        long t1 = round.startNanos();
        long elapsed = round.decidedAtNanos() - t1;
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long validity = ttlNanos - elapsed - config.driftNanos(ttlNanos);
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        int granted = round.yesAtDecision();
        if (round.sawCountersNotIntact()) {
            // A node lost its data since the counters started (or the cluster is new): repair its counters in the
            // background, so fencing reads do not need every node to answer.
            repair.request();
        }
        FailureReason reason;
        if (granted >= round.need() && !round.coveringAtDecision()) {
            reason = FailureReason.FENCING_UNAVAILABLE;
        } else if (granted >= round.need()) {
            reason = validity > minValidityNanos ? FailureReason.NONE : FailureReason.VALIDITY_EXHAUSTED;
        } else {
            reason = shortfall(round, outcomes);
        }
        RoundOutcome outcome = new RoundOutcome(ref.name(), ref.policy(), round.need(), outcomes, granted, elapsed,
                validity, reason);
        if (!listeners.isEmpty()) {
            LockKind kind = kindOf(ref);
            tell(l -> l.acquireRound(kind, outcome));
        }
        if (reason != FailureReason.NONE) {
            if (reason == FailureReason.FENCING_UNAVAILABLE) {
                LOG.debug("lock '{}': granted, but no fencing token can be issued safely ({}); released",
                        ref.name(), round.readsAtDecision());
            }
            releaseInBackground(round, ref, token, ttlMillis, t1 + ttlNanos);
            return new Attempt(outcome, null);
        }
        DefaultLease lease = new DefaultLease(this, ref, token, ttlMillis, t1, t1 + validity, t1 + ttlNanos, outcome,
                round);
        if (LOG.isDebugEnabled()) {
            LOG.debug("acquired lock '{}' token {}… {}/{} grants, validity {} ms", ref.name(), Tokens.prefix(token),
                    granted, round.need(), validity / 1_000_000);
        }
        return new Attempt(outcome, lease);
    }

    /**
     * Why a round fell short of its quorum: NOT_ENOUGH_NODES when the nodes that failed, timed out, had an open
     * circuit or are quarantined leave too few to ever form it; otherwise BUSY (other owners hold the key).
     */
    private static FailureReason shortfall(Round round, List<NodeOutcome> outcomes) {
        int unavailable = 0;
        for (NodeOutcome o : outcomes) {
            if (o.status().isUnavailable()) {
                unavailable++;
            }
        }
        return round.size() - unavailable < round.need() ? FailureReason.NOT_ENOUGH_NODES : FailureReason.BUSY;
    }

    private void logFailure(RoundOutcome outcome) {
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
            LOG.warn("lock '{}': a quorum granted but the round took {} us, leaving validity {} ms; released",
                    outcome.lockName(), outcome.elapsed().toNanos() / 1_000, outcome.validity().toMillis());
        } else {
            LOG.warn("lock '{}': not enough nodes reachable ({} of {} unavailable, {} required): {}",
                    outcome.lockName(), outcome.unavailable(), outcome.nodes().size(), outcome.required(),
                    outcome.nodes());
        }
    }

    /** The delay before acquire round {@code attempt + 1}: the retry delay, spread by the jitter factor. */
    private long nextDelayNanos(int attempt) {
        return jittered(TimeUnit.MILLISECONDS.toNanos(config.retryDelay().toMillis()),
                Math.min(config.retryJitter(), 0.999));
    }

    /** Delays between retries of a release a node did not answer: 50 ms doubling, spread by half, at most 1 s. */
    private long releaseRetryNanos(int attempt) {
        long ms = Math.min(1_000, 50L << Math.min(attempt - 1, 5));
        return jittered(TimeUnit.MILLISECONDS.toNanos(ms), 0.5);
    }

    /**
     * {@code base} spread uniformly over {@code base * (1 ± factor)}, as resilience4j's randomized intervals are, but
     * drawn from this engine's random source rather than {@code Math.random()}, so that a simulated run replays.
     */
    private long jittered(long base, double factor) {
        return factor == 0 ? base : (long) (base * (1 - factor + 2 * factor * random.nextDouble()));
    }

    /**
     * Acquires without blocking the caller. Rounds are driven by node I/O threads and the scheduler; the future
     * completes on the async executor. Cancelling the future stops further rounds, and a lease won after
     * cancellation is released.
     */
    public CompletableFuture<AcquireResult> acquireAsync(LockRef ref, long ttlMillis, long waitNanos,
            boolean autoExtend) {
        quarantine.observeTtl(ttlMillis);
        AsyncAcquisition a = new AsyncAcquisition(begin(ref), ttlMillis, waitNanos, autoExtend);
        if (!listeners.isEmpty()) {
            long t0 = ticker.nanoTime();
            a.future.thenAccept(result -> acquisitionEnded(ref, result, t0));
        }
        if (waitRoom != null && waitNanos > 0 && a.ref.queues()) {
            // As in acquire: in this client's queue from the start, in the order acquisitions began; first round now.
            a.waiter = waitRoom.joinAsyncAt(ref.key(), a::signalled, a.ref.shape().order());
            a.startRound();
        } else if (waitRoom != null && waitNanos > 0 && waitRoom.hasWaiters(ref.key())) {
            // Others of this client already wait for this lock: queue behind them rather than overtake them.
            a.waiter = waitRoom.joinAsync(ref.key(), a::signalled, ref.kind() == LockRef.Kind.READ);
            a.sleepThenRound(Math.min(queuedDelay(a.waiter, 1), a.forever ? Long.MAX_VALUE
                    : Math.max(0, a.deadline - ticker.nanoTime())));
        } else {
            a.startRound();
        }
        return a.future;
    }

    private final class AsyncAcquisition implements Round.Listener {
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
        /** In the key's wait queue once a round was refused by a holder; null before, or without notifications. */
        volatile WaitRoom.Waiter waiter;

        AsyncAcquisition(LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend) {
            this.ref = ref;
            this.ttlMillis = ttlMillis;
            this.autoExtend = autoExtend;
            this.forever = waitNanos == FOREVER;
            this.deadline = ticker.nanoTime() + (forever ? 0 : waitNanos);
            // Cancelled, timed out (orTimeout) or completed by the caller: no further round, and a lease won by the
            // round in flight is given back when it decides.
            future.whenComplete((r, e) -> {
                if (!delivering.get()) {
                    stop();
                }
                WaitRoom.Waiter w = waiter;
                if (w != null) {
                    waitRoom.leave(w, r != null && r.acquired());
                    wakeNextReader(this.ref, r != null && r.acquired());
                }
                if (r == null || !r.acquired()) {
                    leaveQueue(this.ref);
                } else {
                    stopTracking(this.ref);
                }
            });
        }

        /** A release was signalled while this acquisition sleeps between rounds: start the next round now. */
        private void signalled() {
            ScheduledFuture<?> s = sleep;
            if (s != null && s.cancel(false)) {
                try {
                    scheduler.execute(this::startRound);
                } catch (RejectedExecutionException e) {
                    betweenRounds.remove(this);
                    failClosed();
                }
            }
        }

        private void stop() {
            stopped = true;
            betweenRounds.remove(this);
            // A round in flight still decides (and releases what it won); only the sleep before the next one ends.
            ScheduledFuture<?> s = sleep;
            if (s != null) {
                s.cancel(false);
            }
        }

        void startRound() {
            betweenRounds.remove(this);
            if (stopped || future.isDone()) {
                return;
            }
            if (closed) {
                failClosed();
                return;
            }
            rounds++;
            WaitRoom.Waiter w = waiter;
            if (w != null) {
                waitRoom.consumeSignal(w);
            }
            token = Tokens.next(random);
            long t1 = ticker.nanoTime();
            Round round = acquireRound(ref, t1).listener(this);
            try {
                timer = scheduler.schedule(round::expire, perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                failClosed();
                return;
            }
            submitAcquire(round, ref, token, ttlMillis, t1 + perNodeTimeoutNanos);
            if (stopped || future.isDone()) {
                // Cancelled while this round was submitted: its place may have reached a node after the removal the
                // cancellation sent; remove it again (removing twice is harmless).
                leaveQueue(ref);
            }
        }

        @Override
        public void decided(Round round) {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
            Attempt a;
            if (fencing != null) {
                a = evaluateFence(fencing, round, candidate);
                fencing = null;
            } else {
                a = evaluate(ref, round, token, ttlMillis);
                if (a.lease != null && ref.fenced() && !closed && !stopped) {
                    // Round 2: raise the fencing counters; this listener hears of it too.
                    fencing = a;
                    candidate = round.maxValueAtDecision() + 1;
                    Round fence = fenceRound(a.lease, candidate).listener(this);
                    timer = schedule(fence::expire, fenceDeadline(fence, a.lease) - ticker.nanoTime());
                    submitFence(fence, a.lease, candidate);
                    return;
                }
            }
            if (a.lease != null && (stopped || closed)) {
                // Won after the caller gave up, or while the client closed: give it back at once, never watched.
                a.lease.releaseAsync();
                if (closed && !stopped) {
                    failClosed();
                }
                return;
            }
            if (a.lease != null) {
                deliver(new AcquireResult(started(a, autoExtend).lease, a.outcome, rounds));
                return;
            }
            if (stopped) {
                return;
            }
            if (closed) {
                failClosed();
                return;
            }
            logFailure(a.outcome);
            long remaining = deadline - ticker.nanoTime();
            if ((!forever && remaining <= 0) || future.isDone()) {
                deliver(new AcquireResult(null, a.outcome, rounds));
                return;
            }
            if (waiter == null && waitRoom != null && a.outcome.reason() == FailureReason.BUSY) {
                waiter = waitRoom.joinAsync(ref.key(), this::signalled, ref.kind() == LockRef.Kind.READ);
                if (stopped || future.isDone()) {
                    // Cancelled (or timed out) while joining: the completion hook may have run before the waiter was
                    // set, so leave here too (leaving twice is harmless), or the key would keep a waiter forever.
                    waitRoom.leave(waiter, false);
                    return;
                }
            }
            WaitRoom.Waiter w = waiter;
            sleepThenRound(w != null && waitRoom.signalled(w) ? 0
                    : delayAfter(ref, a.outcome, w, rounds, forever, remaining));
        }

        /** Starts the next round after {@code delay}, or as soon as a release is signalled. */
        void sleepThenRound(long delay) {
            betweenRounds.add(this);
            if (closed) {
                betweenRounds.remove(this);
                failClosed();
                return;
            }
            try {
                sleep = scheduler.schedule(this::startRound, delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                betweenRounds.remove(this);
                failClosed();
                return;
            }
            WaitRoom.Waiter w = waiter;
            if (w != null && waitRoom.signalled(w)) {
                signalled(); // signalled before the sleep was in place: do not sleep through it
            }
        }

        private void failClosed() {
            completeAsync(() -> {
                delivering.set(true);
                future.completeExceptionally(closedException());
            });
        }

        private void deliver(AcquireResult result) {
            completeAsync(() -> {
                delivering.set(true);
                if (!future.complete(result) && result.acquired()) {
                    // The caller cancelled while the winning round was in flight: give the lock back.
                    result.lease().get().releaseAsync();
                }
            });
        }
    }

    // ------------------------------------------------------------------------------------------------ extend

    /** Extends on the caller's thread; see {@link DefaultLease#extend}. */
    RoundOutcome extendSync(DefaultLease lease, long ttlMillis) {
        quarantine.observeTtl(ttlMillis);
        long t1 = ticker.nanoTime();
        long oldDeadline = lease.deadlineNanos();
        if (!lease.isValid()) {
            return notExtended(lease, t1, oldDeadline);
        }
        long seq = lease.nextExtensionSeq();
        Round round = new Round(NodeOp.Kind.EXTEND, names, lease.policy().required(nodes.size()), t1, ticker)
                .waitingThread(Thread.currentThread());
        long waitUntil = earlier(t1 + perNodeTimeoutNanos, oldDeadline);
        mayApplyFromNow(lease, seq, t1, ttlMillis);
        submitExtend(round, lease, ttlMillis, seq, waitUntil);
        round.await(waitUntil);
        return extensionEnded(lease, evaluateExtend(lease, round, ttlMillis, oldDeadline, seq));
    }

    /** Extends without blocking; {@code done} runs once, on a node I/O thread or the scheduler thread. */
    void extendAsync(DefaultLease lease, long ttlMillis, java.util.function.Consumer<RoundOutcome> done) {
        quarantine.observeTtl(ttlMillis);
        long t1 = ticker.nanoTime();
        long oldDeadline = lease.deadlineNanos();
        if (!lease.isValid()) {
            done.accept(notExtended(lease, t1, oldDeadline));
            return;
        }
        long seq = lease.nextExtensionSeq();
        Round round = new Round(NodeOp.Kind.EXTEND, names, lease.policy().required(nodes.size()), t1, ticker);
        long waitUntil = earlier(t1 + perNodeTimeoutNanos, oldDeadline);
        ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        round.listener(r -> {
            ScheduledFuture<?> t = timer[0];
            if (t != null) {
                t.cancel(false);
            }
            done.accept(extensionEnded(lease, evaluateExtend(lease, r, ttlMillis, oldDeadline, seq)));
        });
        timer[0] = schedule(round::expire, waitUntil - t1);
        mayApplyFromNow(lease, seq, t1, ttlMillis);
        submitExtend(round, lease, ttlMillis, seq, waitUntil);
    }

    /**
     * An extension about to be sent may be applied by any node from the moment it leaves, whatever its round decides
     * and however late (the holder may pause before the decision): so a shorter one caps the deadline now, at what
     * the nodes may then hold. A confirmed round sets the deadline from its own outcome.
     */
    private void mayApplyFromNow(DefaultLease lease, long seq, long t1, long ttlMillis) {
        lease.extensionUnconfirmed(seq, t1, ttlMillis, config.driftNanos(TimeUnit.MILLISECONDS.toNanos(ttlMillis)));
    }

    /** Extension {@code seq} of the lease on every node; a node ignores it once a newer one ran there. */
    private void submitExtend(Round round, DefaultLease lease, long ttlMillis, long seq, long sendBy) {
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).submit(round.op(i, lease.key(), null, lease.token(), ttlMillis, seq, sendBy)
                    .shaped(lease.ref(), false));
        }
        round.endSubmit();
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    /** The outcome of an extension that was not attempted because the lease was no longer valid. */
    private RoundOutcome notExtended(DefaultLease lease, long t1, long oldDeadline) {
        if (lease.isHeld() && oldDeadline - t1 <= 0) {
            lease.lose(dev.redlock.LockLostException.Reason.EXPIRED, lease.lastExtension());
        }
        return new RoundOutcome(lease.lockName(), lease.policy(), lease.policy().required(nodes.size()), List.of(), 0,
                0, oldDeadline - t1, FailureReason.LEASE_EXPIRED);
    }

    /**
     * Turns a decided extension round into an outcome and moves the lease's deadline. Nodes apply one lease's
     * commands in the order they were sent, so the newest round's result is what the nodes hold: an older round
     * answering later never moves the deadline. A round that failed may still have been applied on any node it was
     * sent to, so a failed extension to a shorter lease cuts the deadline to what those nodes may now have.
     */
    private RoundOutcome evaluateExtend(DefaultLease lease, Round round, long ttlMillis, long oldDeadline,
            long seq) {
        long t1 = round.startNanos();
        long decidedAt = round.decidedAtNanos();
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long validity = ttlNanos - (decidedAt - t1) - config.driftNanos(ttlNanos);
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        int granted = round.yesAtDecision();
        int gone = 0;
        for (NodeOutcome o : outcomes) {
            if (o.status() == NodeStatus.ALREADY_EXPIRED || o.status() == NodeStatus.OWNED_BY_ANOTHER) {
                gone++;
            }
        }
        boolean inTime = decidedAt - oldDeadline < 0;
        FailureReason reason;
        if (granted >= round.need() && inTime) {
            reason = validity > minValidityNanos ? FailureReason.NONE : FailureReason.VALIDITY_EXHAUSTED;
        } else if (gone > round.size() - round.need() || !inTime) {
            reason = FailureReason.LEASE_EXPIRED;
        } else {
            // Nodes failed or timed out; a later round may still reach them before the deadline.
            reason = FailureReason.NOT_ENOUGH_NODES;
        }
        RoundOutcome outcome = new RoundOutcome(lease.lockName(), lease.policy(), round.need(), outcomes, granted,
                decidedAt - t1, validity, reason);
        if (reason != FailureReason.NONE) {
            lease.extensionUnconfirmed(seq, t1, ttlMillis, config.driftNanos(ttlNanos));
        }
        if (reason == FailureReason.NONE) {
            if (!lease.extended(seq, t1, t1 + validity, ttlMillis, outcome)) {
                // Lost or released while the round ran: report it as such, never as an extension.
                return new RoundOutcome(lease.lockName(), lease.policy(), round.need(), outcomes, granted,
                        decidedAt - t1, validity, FailureReason.LEASE_EXPIRED);
            }
            LOG.debug("extended lock '{}' token {}… by {} ms: {}/{} grants", lease.lockName(),
                    Tokens.prefix(lease.token()), ttlMillis, granted, round.need());
        } else if (gone > round.size() - round.need()) {
            // Too many nodes no longer hold our token: no later extension can bring the lease back.
            lease.lose(dev.redlock.LockLostException.Reason.OWNERSHIP_LOST, outcome);
        } else if (!inTime && lease.isHeld()) {
            lease.lose(dev.redlock.LockLostException.Reason.EXPIRED, outcome);
        }
        return outcome;
    }

    /**
     * Validates a per-call lease time and returns it in milliseconds: it must leave validity even for a round that
     * takes the whole per-node timeout, as {@link RedlockConfig.Builder#build()} checks for the default.
     */
    public long checkLeaseTime(java.time.Duration leaseTime) {
        java.util.Objects.requireNonNull(leaseTime, "leaseTime");
        RedlockConfig.checkLeaseTime("leaseTime", leaseTime, config.perNodeTimeout(), config.driftFactor(),
                config.minValidity());
        return leaseTime.toMillis();
    }

    // ------------------------------------------------------------------------------------------------ release

    /**
     * Releases on every node and waits until the outcome is decided: the lock's quorum confirmed the key is no longer
     * ours,
     * or every node answered, or one per-node timeout passed. The rest completes in the background.
     */
    ReleaseResult releaseSync(DefaultLease lease) {
        long t1 = ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.RELEASE, names, releaseQuorum(lease), t1, ticker)
                .waitingThread(Thread.currentThread());
        CompletableFuture<Round> all = round.allAnswered();
        submitRelease(round, lease, releaseSendBy(lease, t1));
        round.await(t1 + perNodeTimeoutNanos);
        return releaseResult(lease, round, all);
    }

    CompletableFuture<ReleaseResult> releaseAsync(DefaultLease lease) {
        long t1 = ticker.nanoTime();
        CompletableFuture<ReleaseResult> result = new CompletableFuture<>();
        Round round = new Round(NodeOp.Kind.RELEASE, names, releaseQuorum(lease), t1, ticker);
        CompletableFuture<Round> all = round.allAnswered();
        ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        round.listener(r -> {
            ScheduledFuture<?> t = timer[0];
            if (t != null) {
                t.cancel(false);
            }
            ReleaseResult rr = releaseResult(lease, r, all);
            completeAsync(() -> result.complete(rr));
        });
        try {
            timer[0] = scheduler.schedule(round::expire, perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The client is closing: the nodes answer at once, so the round decides without a timer.
            LOG.debug("scheduler closed; release of lock '{}' decides without a timer", lease.lockName());
        }
        submitRelease(round, lease, releaseSendBy(lease, t1));
        return result;
    }

    /**
     * A release is decided once the lock is free again under its own policy: a majority of nodes for a RedLock,
     * every node for a MultiLock (which no one can take while any node still holds it).
     */
    private int releaseQuorum(DefaultLease lease) {
        return lease.policy().required(nodes.size());
    }

    private long releaseSendBy(DefaultLease lease, long now) {
        // After the key's TTL a release is pointless, but always give it one per-node timeout to report.
        long expiry = lease.keyExpiryNanos();
        return expiry - (now + perNodeTimeoutNanos) > 0 ? expiry : now + perNodeTimeoutNanos;
    }

    private ReleaseResult releaseResult(DefaultLease lease, Round round, CompletableFuture<Round> all) {
        // Built on the I/O thread that completes the last node (cheap, no user code); ReleaseResult.completion()
        // hops to the async executor only for callers who ask for it.
        CompletableFuture<ReleaseResult> completion = all.isDone()
                ? CompletableFuture.completedFuture(
                        new ReleaseResult(lease.lockName(), round.outcomesNow(), null, asyncExecutor))
                : all.thenApply(r -> new ReleaseResult(lease.lockName(), r.outcomesNow(), null, asyncExecutor));
        ReleaseResult rr = new ReleaseResult(lease.lockName(), round.outcomesAtDecision(), completion, asyncExecutor);
        if (rr.released() == 0) {
            LOG.debug("released lock '{}' token {}… but no node still held it: {}", lease.lockName(),
                    Tokens.prefix(lease.token()), rr.nodes());
        }
        return rr;
    }

    /**
     * Whether node {@code i} cannot hold the key of {@code acquired}'s token: the acquire never went out to it
     * (refused by its open breaker, or dropped unsent), or the node ran it and refused ({@link NodeStatus#TAKEN}: the
     * SET NX did not apply). Extensions and fencing only touch a key already there, so such a node needs no release
     * and no retries of one. This keeps a contended lock's failed rounds at one command per node, and a stalled or
     * dead node from costing every acquire a chain of background retries for the key's whole TTL.
     */
    private static boolean nothingOfOursThere(Round acquired, int i) {
        NodeOp a = acquired == null ? null : acquired.opOf(i);
        return a != null && (a.neverSent || acquired.liveStatus(i) == NodeStatus.TAKEN);
    }

    /**
     * Fire-and-forget release of a failed round on every node that may have applied its SET: all of them except
     * those it never reached and those that refused it. Nobody waits for it.
     */
    private void releaseInBackground(Round failed, LockRef ref, String token, long ttlMillis, long keyExpiryNanos) {
        long now = ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.RELEASE, names, nodes.size(), now, ticker);
        long sendBy = keyExpiryNanos - (now + perNodeTimeoutNanos) > 0 ? keyExpiryNanos : now + perNodeTimeoutNanos;
        round.allAnswered().thenRun(() -> retryUnconfirmed(round, ref, false, token, ttlMillis, keyExpiryNanos,
                failed));
        for (int i = 0; i < nodes.size(); i++) {
            submitReleaseOp(round, i, ref, false, token, ttlMillis, sendBy, failed);
        }
        round.endSubmit();
    }

    /**
     * Whether a release a node did not answer is still worth sending again. Once the key's TTL has passed it has
     * expired there, unless its acquire never got an answer: a node that was paused (or cut off) may run that acquire
     * when it resumes, long after, with a fresh TTL. Such a release is retried until the node answers, for at most
     * ten TTLs (and at least a minute) past the key's expiry.
     */
    private boolean worthRetrying(long keyExpiryNanos, long ttlMillis, NodeOp acquire) {
        long now = ticker.nanoTime();
        if (now - keyExpiryNanos < 0) {
            return true;
        }
        boolean acquireMayStillRun = acquire != null && acquire.sentOn != 0 && !acquire.answered;
        long cap = Math.max(10 * TimeUnit.MILLISECONDS.toNanos(ttlMillis), TimeUnit.MINUTES.toNanos(1));
        return acquireMayStillRun && now - (keyExpiryNanos + cap) < 0;
    }

    /** A node answered a release: the key is no longer ours there, whatever else it says. */
    private static boolean confirmed(NodeStatus s) {
        return s == NodeStatus.RELEASED || s == NodeStatus.ALREADY_EXPIRED || s == NodeStatus.OWNED_BY_ANOTHER;
    }

    /**
     * Retries, in the background, the release on every node that did not answer it (stalled, unreachable, its
     * breaker open): until the node answers, or the key has expired there anyway. A release is token-checked, so
     * sending it again is always safe; and when its acquire went out on another connection, it leaves a tombstone.
     * Without this, a node that was paused keeps a key nobody holds for its whole TTL once it resumes.
     */
    private void retryUnconfirmed(Round release, LockRef ref, boolean leaving, String token, long ttlMillis,
            long keyExpiryNanos, Round acquired) {
        for (int i = 0; i < nodes.size(); i++) {
            NodeStatus s = release.liveStatus(i);
            if (s != null && !confirmed(s)) {
                retryRelease(i, ref, leaving, token, ttlMillis, keyExpiryNanos,
                        acquired == null ? null : acquired.opOf(i), 1);
            }
        }
    }

    private void retryRelease(int i, LockRef ref, boolean leaving, String token, long ttlMillis,
            long keyExpiryNanos, NodeOp after, int attempt) {
        if (closed || !worthRetrying(keyExpiryNanos, ttlMillis, after)) {
            return;
        }
        long delay = releaseRetryNanos(attempt);
        schedule(() -> {
            if (closed) {
                return;
            }
            Round retry = new Round(NodeOp.Kind.RELEASE, List.of(names.get(i)), 1, ticker.nanoTime(), ticker);
            retry.listener(r -> {
                NodeStatus s = r.statusAtDecision(0);
                if (confirmed(s)) {
                    LOG.debug("release of key {} token {}… confirmed by node {} on retry {}", ref.key(),
                            Tokens.prefix(token), names.get(i), attempt);
                } else {
                    retryRelease(i, ref, leaving, token, ttlMillis, keyExpiryNanos, after, attempt + 1);
                }
            });
            // Sent whenever the node takes it, up to the end of the retries (see worthRetrying).
            long sendBy = ticker.nanoTime() + Math.max(perNodeTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
            NodeOp op = retry.op(0, ref.key(), token, ttlMillis, sendBy).shaped(ref, leaving);
            op.after = after;
            nodes.get(i).submit(op);
            retry.endSubmit();
        }, delay);
    }

    /**
     * A release for node {@code i}, which knows the acquire it undoes there: if that acquire went out on a connection
     * that has since been dropped, unanswered, it may still run after this release (a stalled node serves its sockets
     * in any order), so the node client makes the release leave a tombstone that turns the late acquire into a no-op.
     */
    private void submitReleaseOp(Round round, int i, LockRef ref, boolean leaving, String token, long ttlMillis,
            long sendBy, Round acquired) {
        // A refusing node may still hold a queued waiter's place, which a leaving release must remove.
        if (nothingOfOursThere(acquired, i) && !(leaving && ref.queues() && !acquired.opOf(i).neverSent)) {
            round.onReply(i, NodeStatus.ALREADY_EXPIRED, null, null); // nothing of ours there to undo
            return;
        }
        NodeOp op = round.op(i, ref.key(), token, ttlMillis, sendBy).shaped(ref, leaving);
        op.after = acquired == null ? null : acquired.opOf(i);
        nodes.get(i).submit(op);
    }

    private void submitRelease(Round round, DefaultLease lease, long sendBy) {
        round.allAnswered().thenRun(() -> retryUnconfirmed(round, lease.ref(), true, lease.token(),
                lease.ttlMillis(), lease.keyExpiryNanos(), lease.acquireRound()));
        for (int i = 0; i < nodes.size(); i++) {
            submitReleaseOp(round, i, lease.ref(), true, lease.token(), lease.ttlMillis(), sendBy,
                    lease.acquireRound());
        }
        round.endSubmit();
        if (waitRoom != null && waitRoom.hasWaiters(lease.key())) {
            // Wake this client's longest waiter now, not when the release is confirmed: its acquire goes out behind
            // the release on each node's one connection, so every node runs the release first, and the hand-off
            // costs one round trip instead of two. (The nodes' notifications of this release are deduplicated.)
            waitRoom.released(lease.key(), Tokens.prefix(lease.token()));
        }
    }

    // ------------------------------------------------------------------------------------------------ inspection

    /** What one node said of a lock key: its outcome (TAKEN with the TTL, or ALREADY_EXPIRED), and who holds it. */
    public record NodeView(NodeOutcome outcome, String holderPrefix) {
    }

    /**
     * Reads a lock key on every node in parallel, waiting at most one per-node timeout; nodes that did not answer by
     * then are {@link NodeStatus#PENDING}.
     */
    public List<NodeView> inspect(String key) {
        return onEveryNode(NodeOp.Kind.INSPECT, key, null);
    }

    /**
     * Deletes a lock key on each node where it still holds the token starting with {@code holders.get(i)} (what an
     * inspection saw there); nodes with a null prefix are not asked. Waits at most one per-node timeout.
     */
    public List<NodeView> forceRelease(String key, List<String> holders) {
        return onEveryNode(NodeOp.Kind.FORCE_RELEASE, key, holders);
    }

    private List<NodeView> onEveryNode(NodeOp.Kind kind, String key, List<String> holders) {
        ensureOpen();
        long t1 = ticker.nanoTime();
        Round round = new Round(kind, names, nodes.size(), t1, ticker);
        CompletableFuture<Round> all = round.allAnswered();
        long sendBy = t1 + perNodeTimeoutNanos;
        for (int i = 0; i < nodes.size(); i++) {
            // An inspection needs no token; a forced delete carries the holder seen on that node, if any.
            String holder = holders == null ? "" : holders.get(i);
            if (holder == null) {
                round.onReply(i, NodeStatus.ALREADY_EXPIRED, null, null); // nothing seen there: nothing to delete
            } else {
                nodes.get(i).submit(round.op(i, key, holder, 0, sendBy));
            }
        }
        round.endSubmit();
        try {
            all.get(perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Reported per node below.
        }
        List<NodeOutcome> outcomes = round.outcomesNow();
        List<NodeView> views = new ArrayList<>(outcomes.size());
        for (int i = 0; i < outcomes.size(); i++) {
            NodeOp op = round.opOf(i);
            views.add(new NodeView(outcomes.get(i), op == null ? null : op.holderPrefix));
        }
        return views;
    }

    void completeAsync(Runnable completion) {
        asyncExecutor.execute(completion);
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    /** Schedules a task on the client's scheduler; null if the client is closing. */
    /**
     * Runs {@code task} on the client's scheduler after {@code delayNanos}; null if the client is closed (the task
     * will never run).
     */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    void watchdogForget(DefaultLease lease) {
        watchdog.forget(lease);
    }

    /** For tests and diagnostics: how many leases the watchdog keeps. */
    public int autoExtendedLeases() {
        return watchdog.activeCount();
    }

    private void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    private static IllegalStateException closedException() {
        return new IllegalStateException("the Redlock client is closed");
    }

    public boolean isClosed() {
        return closed;
    }

    /** Run once when the client closes: waits that are not the engine's own (a semaphore's) end then too. */
    private final java.util.Set<Runnable> closeListeners = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Runs {@code listener} once when the client closes, on the closing thread; at once (on this thread) if it is
     * closed already. It must not block.
     *
     * @return false if the client was closed already (the listener has run)
     */
    public boolean onClose(Runnable listener) {
        closeListeners.add(listener);
        if (closed && closeListeners.remove(listener)) {
            listener.run();
            return false;
        }
        return true;
    }

    /** Forgets a listener given to {@link #onClose}; it will not run. */
    public void removeCloseListener(Runnable listener) {
        closeListeners.remove(listener);
    }

    /** Stops accepting work; queued releases are flushed by each node within its grace period. */
    @Override
    public void close() {
        closed = true;
        // Before the nodes close (they still send releases while closing): a fair waiter or a preferred writer of a
        // closed client must not hold the others up until its place expires.
        for (LockRef ref : queued.toArray(new LockRef[0])) {
            leaveQueue(ref);
        }
        for (Runnable listener : closeListeners.toArray(new Runnable[0])) {
            if (closeListeners.remove(listener)) {
                listener.run();
            }
        }
        for (AsyncAcquisition a : betweenRounds.toArray(new AsyncAcquisition[0])) {
            betweenRounds.remove(a);
            a.failClosed();
        }
        if (waitRoom != null) {
            waitRoom.wakeAll(); // sleeping callers see the client closed now, not at their next poll
        }
        watchdog.closeAll();
        repair.close();
        // Nodes stop taking acquires and extensions at once and flush queued releases within their grace period.
        for (NodeClient node : nodes) {
            node.initiateClose();
        }
        for (NodeClient node : nodes) {
            node.close();
        }
    }
}
