/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.AcquireResult;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import dev.redlock.Ticker;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.FencingRepair;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.NodeClients;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.node.Subscriptions;
import dev.redlock.internal.script.LockRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The quorum engine's core: the nodes, the settings every round reads, {@link #fanOut} (one command to every node at
 * once), and the client's lifecycle. Votes are counted and a round decided by {@link Round}; each kind of round has
 * its class: {@link AcquireRound}, {@link FenceRound}, {@link ExtendRound}, {@link ReleaseRound} and
 * {@link Inspection}; {@link Acquisitions} starts acquisitions, each an {@link Acquisition} that retries acquire
 * rounds and waits between them (asynchronously, or joined by a blocking caller).
 *
 * <p>One acquire round: read {@code t1}, send {@code SET key token NX PX ttl} to every node in parallel, count votes
 * until the outcome is known or the per-node timeout passes, then {@code validity = ttl - elapsed - drift}. Success
 * needs a quorum of grants and validity above the minimum; the lease is valid until {@code t1 + validity}. A failed
 * round is released on every node, including those that timed out: a SET whose reply was lost may have been applied.
 *
 * <p>Thread-safe. Rounds are decided on node I/O threads; a blocking call drives its rounds' timing on its own thread,
 * an asynchronous one through the client's scheduler.
 */
