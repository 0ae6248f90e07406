/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.MultiResourceChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One seeded run: five simulated Redis masters (in the cluster configurations, the masters that own five hash slots of
 * one Redis Cluster), clients each running the real engine (subscribed to the nodes' release
 * notifications where the configuration says so), a workload under faults drawn from the seed, then every fault
 * healed and a liveness probe. The lock family's workload: three clients, RedLock and MultiLock acquisitions and the
 * lock family's other kinds (a fair lock; a read-write lock's readers, writers with and without preference, and
 * readers let in by their own write lease; multi-resource locks over overlapping sets of names, which overlap the plain
 * locks of those names too), fenced and plain, watchdog on and off, extensions longer and shorter, releases, abandoned
 * leases, cancellations. The one-lock workload: four clients with three acquisitions in flight each, all for one
 * RedLock or one fair lock. The run's history goes to the chaos suite's checkers (mutual exclusion, fencing, exclusion
 * per resource), plus the simulation's own: read-write exclusion (readers inside their own write lease allowed), the
 * fair lock's grant order, orphaned keys and leaked keys.
 *
 * <p>Everything comes from the seed, so {@link #run} with the same configuration and seed replays exactly.
 */
// The simulated clients fire operations and record their outcomes from callbacks into the history; nothing waits on
// the futures those calls return.
@SuppressWarnings("FutureReturnValueIgnored")
public final class Simulation {

    /** How many nodes the run has (five unless each lock uses some of them). */
    private final int nodeCount;

    static final double DRIFT_FACTOR = 0.01;
    static final long PER_NODE_TIMEOUT_MS = 20;
    static final long ACTIVE_MS = 2_500;
    static final String PREFIX = "sim:";
    /**
     * How long a fair waiter's place (or a preferred writer's entry) lasts after its last attempt: what
     * {@code RedlockClient.queueWindow()} gives for this configuration (30 retry delays of at most 45 ms, at least 5 s).
     */
    static final long QUEUE_WINDOW_MS = 5_000;
    /** A client's place in a RedLock's hand-over queue lasts this long without an attempt (the client's least). */
    static final long HAND_OVER_WINDOW_MS = 1_000;
    /**
     * The longest TTL any client uses, for an acquisition or an extension, and so every client's configured lease
     * time: restart protection sits a node out for the longest TTL its own client has used, so a client that only
     * ever used shorter ones would let a node that lost another client's longer key vote too early (the README's
     * known limits).
     */
    static final long MAX_TTL_MS = 800;

    private static final long MS = 1_000_000L;
    private static final long EPOCH_MICROS = 1_700_000_000_000_000L;

    /**
     * What one run found.
     *
     * @param leasesByKind how many leases each kind of lock granted (plain, multi, fair, read, write)
     * @param notifications how many release notifications the clients' subscribers handed to their engines
     * @param acquireScripts how many acquire scripts the nodes ran (a round runs one on each node it reaches)
     * @param failovers how many times a node's replica was promoted
     * @param lostWrites how many writes the promoted replicas had not received
     * @param slotMoves how many times a node's cluster slot moved to another master
     * @param keylessMoves how many of those moves left the slot's keys behind
     * @param keysLeftBehind how many keys the moves without keys left behind
     * @param redirects how many commands a node answered with {@code ASK} or {@code MOVED} instead of running them
     */
    public record Result(
            SimConfig config,
            long seed,
            List<String> violations,
            List<CheckResult> checks,
            int acquisitions,
            long events,
            long simulatedNanos,
            Map<String, Integer> leasesByKind,
            long notifications,
            long acquireScripts,
            long failovers,
            long lostWrites,
            long slotMoves,
            long keylessMoves,
            long keysLeftBehind,
            long redirects) {

        /** Whether no checker found a violation. */
        public boolean ok() {
            return violations.isEmpty();
        }
    }

    /** How a slot's leases hold their lock: alone, or as a read-write lock's reader or writer. */
    private enum Role {
        EXCLUSIVE,
        READ,
        WRITE
    }

    /** One lock of the workload and how its leases hold it. */
    private record Slot(LockRef ref, Role role) {}

    private final SimConfig config;
    private final long seed;
    private final SimWorld world;
    private final SplittableRandom random;
    private final SimNetwork net;
    private final List<SimRedis> servers = new ArrayList<>();
    private final List<Client> clients = new ArrayList<>();
    /** The slots a cycle picks from (a slot listed twice is picked twice as often). */
    private final List<Slot> slots = new ArrayList<>();
    /** One slot per lock and role, probed in turn once the faults are healed. */
    private final List<Slot> probes = new ArrayList<>();
    /** The resources of each multi-resource lock, by lock name (any other lock holds its own name). */
    private final Map<String, List<String>> resources = new HashMap<>();

    private final List<Track> tracks = new ArrayList<>();
    private final List<Track> active = new ArrayList<>();
    /** Exclusive leases: every kind but readers. */
    private final History history = new History();
    /** Readers' and writers' leases of the read-write lock. */
    private final List<ReadWriteExclusionChecker.Hold> readWrite = new ArrayList<>();
    /** The fair lock's acquisitions, as they end; and what its nodes ran for them. */
    private final List<FairAttempt> fairAttempts = new ArrayList<>();

    private final List<FairOrderChecker.Placement> placements = new ArrayList<>();
    private final List<FairOrderChecker.Leave> leaves = new ArrayList<>();
    private final Map<String, Integer> leasesByKind = new TreeMap<>();
    private final List<String> violations = new ArrayList<>();
    private final long activeEnd = ACTIVE_MS * MS;
    private int acquisitions;
    private long acquireScripts;
    private boolean probed;
    private Slot lastPicked;
    private String fairKey;

    /**
     * A client's wall clock (which only orders a fair lock's waiters): world time on the client's drifting clock plus
     * a skew of a few milliseconds, in microseconds, and strictly increasing so that each acquisition that reads it
     * gets the reading as its place (the engine keeps places distinct within a client the same way).
     */
    private static final class WallClock extends java.time.Clock {
        private final SimProcess process;
        private final long skewMicros;
        private long lastMicros;

        WallClock(SimProcess process, long skewMicros) {
            this.process = process;
            this.skewMicros = skewMicros;
        }

        @Override
        public java.time.Instant instant() {
            long micros = EPOCH_MICROS + skewMicros + (long) (process.world().now() * process.rate()) / 1_000;
            lastMicros = Math.max(lastMicros + 1, micros);
            return java.time.Instant.ofEpochSecond(lastMicros / 1_000_000, lastMicros % 1_000_000 * 1_000);
        }

        /** The last reading, in microseconds. */
        long lastMicros() {
            return lastMicros;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    /**
     * One simulated client JVM: its clock, its scheduler, its real engine, and a subscriber per node for its release
     * notifications.
     */
    private final class Client {
        final int index;
        final SimProcess process;
        final WallClock wall;
        final SimScheduler scheduler;
        final QuorumEngine engine;
        final List<SimSubscriber> subscribers = new ArrayList<>();

        Client(int index) {
            this(index, Duration.ofMillis(30), config.notifications());
        }

        /**
         * @param retryDelay the engine's delay between rounds of a waiting acquisition
         * @param notifications whether the client subscribes to the nodes' release notifications (off: its waiters
         *     poll, as they do while every subscription is down)
         */
        Client(int index, Duration retryDelay, boolean notifications) {
            this.index = index;
            this.process = new SimProcess(world, "c" + index, rate(), random.nextLong(1L << 40));
            this.wall = new WallClock(process, world.between(-30_000, 30_000));
            this.scheduler = new SimScheduler(process);
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                uris.add("redis://n" + i + ":6379");
            }
            RedlockConfig rc = RedlockConfig.builder()
                    .nodes(uris)
                    .leaseTime(Duration.ofMillis(MAX_TTL_MS))
                    .perNodeTimeout(Duration.ofMillis(PER_NODE_TIMEOUT_MS))
                    .connectTimeout(Duration.ofMillis(100))
                    .retryDelay(retryDelay)
                    .retryJitter(0.5)
                    .driftFactor(DRIFT_FACTOR)
                    .circuitOpenDuration(Duration.ofMillis(200))
                    // Scaled down with the other timings: a silent subscriber connection is found within the run.
                    .identityCheckInterval(Duration.ofMillis(500))
                    .minValidity(Duration.ofMillis(5))
                    .keyPrefix(PREFIX)
                    .restartQuarantine(config.quarantine())
                    .nodesPerLock(config.mixedPlacement() && index % 2 == 1 ? 0 : config.nodesPerLock())
                    .trustPersistentNodes(config.trustPersistent())
                    .checkTopology(false)
                    .ticker(process::clockNanos)
                    .wallClock(wall)
                    .asyncExecutor(task -> process.afterClock(0, task))
                    .build();
            SplittableRandom own = random.split();
            Quarantine quarantine = SimEngine.quarantine(rc, own);
            List<NodeClient> nodes = new ArrayList<>();
            List<BooleanSupplier> reachable = new ArrayList<>();
            for (int i = 0; i < nodeCount; i++) {
                SimRedis s = servers.get(i);
                SimNodeClient client =
                        new SimNodeClient(rc.nodeNames().get(i), rc, quarantine, process, index, s, i, net);
                client.listen(Simulation.this::ran);
                nodes.add(client);
                int node = i;
                reachable.add(() -> !s.down() && !s.paused() && !net.isCut(index, node));
            }
            this.engine = SimEngine.engine(rc, nodes, scheduler, quarantine, own, process, servers, reachable);
            if (notifications) {
                engine.listen(onRelease -> {
                    for (int i = 0; i < nodeCount; i++) {
                        subscribers.add(new SimSubscriber(
                                rc.nodeNames().get(i), rc, process, index, servers.get(i), i, net, onRelease));
                    }
                    return SimSubscriber.fanOut(subscribers);
                });
            }
        }

        /** How many release notifications this client's subscribers handed to its engine. */
        long notifications() {
            return subscribers.stream().mapToLong(SimSubscriber::messages).sum();
        }

        void close() {
            engine.close();
            scheduler.shutdown();
            subscribers.forEach(SimSubscriber::close);
        }
    }

    /** One lease as its holder sees it: the windows in which it considered itself valid. */
    private final class Track {
        final Client client;
        final LockRef ref;
        final Role role;
        final long invoke;
        final Lease lease;
        /** A reader let in by its own write lease: that lease's token; null otherwise. */
        final String admittedBy;

        long openedAt = -1;
        long lastDeadline;
        boolean first = true;
        /** Set when the holder starts its release. */
        boolean released;

        Track(Client client, Slot slot, long invoke, Lease lease, String admittedBy) {
            this.client = client;
            this.ref = slot.ref();
            this.role = slot.role();
            this.invoke = invoke;
            this.lease = lease;
            this.admittedBy = admittedBy;
            this.lastDeadline = lease.deadlineNanos();
            tracks.add(this);
            active.add(this);
            leasesByKind.merge(admittedBy != null ? "read (downgrade)" : kindOf(slot), 1, Integer::sum);
            observe(world.now());
        }

        /** Looks at the lease after an event: opens or closes a validity window. */
        boolean observe(long now) {
            boolean valid = lease.isValid();
            long deadline = lease.deadlineNanos();
            if (valid && openedAt < 0) {
                openedAt = now;
            } else if (!valid && openedAt >= 0) {
                // Expired by its own clock since the last event, at a deadline that did not move: the window ends
                // there. Otherwise (released, lost, or a deadline cut into the past) it ends now.
                long end = deadline == lastDeadline && isHeld() ? client.process.worldTimeOf(deadline) : now;
                close(Math.min(end, now));
            }
            lastDeadline = deadline;
            return openedAt >= 0 || isHeld();
        }

        private boolean isHeld() {
            return !released && lease.lossCause().isEmpty();
        }

        void close(long end) {
            if (openedAt < 0) {
                return;
            }
            long token = first ? lease.fencingToken().orElse(Op.NONE) : Op.NONE;
            Op op = Op.builder()
                    .client(client.index)
                    .lock(ref.name())
                    .kind(opKind(ref))
                    .resources(resources.getOrDefault(ref.name(), List.of()))
                    .invokeNanos(Math.min(invoke, openedAt))
                    .completeNanos(openedAt)
                    .outcome(Op.Outcome.OK)
                    .token(lease.token().substring(0, 8))
                    .deadlineNanos(Math.max(end, openedAt))
                    .fencingToken(token)
                    .build();
            if (role != Role.READ) {
                history.add(op);
            }
            if (role != Role.EXCLUSIVE) {
                readWrite.add(new ReadWriteExclusionChecker.Hold(op, role == Role.WRITE, lease.token(), admittedBy));
            }
            first = false;
            openedAt = -1;
        }
    }

    /** One acquisition of the fair lock, filled in as it ends. */
    private static final class FairAttempt {
        final int client;
        final long order;
        final long invoke;
        final long ttlMillis;
        long complete = Long.MAX_VALUE;
        long roundStart = -1;
        long grantedAt = -1;

        FairAttempt(int client, long order, long invoke, long ttlMillis) {
            this.client = client;
            this.order = order;
            this.invoke = invoke;
            this.ttlMillis = ttlMillis;
        }

        FairOrderChecker.Acquisition done() {
            return new FairOrderChecker.Acquisition(client, order, invoke, complete, roundStart, grantedAt, ttlMillis);
        }
    }

    private Simulation(SimConfig config, long seed) {
        this.config = config;
        this.nodeCount = config.nodes();
        this.seed = seed;
        this.world = new SimWorld(seed);
        this.random = world.random();
        this.net = new SimNetwork(world, config.workload().clients(), nodeCount);
    }

    /** Runs one seed of {@code config}. */
    public static Result run(SimConfig config, long seed) {
        return run(config, seed, null);
    }

    /** Runs one seed of {@code config}, sending a trace of every message and fault to {@code trace} (or none). */
    public static Result run(SimConfig config, long seed, java.util.function.Consumer<String> trace) {
        Simulation sim = new Simulation(config, seed);
        sim.world.trace(trace);
        try {
            return sim.run();
        } catch (RuntimeException | AssertionError e) {
            // A throw out of an event is a failure of this seed (the engine's or the simulator's), never of the run.
            java.io.StringWriter stack = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(stack));
            String top = stack.toString().lines().limit(12).collect(java.util.stream.Collectors.joining("\n      "));
            return new Result(
                    config,
                    seed,
                    List.of("error at " + ms(sim.world.now()) + " ms: " + top),
                    List.of(),
                    sim.acquisitions,
                    sim.world.executed(),
                    sim.world.now(),
                    Map.copyOf(sim.leasesByKind),
                    sim.notifications(),
                    sim.acquireScripts,
                    sim.failovers(),
                    sim.lostWrites(),
                    sim.sum(SimRedis::slotMoves),
                    sim.sum(SimRedis::keylessMoves),
                    sim.sum(SimRedis::keysLeftBehind),
                    sim.sum(SimRedis::redirects));
        }
    }

    /**
     * One hand-off between clients, without faults: how long after a holder's release call the waiter of another
     * client got the lock, and how many release notifications the clients' subscribers handed to their engines.
     */
    record HandOff(long nanos, long notifications) {}

    /**
     * Client 0 takes a RedLock (or a fair lock) for 100 ms; client 1 starts waiting for it 20 ms later with a 1 s
     * retry delay, so after its first refused round it polls again only when the holder's key would have expired
     * (about 800 ms later). With notifications on, the release's message wakes it at once. No faults.
     */
    static HandOff handOff(long seed, boolean fair, boolean notifications) {
        return handOff(seed, fair, notifications, null);
    }

    /** {@link #handOff(long, boolean, boolean)}, sending a trace of every message to {@code trace} (or none). */
    static HandOff handOff(long seed, boolean fair, boolean notifications, java.util.function.Consumer<String> trace) {
        Simulation sim = new Simulation(SimConfig.FAULTS, seed);
        sim.world.trace(trace);
        return sim.runHandOff(fair, notifications);
    }

    private HandOff runHandOff(boolean fair, boolean notifications) {
        for (int i = 0; i < nodeCount; i++) {
            servers.add(new SimRedis(world, "n" + i, rate(), random.nextLong(1L << 40), false));
        }
        Duration retry = Duration.ofSeconds(1);
        Client holder = new Client(0, retry, notifications);
        Client waiter = new Client(1, retry, notifications);
        clients.addAll(List.of(holder, waiter));
        LockRef ref = fair
                ? LockRef.fair("f", LockRef.keyOf(PREFIX, "f"), QuorumPolicy.MAJORITY, QUEUE_WINDOW_MS)
                : new LockRef("a", LockRef.keyOf(PREFIX, "a"), QuorumPolicy.MAJORITY, false)
                        .handOver(notifications ? HAND_OVER_WINDOW_MS : 0);
        long[] released = {-1};
        long[] granted = {-1};
        // A round on another lock connects each client to every node; a client that first meets a node cannot know
        // what it lost before, and does not count its votes for the longest TTL (restart protection). Then the test.
        LockRef warmUp = new LockRef("w", LockRef.keyOf(PREFIX, "w"), QuorumPolicy.MAJORITY, false);
        holder.engine.acquireAsync(warmUp, MAX_TTL_MS, 0, false);
        waiter.engine.acquireAsync(warmUp, MAX_TTL_MS, 0, false);
        long start = 2 * MAX_TTL_MS * MS;
        holder.process.afterClock(
                start,
                () -> holder.engine.acquireAsync(ref, MAX_TTL_MS, 0, false).thenAccept(r -> {
                    Lease lease = r.lease().orElseThrow();
                    holder.process.afterClock(100 * MS, () -> {
                        released[0] = world.now();
                        lease.releaseAsync();
                    });
                }));
        waiter.process.afterClock(
                start + 20 * MS,
                () -> waiter.engine
                        .acquireAsync(ref, MAX_TTL_MS, 3_000 * MS, false)
                        .thenAccept(r -> {
                            if (r.acquired()) {
                                granted[0] = world.now();
                            }
                        }));
        world.runUntil(start + 4_000 * MS);
        for (Client c : clients) {
            c.close();
        }
        return new HandOff(
                released[0] < 0 || granted[0] < 0 ? Long.MAX_VALUE : granted[0] - released[0], notifications());
    }

    /**
     * What a cluster slot move did to a lock held across it.
     *
     * @param held whether client 0 got the lock before the move
     * @param secondHolder whether client 1 got it while client 0's lease was still valid
     * @param askReplies how many commands the moving slot's master answered {@code ASK}
     * @param movedReplies how many commands the slot's old master answered {@code MOVED} after the move
     */
    record SlotMove(boolean held, boolean secondHolder, long askReplies, long movedReplies) {}

    /**
     * No faults but one slot move. Client 0, cut off from n3 and n4, takes lock a on n0, n1 and n2 for 800 ms; 50 ms
     * later n0's cluster slot starts moving to another master, with its keys or without, and has moved 50 ms after
     * that; 10 ms into the move client 1, which reaches every node, starts trying for the lock for up to 500 ms. Its
     * first rounds get {@code ASK} from n0, the first after the move {@code MOVED} on its old connection; then a new
     * connection reaches the new owner. Without the keys, n0, n3 and n4 are a quorum that never saw client 0's lease:
     * only restart protection (a new run_id at n0's address, a new incarnation marker) keeps client 1 out.
     */
    static SlotMove slotMove(long seed, boolean withKeys, boolean quarantine) {
        Simulation sim = new Simulation(quarantine ? SimConfig.CLUSTER : SimConfig.CLUSTER_NO_QUARANTINE, seed);
        return sim.runSlotMove(withKeys);
    }

    private SlotMove runSlotMove(boolean withKeys) {
        for (int i = 0; i < nodeCount; i++) {
            servers.add(new SimRedis(world, "n" + i, rate(), random.nextLong(1L << 40), false));
        }
        Client holder = new Client(0);
        Client other = new Client(1);
        clients.addAll(List.of(holder, other));
        // A first round connects each client to every node, and restart protection's first sight of a node passes.
        LockRef warmUp = new LockRef("w", LockRef.keyOf(PREFIX, "w"), QuorumPolicy.MAJORITY, false);
        holder.engine.acquireAsync(warmUp, MAX_TTL_MS, 0, false);
        other.engine.acquireAsync(warmUp, MAX_TTL_MS, 0, false);
        LockRef ref = new LockRef("a", LockRef.keyOf(PREFIX, "a"), QuorumPolicy.MAJORITY, false);
        long start = 2 * MAX_TTL_MS * MS;
        Lease[] held = {null};
        boolean[] second = {false};
        world.after(start, () -> {
            net.setCut(0, 3, true);
            net.setCut(0, 4, true);
            holder.engine
                    .acquireAsync(ref, MAX_TTL_MS, 0, false)
                    .thenAccept(r -> held[0] = r.lease().orElse(null));
        });
        SimRedis moving = servers.get(0);
        world.after(start + 50 * MS, () -> moving.beginSlotMove(withKeys));
        world.after(start + 100 * MS, () -> moving.completeSlotMove(withKeys, 600_000 * MS));
        world.after(
                start + 60 * MS,
                () -> other.engine
                        .acquireAsync(ref, MAX_TTL_MS, 500 * MS, false)
                        .thenAccept(r -> {
                            second[0] = r.acquired() && held[0] != null && held[0].isValid();
                        }));
        world.runUntil(start + 1_500 * MS);
        for (Client c : clients) {
            c.close();
        }
        return new SlotMove(held[0] != null, second[0], moving.askReplies(), moving.movedReplies());
    }

    private long failovers() {
        return servers.stream().mapToLong(SimRedis::failovers).sum();
    }

    private long lostWrites() {
        return servers.stream().mapToLong(SimRedis::lostWrites).sum();
    }

    private long sum(java.util.function.ToLongFunction<SimRedis> count) {
        return servers.stream().mapToLong(count).sum();
    }

    private long notifications() {
        return clients.stream().mapToLong(Client::notifications).sum();
    }

    private double rate() {
        double spread = config.driftOutside() ? 5 * DRIFT_FACTOR : 0.45 * DRIFT_FACTOR;
        return 1 + (random.nextDouble() * 2 - 1) * spread;
    }

    private Result run() {
        boolean[] persistent = new boolean[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            persistent[i] = world.chance(config.trustPersistent() ? 0.6 : 0.2);
            servers.add(new SimRedis(world, "n" + i, rate(), random.nextLong(1L << 40), persistent[i]));
        }
        for (int c = 0; c < config.workload().clients(); c++) {
            clients.add(new Client(c));
        }
        if (config.failover()) {
            // Each master's replica: in half the seeds close behind (well under a millisecond), in the others
            // milliseconds to tens of milliseconds behind, as a busy link or a replica far away would be.
            for (SimRedis s : servers) {
                long lag = world.chance(0.5) ? world.between(20_000, 500_000) : world.between(1, 40) * MS;
                s.replicate(lag, world.between(60, 3_600) * 1_000 * MS);
            }
        }
        defineLocks();
        world.afterEach(this::observe);

        scheduleFaults();
        for (Client c : clients) {
            for (int t = 0; t < config.workload().threads(); t++) {
                c.process.afterClock(world.between(0, 20 * MS), () -> cycle(c));
            }
        }
        world.runUntil(activeEnd);
        heal();
        // Quiet: longer than the longest lease plus the quarantine window and an open circuit breaker.
        long quiet = 2_500 * MS;
        world.runUntil(world.now() + quiet);
        liveness(0);
        // Each probe waits at most its budget; then, long after the last lease, whatever a lease left must be gone.
        long probesEnd = world.now() + probes.size() * (3_000 + QUEUE_WINDOW_MS) * MS;
        while (!probed && world.now() < probesEnd) {
            world.runUntil(world.now() + 100 * MS);
        }
        world.runUntil(world.now() + Math.max(8_000, QUEUE_WINDOW_MS + 3_000) * MS);
        finish();
        return new Result(
                config,
                seed,
                List.copyOf(violations),
                checks,
                acquisitions,
                world.executed(),
                world.now(),
                Map.copyOf(leasesByKind),
                notifications(),
                acquireScripts,
                failovers(),
                lostWrites(),
                sum(SimRedis::slotMoves),
                sum(SimRedis::keylessMoves),
                sum(SimRedis::keysLeftBehind),
                sum(SimRedis::redirects));
    }

    /**
     * The workload's locks: plain locks a, b (fenced) and c (every node), a fair lock, a read-write lock, and
     * multi-resource locks whose sets overlap each other and the plain locks a and b (a multi-resource lock's
     * resource is the key of the plain lock of that name).
     */
    private void defineLocks() {
        if (config.workload() == SimConfig.Workload.ONE_LOCK) {
            defineOneLock();
            return;
        }
        // With each lock on some of the nodes, a multi-resource lock's names must share the nodes of its first: the
        // names b, m and n become the first of b, b1, b2, ... (and so on) placed with a.
        String bName = besideA("b");
        String mName = besideA("m");
        String nName = besideA("n");
        Slot a = new Slot(new LockRef("a", LockRef.keyOf(PREFIX, "a"), QuorumPolicy.MAJORITY, false), Role.EXCLUSIVE);
        Slot b =
                new Slot(new LockRef(bName, LockRef.keyOf(PREFIX, bName), QuorumPolicy.MAJORITY, true), Role.EXCLUSIVE);
        Slot c = new Slot(
                new LockRef("c", LockRef.keyOf(PREFIX, "c"), QuorumPolicy.ALL, world.chance(0.5)), Role.EXCLUSIVE);
        fairKey = LockRef.keyOf(PREFIX, "f");
        Slot fair = new Slot(
                LockRef.fair("f", fairKey, QuorumPolicy.MAJORITY, QUEUE_WINDOW_MS)
                        .withFencing(world.chance(0.5)),
                Role.EXCLUSIVE);
        String rwKey = LockRef.keyOf(PREFIX, "rw");
        boolean fencedWriters = world.chance(0.5);
        // With notifications, as a client's read-write lock is: waiting writers stand in a line, whose head a release
        // names.
        long line = config.notifications() ? HAND_OVER_WINDOW_MS : 0;
        Slot reader = readWriteSlot(rwKey, false, 0, line, false);
        Slot writer = readWriteSlot(rwKey, true, 0, line, fencedWriters);
        Slot preferred = readWriteSlot(rwKey, true, QUEUE_WINDOW_MS, line, fencedWriters);
        Slot m1 = multi("a", mName);
        Slot m2 = multi(mName, nName);
        Slot m3 = multi("a", bName, nName);
        slots.addAll(List.of(a, b, c, fair, fair, reader, reader, reader, writer, preferred, m1, m2, m3));
        probes.addAll(List.of(a, b, c, fair, reader, writer, preferred, m1, m2, m3));
    }

    /**
     * Read-write lock "rw"'s reader or writer: {@code window} > 0 prefers writers, {@code line} > 0 lines them up (as
     * with notifications), {@code fenced} fences a writer.
     */
    private static Slot readWriteSlot(String key, boolean writer, long window, long line, boolean fenced) {
        return new Slot(
                LockRef.readWrite("rw", key, QuorumPolicy.MAJORITY, writer, window)
                        .lined(line)
                        .withFencing(fenced),
                writer ? Role.WRITE : Role.READ);
    }

    /**
     * The one-lock workload's lock: a RedLock, a fair lock, or a read-write lock (three writers to a reader: with
     * notifications, its writers stand in the writers' line, which names the next one at each release), each fenced
     * in half the seeds (a read-write lock's writers).
     */
    private void defineOneLock() {
        boolean fenced = world.chance(0.5);
        Slot one;
        if (world.chance(1.0 / 3)) {
            // With notifications, as a client's redLock(name) is: its waiters queue for the hand-over.
            one = new Slot(
                    new LockRef("a", LockRef.keyOf(PREFIX, "a"), QuorumPolicy.MAJORITY, fenced)
                            .handOver(config.notifications() ? HAND_OVER_WINDOW_MS : 0),
                    Role.EXCLUSIVE);
        } else if (world.chance(0.5)) {
            fairKey = LockRef.keyOf(PREFIX, "f");
            one = new Slot(
                    LockRef.fair("f", fairKey, QuorumPolicy.MAJORITY, QUEUE_WINDOW_MS)
                            .withFencing(fenced),
                    Role.EXCLUSIVE);
        } else {
            String rwKey = LockRef.keyOf(PREFIX, "rw");
            long line = config.notifications() ? HAND_OVER_WINDOW_MS : 0;
            Slot writer = readWriteSlot(rwKey, true, 0, line, fenced);
            Slot reader = readWriteSlot(rwKey, false, 0, line, false);
            slots.addAll(List.of(writer, writer, writer, reader));
            probes.addAll(List.of(writer, reader));
            return;
        }
        slots.add(one);
        probes.add(one);
    }

    /** {@code base}, or with each lock on some nodes the first of base, base1, base2, ... placed with lock a. */
    private String besideA(String base) {
        if (config.nodesPerLock() == 0) {
            return base;
        }
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            ids.add("n" + i + ":6379");
        }
        int[] nodesOfA = QuorumEngine.placement(LockRef.keyOf(PREFIX, "a"), ids, config.nodesPerLock());
        for (int k = 0; ; k++) {
            String name = k == 0 ? base : base + k;
            if (java.util.Arrays.equals(
                    nodesOfA, QuorumEngine.placement(LockRef.keyOf(PREFIX, name), ids, config.nodesPerLock()))) {
                return name;
            }
        }
    }

    private Slot multi(String... names) {
        java.util.TreeSet<String> sorted = new java.util.TreeSet<>(List.of(names));
        List<String> keys = new ArrayList<>();
        for (String n : sorted) {
            keys.add(LockRef.keyOf(PREFIX, n));
        }
        keys.sort(null);
        String name = sorted.toString();
        resources.put(name, List.copyOf(sorted));
        return new Slot(LockRef.multi(name, keys, QuorumPolicy.MAJORITY), Role.EXCLUSIVE);
    }

    /** The kind of lock an op asked for, as the chaos suite's history names it. */
    private static Op.Kind opKind(LockRef ref) {
        switch (ref.kind()) {
            case MULTI:
                return Op.Kind.MULTI;
            case READ:
                return Op.Kind.READ;
            case WRITE:
                return Op.Kind.WRITE;
            case FAIR:
                return Op.Kind.FAIR;
            default:
                return Op.Kind.LOCK;
        }
    }

    private static String kindOf(Slot slot) {
        switch (slot.ref().kind()) {
            case PLAIN:
                return "plain";
            case MULTI:
                return "multi";
            case FAIR:
                return "fair";
            case READ:
                return "read";
            default:
                return slot.ref().shape().windowMillis() > 0 ? "write (preferred)" : "write";
        }
    }

    /** A node ran a script for a client: the fair lock's places and leaves, as the nodes saw them. */
    private void ran(int client, int node, String script, List<String> keys, List<String> argv, Object reply) {
        if (script.equals("acquire.lua")) {
            acquireScripts++;
        }
        if (keys.isEmpty() || !keys.get(0).equals(fairKey) || argv.size() < 3) {
            return;
        }
        String[] spec = argv.get(2).split(" ");
        if (script.equals("acquire.lua") && spec.length >= 5 && spec[1].equals("f")) {
            Object first = reply instanceof List ? ((List<?>) reply).get(0) : reply;
            placements.add(new FairOrderChecker.Placement(
                    client,
                    node,
                    Long.parseLong(spec[2]),
                    spec[3],
                    world.now(),
                    Long.valueOf(1).equals(first)));
            carried(client, node, spec, 5);
        } else if (script.equals("release.lua") && spec.length >= 3 && spec[0].equals("f")) {
            if (spec.length > 3 && !spec[2].equals("-")) {
                carried(client, node, spec, 4); // taken before the leaver's place goes
            }
            leaves.add(new FairOrderChecker.Leave(node, spec[2], world.now()));
        }
    }

    /** The places a fair message carried for newer waiters of its client: words {@code <order> <id>} from {@code at}. */
    private void carried(int client, int node, String[] spec, int at) {
        for (int i = at; i + 1 < spec.length; i += 2) {
            placements.add(new FairOrderChecker.Placement(
                    client, node, Long.parseLong(spec[i]), spec[i + 1], world.now(), false));
        }
    }

    private List<CheckResult> checks = List.of();

    // ------------------------------------------------------------------------------------------------ workload

    /**
     * Starts an acquisition of {@code ref} (the lock of {@code slot}, or a reader of it let in by a write lease) and
     * hands its lease's {@link Track} to {@code done} (null if not acquired), after recording the outcome: a failure
     * in the history, a lease as a track, a fair acquisition for the order check.
     */
    private CompletableFuture<AcquireResult> acquire(
            Client c,
            Slot slot,
            LockRef ref,
            long ttl,
            long wait,
            boolean auto,
            String admittedBy,
            java.util.function.Consumer<Track> done) {
        long invoke = world.now();
        CompletableFuture<AcquireResult> f = c.engine.acquireAsync(ref, ttl, wait, auto);
        // A fair acquisition read the wall clock once, inside acquireAsync: that reading is its place.
        FairAttempt fair =
                ref.kind() == LockRef.Kind.FAIR ? new FairAttempt(c.index, c.wall.lastMicros(), invoke, ttl) : null;
        if (fair != null) {
            fairAttempts.add(fair);
        }
        f.whenComplete((r, e) -> {
            if (fair != null) {
                fair.complete = world.now();
            }
            if (e != null || r == null || !r.acquired()) {
                if (slot.role() != Role.READ) {
                    history.add(Op.builder()
                            .client(c.index)
                            .lock(ref.name())
                            .kind(opKind(ref))
                            .resources(resources.getOrDefault(ref.name(), List.of()))
                            .invokeNanos(invoke)
                            .completeNanos(world.now())
                            .outcome(Op.Outcome.FAIL)
                            .failure(
                                    e != null
                                            ? e.getClass().getSimpleName()
                                            : r.reason().name())
                            .build());
                }
                done.accept(null);
                return;
            }
            acquisitions++;
            Lease lease = r.lease().get();
            if (fair != null) {
                long order = SimEngine.ref(lease).shape().order();
                if (order != fair.order) {
                    throw new IllegalStateException("fair lock: the lease's place " + order + " is not the place "
                            + fair.order + " its acquisition read from the wall clock");
                }
                fair.roundStart = c.process.worldTimeOf(SimEngine.startNanos(lease));
                fair.grantedAt = world.now();
            }
            done.accept(new Track(c, slot, invoke, lease, admittedBy));
        });
        return f;
    }

    private void cycle(Client c) {
        if (world.now() >= activeEnd) {
            return;
        }
        // Often the lock another client just went for: contention is where the kinds' rules matter.
        Slot slot = lastPicked != null && world.chance(0.4) ? lastPicked : slots.get(random.nextInt(slots.size()));
        lastPicked = slot;
        long ttl = world.between(150, MAX_TTL_MS);
        boolean auto = world.chance(0.3);
        long wait = oneLock()
                ? (world.chance(0.15) ? 0 : world.between(50, 1_500) * MS)
                : (world.chance(0.5) ? 0 : world.between(20, 600) * MS);
        CompletableFuture<AcquireResult> f = acquire(c, slot, slot.ref(), ttl, wait, auto, null, t -> {
            if (t == null) {
                c.process.afterClock(world.between(0, 50) * MS, () -> cycle(c));
            } else {
                hold(t, ttl, auto);
            }
        });
        if (world.chance(0.08)) {
            c.process.afterClock(world.between(0, 60) * MS, () -> f.cancel(false));
        }
        if (slot.ref().kind() == LockRef.Kind.FAIR && !oneLock() && world.chance(0.5)) {
            companion(c, slot);
        }
    }

    private boolean oneLock() {
        return config.workload() == SimConfig.Workload.ONE_LOCK;
    }

    /**
     * Another thread of the same client goes for the fair lock too, a little later: a queue needs several waiters,
     * and a client's own waiters take places in the order they began.
     */
    private void companion(Client c, Slot slot) {
        long ttl = world.between(150, MAX_TTL_MS);
        long wait = world.between(20, 600) * MS;
        c.process.afterClock(world.between(0, 40) * MS, () -> {
            if (world.now() >= activeEnd) {
                return;
            }
            acquire(c, slot, slot.ref(), ttl, wait, false, null, t -> {
                if (t == null) {
                    return;
                }
                boolean release = world.chance(0.85);
                c.process.afterClock(world.between(0, ttl * 13 / 10) * MS, () -> {
                    if (release) {
                        t.released = true;
                        t.lease.releaseAsync();
                    }
                });
            });
        });
    }

    /**
     * Holds a lease for a while: maybe extends it, maybe (a write lease) takes a reader it lets in, then releases it
     * or abandons it, and the client goes on with its next acquisition.
     */
    private void hold(Track t, long ttl, boolean auto) {
        Client c = t.client;
        Lease lease = t.lease;
        long hold = oneLock() && world.chance(0.9)
                // Mostly short: the lock changes hands often, and its waiters are woken each time.
                ? world.between(0, 60)
                : auto ? world.between(ttl / 2, 3 * ttl) : world.between(0, ttl * 13 / 10);
        if (world.chance(0.35)) {
            long extendTo = world.between(150, MAX_TTL_MS);
            c.process.afterClock(hold * MS * world.between(2, 8) / 10, () -> {
                if (lease.isValid()) {
                    lease.extendAsync(Duration.ofMillis(extendTo));
                }
            });
        }
        if (t.role == Role.WRITE && world.chance(0.3)) {
            downgrade(c, lease, hold * MS * world.between(0, 9) / 10);
        }
        boolean release = auto || world.chance(oneLock() ? 0.95 : 0.85);
        c.process.afterClock(hold * MS, () -> {
            if (release) {
                t.released = true;
                lease.releaseAsync();
            }
            c.process.afterClock(world.between(0, 80) * MS, () -> cycle(c));
        });
    }

    /**
     * While it holds write lease {@code writer}, the client takes a read lease of the same lock that the write lease
     * lets in (as a thread holding the write lock does), and may keep it after the write lease ends: a downgrade.
     */
    private void downgrade(Client c, Lease writer, long after) {
        Slot reader =
                slots.stream().filter(s -> s.role() == Role.READ).findFirst().orElseThrow();
        c.process.afterClock(after, () -> {
            if (!writer.isValid()) {
                return;
            }
            long ttl = world.between(150, MAX_TTL_MS);
            long wait = world.chance(0.5) ? 0 : world.between(20, 300) * MS;
            acquire(c, reader, reader.ref().withWriterToken(writer.token()), ttl, wait, false, writer.token(), t -> {
                if (t == null) {
                    return;
                }
                boolean release = world.chance(0.85);
                c.process.afterClock(world.between(0, ttl * 13 / 10) * MS, () -> {
                    if (release) {
                        t.released = true;
                        t.lease.releaseAsync();
                    }
                });
            });
        });
    }

    private void observe() {
        long now = world.now();
        for (int i = active.size() - 1; i >= 0; i--) {
            if (!active.get(i).observe(now)) {
                active.remove(i);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ faults

    private void scheduleFaults() {
        // The nodes that may lose data: a minority inside the assumptions, a majority for the negative control.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            order.add(i);
        }
        for (int i = nodeCount - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            order.set(i, order.set(j, order.get(i)));
        }
        // With replicas, two nodes (the most the assumptions allow) may fail over to replicas that lack writes.
        List<Integer> lossy = order.subList(
                0, config.majorityLoss() ? nodeCount / 2 + 1 : config.failover() || world.chance(0.5) ? 2 : 1);
        int faults = (int) world.between(3, 9);
        for (int k = 0; k < faults; k++) {
            long at = world.between(50, ACTIVE_MS - 100) * MS;
            int kind = random.nextInt(config.slotMoves() ? 13 : config.failover() ? 11 : 8);
            world.after(at, () -> fault(kind, lossy));
        }
        if (config.majorityLoss() || world.chance(config.failover() ? 0.5 : 0.3)) {
            // Every lossy node loses its data at once, and comes back quickly; with replicas, every lossy node's master
            // dies at once and its replica takes over (in a cluster, in half the seeds, every lossy node's slot moves
            // without its keys instead).
            long at = world.between(300, ACTIVE_MS - 300) * MS;
            boolean moves = config.slotMoves() && world.chance(0.5);
            world.after(at, () -> {
                for (int i : lossy) {
                    if (moves) {
                        moveSlot(i, false);
                    } else if (config.failover()) {
                        unplannedFailover(i, world.between(1, 80) * MS);
                    } else {
                        crash(i, true, world.between(1, 80) * MS);
                    }
                }
            });
        }
    }

    private void fault(int kind, List<Integer> lossy) {
        int node = random.nextInt(nodeCount);
        switch (kind) {
            case 0: { // stop a node (SIGSTOP)
                long d = world.between(5, 600) * MS;
                servers.get(node).pause(world.now(), world.now() + d);
                break;
            }
            case 1: { // crash and restart: a node that may lose data loses it unless it persists every write
                int victim = lossy.get(random.nextInt(lossy.size()));
                int target = world.chance(0.5) ? victim : node;
                // Only the lossy nodes lose data: over a run, data loss stays on the minority the assumptions allow
                // (a quorum losing data between two grants of a lock may send its fencing tokens back; README).
                // With replicas, data is lost only by failovers: a master restarts with what it had.
                crash(target, lossy.contains(target) && !config.failover(), world.between(1, 400) * MS);
                break;
            }
            case 2: {
                if (config.failover()) { // the replication link of a node that may lose data stalls
                    servers.get(lossy.get(random.nextInt(lossy.size())))
                            .stallReplication(world.now() + world.between(20, 800) * MS);
                    break;
                }
                // FLUSHALL on a node that may lose data
                SimRedis s = servers.get(lossy.get(random.nextInt(lossy.size())));
                if (!s.persistent() || !config.trustPersistent()) {
                    s.flushAll();
                }
                break;
            }
            case 3: { // a client cut off from some nodes
                int c = random.nextInt(clients.size());
                long d = world.between(10, 800) * MS;
                int count = (int) world.between(1, 3);
                for (int i = 0; i < count; i++) {
                    int n = random.nextInt(nodeCount);
                    net.setCut(c, n, true);
                    world.after(d, () -> net.setCut(c, n, false));
                }
                break;
            }
            case 4: { // a client process stops (GC pause)
                Client c = clients.get(random.nextInt(clients.size()));
                long d = world.between(5, 800) * MS;
                c.process.pause(world.now(), world.now() + d);
                break;
            }
            case 8: // a master that may lose data dies; its replica is promoted once the failure is detected
                unplannedFailover(lossy.get(random.nextInt(lossy.size())), world.between(5, 300) * MS);
                break;
            case 9: { // a master that may lose data stops (SIGSTOP); its replica is promoted while it is stopped
                int i = lossy.get(random.nextInt(lossy.size()));
                SimRedis s = servers.get(i);
                if (s.down() || s.paused()) {
                    break;
                }
                long stopped = world.now();
                long d = world.between(50, 800) * MS;
                s.pause(stopped, stopped + d);
                long received = stopped - (world.chance(0.25) ? 0 : world.between(1, 1_500) * MS);
                int incarnation = s.incarnation();
                world.after(world.between(5, d / MS) * MS, () -> {
                    // A stopped master sends nothing: the replica has what had reached it when it stopped (or, its
                    // link down for a while before, less). Unless another process took the address meanwhile.
                    if (s.incarnation() == incarnation) {
                        s.failover(received);
                    }
                });
                break;
            }
            case 10: // a planned switchover on any node: the replica catches up, then takes over
                if (!servers.get(node).down()) {
                    servers.get(node).failover(Long.MAX_VALUE);
                }
                break;
            case 11: // the cluster slot of any node moves to another master with its keys (resharding)
                moveSlot(node, true);
                break;
            case 12: // the cluster slot of a node that may lose data moves to another master without its keys
                moveSlot(lossy.get(random.nextInt(lossy.size())), false);
                break;
            default: { // a burst of slow and lost messages
                long d = world.between(50, 500) * MS;
                net.slowChance = 0.05;
                net.slowMaxNanos = 3 * PER_NODE_TIMEOUT_MS * MS;
                net.requestLoss = 0.01;
                net.replyLoss = 0.01;
                net.keepOnReset = 0.5;
                world.after(d, this::calm);
                break;
            }
        }
    }

    /**
     * The master of node {@code i} dies (its connections reset, new ones refused) and its replica is promoted
     * {@code detectNanos} later, with what it had received when the master died.
     */
    private void unplannedFailover(int i, long detectNanos) {
        SimRedis s = servers.get(i);
        if (s.down()) {
            return;
        }
        // Three times in four the replica's link had been down for a while when the master died (a network blip, a
        // replica busy loading), up to 1.5 s: it lacks everything written since.
        long received = world.now() - (world.chance(0.25) ? 0 : world.between(1, 1_500) * MS);
        s.crash(false);
        int incarnation = s.incarnation();
        world.after(detectNanos, () -> {
            if (s.incarnation() == incarnation) { // not restarted meanwhile (once every fault healed)
                s.failover(received);
            }
        });
    }

    /**
     * The cluster slot of node {@code i} moves to another master, which has run for a minute to an hour: for 5 to 300
     * ms (the keys migrating, or the slot reassigned) its master answers the node's commands with {@code ASK}; then
     * the node is the new owner, with the slot's keys ({@code withKeys}) or none of them. A move with its keys needs
     * its master up; a slot whose master is down can still be given to another master, without its keys.
     */
    private void moveSlot(int i, boolean withKeys) {
        SimRedis s = servers.get(i);
        if (s.migrating() || (withKeys && s.down())) {
            return;
        }
        long moving = world.between(5, 300) * MS;
        long up = world.between(60, 3_600) * 1_000 * MS;
        s.beginSlotMove(withKeys);
        world.after(moving, () -> s.completeSlotMove(withKeys, up));
    }

    /** Crashes node {@code i}; it restarts after {@code downNanos}. Data survives only on persistent nodes. */
    private void crash(int i, boolean loseData, long downNanos) {
        SimRedis s = servers.get(i);
        if (s.down()) {
            return;
        }
        s.crash(loseData);
        world.after(downNanos, () -> {
            if (s.down()) {
                s.restart();
            }
        });
    }

    private void calm() {
        net.slowChance = 0;
        net.requestLoss = 0;
        net.replyLoss = 0;
    }

    private void heal() {
        calm();
        for (int c = 0; c < clients.size(); c++) {
            for (int n = 0; n < nodeCount; n++) {
                net.setCut(c, n, false);
            }
        }
        // Stopped processes resume when their pause ends (at most 800 ms, well within the quiet period).
        for (SimRedis s : servers) {
            if (s.down()) {
                s.restart();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ checks

    /**
     * Once every node has been healthy for longer than the longest lease and the quarantine, each lock is won within
     * 3 s; a fair lock's or a reader's within 3 s more than the queue window, since a place (or a preferred writer's
     * entry) whose waiter gave up where its leave never arrived keeps them out until it expires, by design.
     */
    private void liveness(int probe) {
        if (probe == probes.size()) {
            probed = true;
            return;
        }
        Slot slot = probes.get(probe);
        LockRef ref = slot.ref();
        boolean queued = ref.kind() == LockRef.Kind.FAIR || ref.kind() == LockRef.Kind.READ;
        long budget = 3_000 + (queued ? QUEUE_WINDOW_MS : 0);
        Client c = clients.get(0);
        long start = world.now();
        acquire(c, slot, ref, 300, budget * MS, false, null, t -> {
            if (t == null) {
                violations.add("liveness: lock '" + ref.name() + "' (" + kindOf(slot) + ") not acquired within "
                        + budget + " ms of trying from " + ms(start) + " ms, with every node healthy for 2.5 s before");
                liveness(probe + 1);
                return;
            }
            t.released = true;
            t.lease.releaseAsync().whenComplete((x, y) -> liveness(probe + 1));
        });
    }

    private void finish() {
        for (Track t : tracks) {
            if (t.openedAt >= 0) {
                t.close(Math.min(world.now(), t.client.process.worldTimeOf(t.lease.deadlineNanos())));
            }
        }
        for (SimRedis s : servers) {
            violations.addAll(s.orphans());
            for (Map.Entry<String, String> e : s.stringKeys().entrySet()) {
                String key = e.getKey();
                if (key.endsWith("}")) {
                    violations.add("leak: node " + s.name() + " still holds " + key + " = "
                            + e.getValue().substring(0, 8) + "… long after every lease ended");
                }
            }
            // Every entry of a kind's sorted set expires (a queue window at most after its waiter's last attempt).
            for (String key : s.scan("*", "zset")) {
                violations.add("leak: node " + s.name() + " still holds sorted set " + key + " "
                        + s.command(List.of("ZRANGE", key, "0", "-1")) + " long after every lease ended");
            }
        }
        List<List<Long>> losses = new ArrayList<>();
        double[] rates = new double[nodeCount];
        for (int i = 0; i < nodeCount; i++) {
            losses.add(servers.get(i).losses());
            rates[i] = servers.get(i).rate();
        }
        List<FairOrderChecker.Acquisition> fair = new ArrayList<>();
        for (FairAttempt a : fairAttempts) {
            fair.add(a.done());
        }
        List<CheckResult> results = List.of(
                new MutualExclusionChecker().check(history),
                new FencingChecker().check(history),
                new MultiResourceChecker().check(history),
                ReadWriteExclusionChecker.check(readWrite),
                FairOrderChecker.check(
                        fair,
                        placements,
                        leaves,
                        losses,
                        rates,
                        QuorumPolicy.MAJORITY.required(config.nodesPerLock() == 0 ? nodeCount : config.nodesPerLock()),
                        QUEUE_WINDOW_MS));
        for (CheckResult r : results) {
            if (r.validity() == CheckResult.Validity.INVALID) {
                for (String v : r.violations()) {
                    violations.add(r.checker() + ": " + v);
                }
            }
        }
        this.checks = results;
        for (Client c : clients) {
            c.close();
        }
    }

    /** The line that replays this run. */
    public static String replayLine(SimConfig config, long seed) {
        return "./mvnw -q -pl redlock-sim -am verify -Dtest=SimulationTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dsim.config=" + config.name() + " -Dsim.seed=" + seed;
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
