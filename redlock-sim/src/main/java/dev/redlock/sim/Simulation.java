package dev.redlock.sim;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import dev.redlock.internal.LockRef;
import dev.redlock.internal.NodeClient;
import dev.redlock.internal.Quarantine;
import dev.redlock.internal.QuorumEngine;
import dev.redlock.internal.SimEngine;
import dev.redlock.internal.SimNodeClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One seeded run: five simulated Redis masters, three clients each running the real engine, a workload of RedLock and
 * MultiLock acquisitions (fenced and plain, watchdog on and off, extensions longer and shorter, releases, abandoned
 * leases, cancellations) under faults drawn from the seed, then every fault healed and a liveness probe. The run's
 * history goes to the chaos suite's checkers, plus two of its own: orphaned keys and leaked keys.
 *
 * <p>Everything comes from the seed, so {@link #run} with the same configuration and seed replays exactly.
 */
public final class Simulation {

    static final int NODES = 5;
    static final int CLIENTS = 3;
    static final double DRIFT_FACTOR = 0.01;
    static final long PER_NODE_TIMEOUT_MS = 20;
    static final long ACTIVE_MS = 2_500;
    static final String PREFIX = "sim:";
    private static final long MS = 1_000_000L;

    /** What one run found. */
    public record Result(SimConfig config, long seed, List<String> violations, List<CheckResult> checks,
            int acquisitions, long events, long simulatedNanos) {

        public boolean ok() {
            return violations.isEmpty();
        }
    }

    private final SimConfig config;
    private final long seed;
    private final SimWorld world;
    private final SplittableRandom random;
    private final SimNetwork net;
    private final List<SimRedis> servers = new ArrayList<>();
    private final List<Client> clients = new ArrayList<>();
    private final List<LockRef> locks = new ArrayList<>();
    private final List<Track> tracks = new ArrayList<>();
    private final List<Track> active = new ArrayList<>();
    private final History history = new History();
    private final List<String> violations = new ArrayList<>();
    private final long activeEnd = ACTIVE_MS * MS;
    private int acquisitions;

    /** One simulated client JVM: its clock, its scheduler and its real engine. */
    private final class Client {
        final int index;
        final SimProcess process;
        final SimScheduler scheduler;
        final QuorumEngine engine;

        Client(int index) {
            this.index = index;
            this.process = new SimProcess(world, "c" + index, rate(), random.nextLong(1L << 40));
            this.scheduler = new SimScheduler(process);
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                uris.add("redis://n" + i + ":6379");
            }
            RedlockConfig rc = RedlockConfig.builder()
                    .nodes(uris)
                    .leaseTime(Duration.ofMillis(500))
                    .perNodeTimeout(Duration.ofMillis(PER_NODE_TIMEOUT_MS))
                    .connectTimeout(Duration.ofMillis(100))
                    .retryDelay(Duration.ofMillis(30))
                    .retryJitter(0.5)
                    .driftFactor(DRIFT_FACTOR)
                    .circuitOpenDuration(Duration.ofMillis(200))
                    .minValidity(Duration.ofMillis(5))
                    .keyPrefix(PREFIX)
                    .restartQuarantine(config.quarantine())
                    .trustPersistentNodes(config.trustPersistent())
                    .checkTopology(false)
                    .ticker(process::clockNanos)
                    .asyncExecutor(task -> process.afterClock(0, task))
                    .build();
            SplittableRandom own = random.split();
            Quarantine quarantine = SimEngine.quarantine(rc, own);
            List<NodeClient> nodes = new ArrayList<>();
            List<BooleanSupplier> reachable = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                SimRedis s = servers.get(i);
                nodes.add(new SimNodeClient(rc.nodeNames().get(i), rc, quarantine, process, index, s, i, net));
                int node = i;
                reachable.add(() -> !s.down() && !s.paused() && !net.isCut(index, node));
            }
            this.engine = SimEngine.engine(rc, nodes, scheduler, quarantine, own, process, servers, reachable);
        }
    }

    /** One lease as its holder sees it: the windows in which it considered itself valid. */
    private final class Track {
        final Client client;
        final LockRef ref;
        final long invoke;
        final Lease lease;
        long openedAt = -1;
        long lastDeadline;
        boolean first = true;
        /** Set when the holder starts its release. */
        boolean released;

        Track(Client client, LockRef ref, long invoke, Lease lease) {
            this.client = client;
            this.ref = ref;
            this.invoke = invoke;
            this.lease = lease;
            this.lastDeadline = lease.deadlineNanos();
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
            history.add(Op.builder().client(client.index).lock(ref.name()).invokeNanos(Math.min(invoke, openedAt))
                    .completeNanos(openedAt).outcome(Op.Outcome.OK).token(lease.token().substring(0, 8))
                    .deadlineNanos(Math.max(end, openedAt)).fencingToken(token).build());
            first = false;
            openedAt = -1;
        }
    }

    private Simulation(SimConfig config, long seed) {
        this.config = config;
        this.seed = seed;
        this.world = new SimWorld(seed);
        this.random = world.random();
        this.net = new SimNetwork(world, CLIENTS, NODES);
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
            return new Result(config, seed, List.of("error at " + ms(sim.world.now()) + " ms: " + top), List.of(),
                    sim.acquisitions, sim.world.executed(), sim.world.now());
        }
    }

    private double rate() {
        double spread = config.driftOutside() ? 5 * DRIFT_FACTOR : 0.45 * DRIFT_FACTOR;
        return 1 + (random.nextDouble() * 2 - 1) * spread;
    }

    private Result run() {
        boolean[] persistent = new boolean[NODES];
        for (int i = 0; i < NODES; i++) {
            persistent[i] = world.chance(config.trustPersistent() ? 0.6 : 0.2);
            servers.add(new SimRedis(world, "n" + i, rate(), random.nextLong(1L << 40), persistent[i]));
        }
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(new Client(c));
        }
        locks.add(new LockRef("a", LockRef.keyOf(PREFIX, "a"), QuorumPolicy.MAJORITY, false));
        locks.add(new LockRef("b", LockRef.keyOf(PREFIX, "b"), QuorumPolicy.MAJORITY, true));
        locks.add(new LockRef("c", LockRef.keyOf(PREFIX, "c"), QuorumPolicy.ALL, world.chance(0.5)));
        world.afterEach(this::observe);

        scheduleFaults(persistent);
        for (Client c : clients) {
            c.process.afterClock(world.between(0, 20 * MS), () -> cycle(c));
        }
        world.runUntil(activeEnd);
        heal();
        // Quiet: longer than the longest lease plus the quarantine window and an open circuit breaker.
        long quiet = 2_500 * MS;
        world.runUntil(world.now() + quiet);
        liveness(0);
        world.runUntil(world.now() + 8_000 * MS);
        finish();
        return new Result(config, seed, List.copyOf(violations), checks, acquisitions, world.executed(),
                world.now());
    }

    private List<CheckResult> checks = List.of();

    // ------------------------------------------------------------------------------------------------ workload

    private void cycle(Client c) {
        if (world.now() >= activeEnd) {
            return;
        }
        LockRef ref = locks.get(random.nextInt(locks.size()));
        long ttl = world.between(150, 800);
        boolean auto = world.chance(0.3);
        long wait = world.chance(0.5) ? 0 : world.between(20, 600) * MS;
        long invoke = world.now();
        CompletableFuture<AcquireResult> f = c.engine.acquireAsync(ref, ttl, wait, auto);
        if (world.chance(0.08)) {
            c.process.afterClock(world.between(0, 60) * MS, () -> f.cancel(false));
        }
        f.whenComplete((r, e) -> {
            if (e != null || r == null || !r.acquired()) {
                history.add(Op.builder().client(c.index).lock(ref.name()).invokeNanos(invoke)
                        .completeNanos(world.now()).outcome(Op.Outcome.FAIL)
                        .failure(e != null ? e.getClass().getSimpleName() : r.reason().name()).build());
                c.process.afterClock(world.between(0, 50) * MS, () -> cycle(c));
                return;
            }
            acquisitions++;
            Lease lease = r.lease().get();
            Track t = new Track(c, ref, invoke, lease);
            tracks.add(t);
            active.add(t);
            t.observe(world.now());
            long hold = auto ? world.between(ttl / 2, 3 * ttl) : world.between(0, ttl * 13 / 10);
            if (world.chance(0.35)) {
                long extendTo = world.between(150, 1000);
                c.process.afterClock(hold * MS * world.between(2, 8) / 10, () -> {
                    if (lease.isValid()) {
                        lease.extendAsync(Duration.ofMillis(extendTo));
                    }
                });
            }
            boolean release = auto || world.chance(0.85);
            c.process.afterClock(hold * MS, () -> {
                if (release) {
                    t.released = true;
                    lease.releaseAsync();
                }
                c.process.afterClock(world.between(0, 80) * MS, () -> cycle(c));
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

    private void scheduleFaults(boolean[] persistent) {
        // The nodes that may lose data: a minority inside the assumptions, a majority for the negative control.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            order.add(i);
        }
        for (int i = NODES - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            order.set(i, order.set(j, order.get(i)));
        }
        List<Integer> lossy = order.subList(0, config.majorityLoss() ? NODES / 2 + 1 : world.chance(0.5) ? 2 : 1);
        int faults = (int) world.between(3, 9);
        for (int k = 0; k < faults; k++) {
            long at = world.between(50, ACTIVE_MS - 100) * MS;
            int kind = random.nextInt(8);
            world.after(at, () -> fault(kind, lossy, persistent));
        }
        if (config.majorityLoss() || world.chance(0.3)) {
            // Every lossy node loses its data at once, and comes back quickly.
            long at = world.between(300, ACTIVE_MS - 300) * MS;
            world.after(at, () -> {
                for (int i : lossy) {
                    crash(i, true, world.between(1, 80) * MS);
                }
            });
        }
    }

    private void fault(int kind, List<Integer> lossy, boolean[] persistent) {
        int node = random.nextInt(NODES);
        switch (kind) {
            case 0: { // stop a node (SIGSTOP)
                long d = world.between(5, 600) * MS;
                servers.get(node).pause(world.now(), world.now() + d);
                break;
            }
            case 1: { // crash and restart: data lost unless the node persists every write
                int victim = lossy.get(random.nextInt(lossy.size()));
                crash(world.chance(0.5) ? victim : node, true, world.between(1, 400) * MS);
                break;
            }
            case 2: { // FLUSHALL on a node that may lose data
                SimRedis s = servers.get(lossy.get(random.nextInt(lossy.size())));
                if (!s.persistent() || !config.trustPersistent()) {
                    s.flushAll();
                }
                break;
            }
            case 3: { // a client cut off from some nodes
                int c = random.nextInt(CLIENTS);
                long d = world.between(10, 800) * MS;
                int count = (int) world.between(1, 3);
                for (int i = 0; i < count; i++) {
                    int n = random.nextInt(NODES);
                    net.setCut(c, n, true);
                    world.after(d, () -> net.setCut(c, n, false));
                }
                break;
            }
            case 4: { // a client process stops (GC pause)
                Client c = clients.get(random.nextInt(CLIENTS));
                long d = world.between(5, 800) * MS;
                c.process.pause(world.now(), world.now() + d);
                break;
            }
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
        for (int c = 0; c < CLIENTS; c++) {
            for (int n = 0; n < NODES; n++) {
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

    /** Once every node has been healthy for longer than the longest lease and the quarantine, each lock is won. */
    private void liveness(int lock) {
        if (lock == locks.size()) {
            return;
        }
        LockRef ref = locks.get(lock);
        Client c = clients.get(0);
        long start = world.now();
        c.engine.acquireAsync(ref, 300, 3_000 * MS, false).whenComplete((r, e) -> {
            if (e != null || r == null || !r.acquired()) {
                violations.add("liveness: lock '" + ref.name() + "' not acquired within 3 s of trying, with every "
                        + "node healthy for 2.5 s before: " + (e != null ? e : r.lastRound()));
                liveness(lock + 1);
                return;
            }
            Lease lease = r.lease().get();
            Track t = new Track(c, ref, start, lease);
            tracks.add(t);
            active.add(t);
            t.observe(world.now());
            t.released = true;
            lease.releaseAsync().whenComplete((x, y) -> liveness(lock + 1));
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
        }
        List<CheckResult> results = List.of(new MutualExclusionChecker().check(history),
                new FencingChecker().check(history));
        for (CheckResult r : results) {
            if (r.validity() == CheckResult.Validity.INVALID) {
                for (String v : r.violations()) {
                    violations.add(r.checker() + ": " + v);
                }
            }
        }
        this.checks = results;
        for (Client c : clients) {
            c.engine.close();
            c.scheduler.shutdown();
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