public final class QuorumEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QuorumEngine.class);
    /** Wait budget meaning "until acquired" ({@link java.util.concurrent.locks.Lock#lock()}). */
    public static final long FOREVER = Long.MAX_VALUE;

    // Read by the round classes of this package; set once here.
    final RedlockConfig config;
    final List<? extends NodeClient> nodes;
    final List<String> names;
    /** Which nodes each lock uses: all of them, or its top {@code nodesPerLock} by rendezvous hashing. */
    final Placement placement;

    final Ticker ticker;
    final ScheduledExecutorService scheduler;
    final Executor asyncExecutor;
    /** How blocking callers wait for their rounds (see {@link #drivenBy}). */
    volatile dev.redlock.internal.node.Parking parking = dev.redlock.internal.node.Parking.PLAIN;
    /** Tokens and jitter: a {@link java.security.SecureRandom} unless a simulation gives a seeded source. */
    final RandomGenerator random;

    final long perNodeTimeoutNanos;
    final long minValidityNanos;
    final Watchdog watchdog;
    final Quarantine quarantine;
    final FencingRepair repair;
    /** Acquisitions waiting for a lock, woken by releases; null when release notifications are off. */
    final WaitRoom waitRoom;
    /** How long a client's place in a plain lock's hand-over queue lasts without a new attempt (see the client's). */
    final long handOverWindowNanos;
    /** Where the waited-for keys are subscribed; set once by {@link #listen}. */
    private volatile Subscriptions subscriptions = Subscriptions.NONE;

    volatile boolean closed;

    // The round kinds, and the retry loop over acquire rounds.
    final AcquireRound acquireRound;
    final FenceRound fenceRound;
    final ExtendRound extend;
    final ReleaseRound release;
    final Acquisitions acquisitions;
    private final Inspection inspection;
    /** The leases handed out and not yet released or lost. */
    final Leases leases;
    /** This client's id: the second half of its tokens, and its place in a plain lock's hand-over queue. */
    final String clientId;

    final Holders holders;
    /** Run once when the client closes: waits that are not the engine's own (a semaphore's) end then too. */
    private final CloseListeners closeListeners = new CloseListeners();

    public QuorumEngine(RedlockConfig config, List<? extends NodeClient> nodes, ScheduledExecutorService scheduler) {
        this(config, nodes, scheduler, new Quarantine(config), "redlock-");
    }

    /** @param threadPrefix the name prefix of the threads this engine starts (the fencing counter repair) */
    public QuorumEngine(
            RedlockConfig config,
            List<? extends NodeClient> nodes,
            ScheduledExecutorService scheduler,
            Quarantine quarantine,
            String threadPrefix) {
        this(
                config,
                nodes,
                scheduler,
                quarantine,
                Tokens.SECURE_BLOCKS,
                new FencingRepair(config, quarantine, threadPrefix + "repair"));
    }

    /**
     * The engine with its random source and fencing repair given: a deterministic simulation passes a seeded source
     * (tokens, retry jitter) and a repair that reaches its simulated nodes, so that one seed replays exactly.
     */
    public QuorumEngine(
            RedlockConfig config,
            List<? extends NodeClient> nodes,
            ScheduledExecutorService scheduler,
            Quarantine quarantine,
            RandomGenerator random,
            FencingRepair repair) {
        this.quarantine = quarantine;
        this.random = random;
        this.repair = repair;
        this.config = config;
        this.nodes = List.copyOf(nodes);
        this.names = nodes.stream().map(NodeClient::name).toList();
        // Placed by the ids every client computes alike (a cluster node's slot, not the seed it was found by).
        List<String> ids = config.nodeSpecs().size() == nodes.size()
                ? config.nodeSpecs().stream()
                        .map(dev.redlock.internal.node.NodeSpec::placementId)
                        .toList()
                : names;
        if (new java.util.HashSet<>(ids).size() != ids.size()) {
            ids = names; // two Sentinel-managed masters of one name in two deployments: their names tell them apart
        }
        this.placement = new Placement(this.nodes, names, ids, config.nodesPerLock(nodes.size()));
        if (placement.partial()) {
            repair.placement(placement::indices);
        }
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
        this.handOverWindowNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(
                1_000,
                3 * (long) Math.ceil(config.retryDelay().toMillis() * (1 + Math.min(config.retryJitter(), 0.999)))));
        this.clientId = Tokens.half(random);
        this.waitRoom = config.releaseNotifications()
                ? new WaitRoom(
                        Subscriptions.via(() -> subscriptions), clientId, placement.perLock() / 2 + 1, roomHooks())
                : null;
        this.acquireRound = new AcquireRound(this);
        this.fenceRound = new FenceRound(this);
        this.extend = new ExtendRound(this);
        this.release = new ReleaseRound(this);
        this.acquisitions = new Acquisitions(this);
        this.inspection = new Inspection(this);
        this.leases = new Leases(this);
        this.holders = new Holders(this);
    }

    /**
     * Publishes on every node, from now until {@link Holders#stop()}, who this client is and which of its leases are
     * held for a while, so that inspections can name a lock's holder. A real client starts it; a simulation does not.
     */
    public Holders holders() {
        return holders;
    }

    /**
     * Waits for the release of any of {@code keys} (a semaphore's permits): {@code wake} runs at each release signalled
     * to it (on the signalling thread: it must not block). Null when release notifications are off.
     *
     * @param keys the lock keys
     * @param wake what a release signal does
     * @return the watch, to take its signals and close when the wait ends; null without notifications
     */
    public ReleaseWatch watchReleases(List<String> keys, Runnable wake) {
        return waitRoom == null ? null : new ReleaseWatch(waitRoom, keys, wake);
    }

    /**
     * How long a waiter woken by releases polls between attempts, in nanoseconds: the retry delay while this client
     * hears too few of some key's nodes for a majority (or notifications are off), else a third of a hand-over window
     * (a poll then only catches a release whose message was lost).
     *
     * @param keys the keys the waiter waits for
     * @return the poll, before jitter
     */
    public long waiterPollNanos(List<String> keys) {
        if (waitRoom == null) {
            return config.retryDelay().toNanos();
        }
        for (String key : keys) {
            if (!waitRoom.hears(key, placement.perLock() / 2 + 1)) {
                return config.retryDelay().toNanos();
            }
        }
        return handOverWindowNanos / 3;
    }

    /** The wait room's timer and its way to take this client's place out of a hand-over queue. */
    private WaitRoom.Hooks roomHooks() {
        long window = handOverWindowNanos;
        return new WaitRoom.Hooks() {
            @Override
            public boolean later(Runnable task, long delayNanos) {
                return !closed && schedule(task, delayNanos) != null;
            }

            @Override
            public void leave(LockRef ref) {
                if (!closed) {
                    acquisitions.sendLeave(ref.leavingPlaceAt(-ref.shape().order()));
                }
            }

            @Override
            public void leaveAny(String key) {
                if (!closed) {
                    acquisitions.sendLeave(new LockRef(key, key, dev.redlock.QuorumPolicy.MAJORITY)
                            .handOver(TimeUnit.NANOSECONDS.toMillis(window))
                            .begin(waitRoom.clientId, 0)
                            .handingOver(0));
                }
            }

            @Override
            public long windowNanos() {
                return window;
            }

            @Override
            public java.util.Set<String> nodesOf(String key) {
                return placement.partial()
                        ? java.util.Set.copyOf(placement.of(key).names())
                        : null;
            }
        };
    }

    /**
     * Wakes waiters on the nodes' release notifications as well as on this client's own releases (when release
     * notifications are on). Call once, before the first acquisition.
     *
     * @param source the node clients ({@link NodeClients}), or a simulation's nodes
     */
    public void listen(Subscriptions.Source source) {
        if (waitRoom != null) {
            subscriptions = source.listen(waitRoom::heard);
        }
    }

    /**
     * Lets blocking callers wait for their rounds as {@code parking} says: with {@link NodeClients#parking}, a caller
     * alone reads its round's replies itself. Call before the first acquisition; plain parking otherwise.
     */
    public void drivenBy(dev.redlock.internal.node.Parking parking) {
        this.parking = parking;
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

    /**
     * The names of the nodes the lock with key {@code key} uses: every node, or with {@code nodesPerLock} below the
     * node count, the lock's own, in configuration order.
     */
    public List<String> nodeNamesOf(String key) {
        return placement.of(key).names();
    }

    /** Acquires on the caller's thread; see {@link Acquisitions#acquire}. */
    public AcquireResult acquire(
            LockRef lock, long ttlMillis, long waitNanos, boolean interruptible, boolean autoExtend)
            throws InterruptedException {
        checkPlacedTogether(lock);
        return acquisitions.acquire(lock, ttlMillis, waitNanos, interruptible, autoExtend);
    }

    /** Acquires without blocking the caller; see {@link Acquisitions#acquireAsync}. */
    public CompletableFuture<AcquireResult> acquireAsync(
            LockRef ref, long ttlMillis, long waitNanos, boolean autoExtend) {
        checkPlacedTogether(ref);
        return acquisitions.acquireAsync(ref, ttlMillis, waitNanos, autoExtend);
    }

    /**
     * A multi-resource lock sets every resource's key where its first key lives: with each lock on its own nodes,
     * that excludes the resources' own locks only if they live there too.
     *
     * @throws IllegalArgumentException if a resource of {@code ref} is placed on other nodes than its first
     */
    private void checkPlacedTogether(LockRef ref) {
        if (!placement.partial() || ref.kind() != LockRef.Kind.MULTI) {
            return;
        }
        int[] first = placement.indices(ref.key());
        for (String key : ref.shape().resources()) {
            if (!java.util.Arrays.equals(first, placement.indices(key))) {
                throw new IllegalArgumentException("a lock over several resources needs them on the same nodes, but "
                        + key + " is placed on other nodes than " + ref.key());
            }
        }
    }

    /**
     * Which of {@code ids} (the nodes' placement ids: their names, or a cluster node's slot) a lock with key {@code
     * key} uses when each lock uses {@code perLock} of them: their indices, ascending. What every client computes; a
     * simulation uses it to choose names that share nodes.
     */
    public static int[] placement(String key, List<String> ids, int perLock) {
        return new Placement(List.of(), ids, ids, perLock).indices(key);
    }

    /**
     * Sends one command to every node at once, {@code opFor(i)} to node {@code i} (null: none, the round has that
     * node's answer already), and ends the round's submission: from then on it decides as soon as its votes do.
     */
    void fanOut(Round round, java.util.function.IntFunction<NodeOp> opFor) {
        Placement.Nodes at = round.at() == null ? placement.all() : round.at();
        for (int i = 0; i < at.size(); i++) {
            NodeOp op = opFor.apply(i);
            if (op != null) {
                at.client(i).submit(op);
            }
        }
        round.endSubmit();
    }

    /** Reads of lock keys on every node, and the admin's forced delete. */
    public Inspection inspection() {
        return inspection;
    }

    final List<RedlockListener> listeners;

    /**
     * Tells every listener (often on a node's I/O thread): one that throws, an exception or an assertion, is logged
     * and skipped, so that no outcome depends on a listener and no round's decision stops at one.
     */
    void tell(java.util.function.Consumer<RedlockListener> event) {
        for (RedlockListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                LOG.warn("a RedlockListener ({}) failed", l.getClass().getName(), e);
            }
        }
    }

    /** How many leases of this client are held: handed out, neither released nor lost, and still valid. */
    public int activeLeases() {
        return leases.held();
    }

    /**
     * Validates a per-call lease time and returns it in milliseconds: it must leave validity even for a round that
     * takes the whole per-node timeout, as {@link RedlockConfig.Builder#build()} checks for the default.
     */
    public long checkLeaseTime(java.time.Duration leaseTime) {
        java.util.Objects.requireNonNull(leaseTime, "leaseTime");
        RedlockConfig.checkLeaseTime(
                "leaseTime", leaseTime, config.perNodeTimeout(), config.driftFactor(), config.minValidity());
        return leaseTime.toMillis();
    }

    /** Runs {@code task} on the scheduler after {@code delayNanos}; null if the client is closed (it never runs). */
    public ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** For tests and diagnostics: how many leases the watchdog keeps. */
    public int autoExtendedLeases() {
        return watchdog.activeCount();
    }

    void ensureOpen() {
        if (closed) {
            throw closedException();
        }
    }

    static IllegalStateException closedException() {
        return new IllegalStateException("the Redlock client is closed");
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Runs {@code listener} once when the client closes, on the closing thread; at once (on this thread) if it is
     * closed already. It must not block.
     *
     * @return false if the client was closed already (the listener has run)
     */
    public boolean onClose(Runnable listener) {
        return closeListeners.add(listener, () -> closed);
    }

    /** Forgets a listener given to {@link #onClose}; it will not run. */
    public void removeCloseListener(Runnable listener) {
        closeListeners.remove(listener);
    }

    /** Stops accepting work; queued releases are flushed by each node within its grace period. */
    @Override
    public void close() {
        if (waitRoom != null) {
            waitRoom.closeLingering(); // before closed is set: those leaves still go out
        }
        closed = true;
        // Before the nodes close (they still send releases while closing): a fair waiter or a preferred writer of a
        // closed client must not hold the others up until its place expires.
        acquisitions.leaveQueues();
        closeListeners.runAll();
        acquisitions.failSleeping();
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
