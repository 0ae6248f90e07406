/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.LockKind;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockListener;
import dev.redlock.RoundOutcome;
import dev.redlock.bench.FamilyContenders.Kind;
import dev.redlock.testkit.RedisNodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * Several independent clients on one lock: K clients x T threads, every thread on the same name, as K instances of
 * an application would contend. Each client is its own {@code RedlockClient} (its own connections, subscriber and
 * executors) or, for Redisson, its own set of {@code RedissonClient}s (one per master for {@code RedissonRedLock},
 * one on master 1 for a plain {@code RLock}). Each thread acquires with a {@value #WAIT_MILLIS} ms wait budget (an
 * acquisition that ends without the lock is a failed attempt), runs an empty critical section and releases, until the
 * measurement ends. Every shape of every implementation gets fresh clients and a lock name of its own.
 *
 * <p>Reported per implementation and shape: critical sections per second; for ours the acquire rounds and the split
 * rounds (failed rounds that some node but no quorum granted) per critical section, heard by a
 * {@link RedlockListener} on each client; the wait (acquire call to grant: mean, p50, p99, p99/mean); the share of
 * hand-overs that go to another client and of those that go back to the thread that just released; the least and the
 * most critical sections of one client against the fair share; failed attempts; and a check of exclusion inside the
 * JVM (most holders at once against 1, or the semaphore's permits). With {@code --runs N} every run's table is printed,
 * then the medians.
 *
 * <p>Run from the repository root:
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests
 * java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.MultiClient \
 *     --shapes 1x16,4x4,16x1 --seconds 5 --warmup 1 --runs 1 --only redlock,fair,write,semaphore,redisson-redlock,redisson-rlock
 * </pre>
 * The values shown are the defaults. Results go to {@code redlock-bench/target/multiclient/} ({@code results.md},
 * {@code results.csv}; {@code -Dmulticlient.out=DIR} overrides); the Markdown is also printed.
 */
public final class MultiClient {

    static final int NODES = 5;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);
    /** Wait budget of every acquisition. */
    static final long WAIT_MILLIS = 2_000;

    /** A worker stops after the acquisition it is in, which lasts the wait budget at most; the rest is slack. */
    private static final Duration JOIN_TIMEOUT = Duration.ofMillis(WAIT_MILLIS).plusSeconds(20);
    /** Tries to start one client, the first included. */
    private static final int START_ATTEMPTS = 5;
    /** Pause before a client's start is tried again. */
    private static final Duration START_PAUSE = Duration.ofSeconds(2);
    /** Room for the hand-over order: this many grants per measured second (far above any contender's rate). */
    private static final long ORDER_PER_SECOND = 50_000;

    private static final String USAGE = "usage: MultiClient [--shapes 1x16,4x4,16x1] [--seconds 5] [--warmup 1] "
            + "[--runs 1] [--only redlock,fair,write,semaphore,redisson-redlock,redisson-rlock]";

    /** Metrics summed over the runs in the medians table: any failure or violation of any run must show. */
    private static final Set<String> SUMMED = Set.of("failed", "errors", "violations");
    /** Metrics whose largest value over the runs goes in the medians table. */
    private static final Set<String> MAXED = Set.of("max_holders");

    private MultiClient() {}

    /** K independent clients, each running T threads on the lock. */
    record Shape(int clients, int threads) {

        static Shape parse(String text) {
            String[] parts = text.trim().toLowerCase(Locale.ROOT).split("x", -1);
            if (parts.length != 2) {
                throw new IllegalArgumentException("a shape is CLIENTSxTHREADS, such as 4x4; got " + text);
            }
            Shape shape = new Shape(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
            if (shape.clients() < 1 || shape.threads() < 1) {
                throw new IllegalArgumentException("a shape needs at least 1 client and 1 thread; got " + text);
            }
            return shape;
        }

        int workers() {
            return clients * threads;
        }

        @Override
        public String toString() {
            return clients + "x" + threads;
        }
    }

    /**
     * A row of the report: how to build one independent client of an implementation (ours registers the listener it
     * is given; Redisson's ignores it), and how many may hold at once.
     */
    private record Entrant(
            String id,
            String label,
            int limit,
            boolean hearsRounds,
            BiFunction<List<String>, RedlockListener, Contender> client) {}

    private static final List<Entrant> ENTRANTS = List.of(
            new Entrant(
                    "redlock",
                    "ours: redLock",
                    1,
                    true,
                    (uris, l) -> new OurContender(QuorumPolicy.MAJORITY, uris, PER_NODE_TIMEOUT, LEASE, false, l)),
            new Entrant(
                    "fair",
                    "ours: fairLock",
                    1,
                    true,
                    (uris, l) -> new FamilyContenders.Ours(Kind.FAIR, uris, PER_NODE_TIMEOUT, LEASE, l)),
            new Entrant(
                    "write",
                    "ours: readWriteLock(name).writeLock()",
                    1,
                    true,
                    // Ours' open() of a read-write lock is its write lock.
                    (uris, l) -> new FamilyContenders.Ours(Kind.READ_WRITE, uris, PER_NODE_TIMEOUT, LEASE, l)),
            new Entrant(
                    "semaphore",
                    "ours: semaphore, " + FamilyContenders.PERMITS + " permits",
                    FamilyContenders.PERMITS,
                    true,
                    (uris, l) -> new FamilyContenders.Ours(Kind.SEMAPHORE, uris, PER_NODE_TIMEOUT, LEASE, l)),
            new Entrant(
                    "redisson-redlock",
                    "Redisson RedissonRedLock (" + NODES + " nodes)",
                    1,
                    false,
                    (uris, l) -> new RedissonContender(RedissonContender.Kind.RED_LOCK, uris, LEASE)),
            new Entrant(
                    "redisson-rlock",
                    "Redisson RLock (node 1)",
                    1,
                    false,
                    (uris, l) -> new RedissonContender(RedissonContender.Kind.SINGLE, uris, LEASE)));

    /** What to run, from the command line. */
    private record Options(List<Shape> shapes, Duration measure, Duration warmup, int runs, List<Entrant> entrants) {

        static Options parse(String[] args) {
            List<Shape> shapes = List.of(new Shape(1, 16), new Shape(4, 4), new Shape(16, 1));
            Duration measure = Duration.ofSeconds(5);
            Duration warmup = Duration.ofSeconds(1);
            int runs = 1;
            List<Entrant> entrants = ENTRANTS;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(args[i] + " needs a value; " + USAGE);
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--shapes" ->
                        shapes = Arrays.stream(value.split(","))
                                .map(Shape::parse)
                                .toList();
                    case "--seconds" -> measure = seconds(value, false);
                    case "--warmup" -> warmup = seconds(value, true);
                    case "--runs" -> runs = Integer.parseInt(value.trim());
                    case "--only" -> entrants = only(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; " + USAGE);
                }
            }
            if (runs < 1) {
                throw new IllegalArgumentException("--runs must be at least 1");
            }
            return new Options(shapes, measure, warmup, runs, entrants);
        }

        private static Duration seconds(String value, boolean zeroAllowed) {
            Duration d = Duration.ofMillis(Math.round(Double.parseDouble(value.trim()) * 1000));
            if (d.isNegative() || (d.isZero() && !zeroAllowed)) {
                throw new IllegalArgumentException("not a usable number of seconds: " + value);
            }
            return d;
        }

        /** The entrants named, in the report's order. */
        private static List<Entrant> only(String value) {
            List<String> wanted =
                    Arrays.stream(value.split(",")).map(String::trim).toList();
            for (String id : wanted) {
                if (ENTRANTS.stream().noneMatch(e -> e.id().equals(id))) {
                    throw new IllegalArgumentException("unknown contender " + id + "; " + USAGE);
                }
            }
            return ENTRANTS.stream().filter(e -> wanted.contains(e.id())).toList();
        }
    }

    /**
     * Runs every shape of every implementation the options name, {@code --runs} times, and writes the report.
     *
     * @param args options, see the class documentation
     * @throws Exception if the nodes or a client cannot be started, or the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Compare.quietRedissonLogs();
        Path out = Compare.outputDir("multiclient.out", "multiclient");
        Machine machine = Machine.describe();
        long started = System.nanoTime();
        Results results = new Results();
        Map<String, Report.Impl> impls = new LinkedHashMap<>();
        try (RedisNodes nodes = RedisNodes.start(NODES)) {
            // Runs outermost, so that a disturbance of the machine spoils one run of everything, not all runs of one.
            for (int run = 1; run <= options.runs(); run++) {
                for (Entrant e : options.entrants()) {
                    for (Shape shape : options.shapes()) {
                        System.err.printf("[multiclient] run %d/%d  %-40s %s%n", run, options.runs(), e.label(), shape);
                        measure(e, shape, runPhase(run, shape), options, nodes.uris(), impls, results);
                    }
                }
            }
        }
        if (options.runs() > 1) {
            putMedians(options, results);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        Map<String, String> labels = new LinkedHashMap<>();
        ENTRANTS.forEach(e -> labels.put(e.id(), e.label()));
        String md = markdown(machine, options, took, results)
                + Family.settings(List.copyOf(impls.values()))
                + Family.errors(labels, results);
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.md"), md);
        Files.writeString(
                out.resolve("results.csv"), new Report(machine, List.copyOf(impls.values()), results, took).csv());
        System.out.println(md);
        System.out.println("Written: " + out.resolve("results.md") + ", " + out.resolve("results.csv"));
    }

    private static String runPhase(int run, Shape shape) {
        return "run" + run + ":" + shape;
    }

    private static String medianPhase(Shape shape) {
        return "median:" + shape;
    }

    // ------------------------------------------------------------------------------------------------ measurement

    /** What the workers and the clients of one measurement share. Thread-safe. */
    private static final class Tally implements RedlockListener {

        final AtomicBoolean measuring = new AtomicBoolean();
        final AtomicBoolean stop = new AtomicBoolean();
        final LongAdder rounds = new LongAdder();
        final LongAdder splitRounds = new LongAdder();
        final LongAdder failed = new LongAdder();
        final Failures failures = new Failures();
        final AtomicInteger holders = new AtomicInteger();
        final AtomicInteger maxHolders = new AtomicInteger();
        final LongAdder violations = new LongAdder();
        final AtomicLongArray perClient;
        /** Index of the next measured grant in {@link #order}. */
        final AtomicLong grants = new AtomicLong();
        /** The worker of each measured grant, in the order they entered the critical section. */
        final int[] order;

        final int limit;
        private final AtomicInteger startRetries = new AtomicInteger();
        private volatile String firstStartFailure;

        Tally(int clients, int capacity, int limit) {
            this.perClient = new AtomicLongArray(clients);
            this.order = new int[capacity];
            this.limit = limit;
        }

        /** Every acquire round of our clients, on whichever thread decided it: count it and return. */
        @Override
        public void acquireRound(LockKind kind, RoundOutcome round) {
            if (measuring.get()) {
                rounds.increment();
                // Split: some node granted, too few for the quorum. Nodes still pending when a lost round was decided
                // are not known to have granted, so this counts at least the split rounds, maybe fewer than all.
                if (!round.succeeded() && round.granted() > 0 && round.granted() < round.required()) {
                    splitRounds.increment();
                }
            }
        }

        /** A worker of {@code client} was granted the lock: the checks and records made inside the hold. */
        void enter(int worker, int client, boolean measured) {
            int now = holders.incrementAndGet();
            maxHolders.accumulateAndGet(now, Math::max);
            if (now > limit) {
                violations.increment();
            }
            if (measured) {
                perClient.incrementAndGet(client);
                // For a mutex the hold orders these; for the semaphore this is the order holders got here.
                long i = grants.getAndIncrement();
                if (i < order.length) {
                    order[(int) i] = worker;
                }
            }
        }

        void exit() {
            holders.decrementAndGet();
        }

        void startRetried(RuntimeException cause) {
            if (startRetries.getAndIncrement() == 0) {
                firstStartFailure = String.valueOf(cause);
            }
        }

        /** The client starts tried again, for the notes, or "". */
        String startNote() {
            int n = startRetries.get();
            return n == 0 ? "" : n + " client start(s) failed and were tried again; first: " + firstStartFailure;
        }
    }

    /** One implementation at one shape: fresh clients, a warm-up, the measurement, then the clients closed. */
    private static void measure(
            Entrant e,
            Shape shape,
            String phase,
            Options options,
            List<String> uris,
            Map<String, Report.Impl> impls,
            Results results)
            throws InterruptedException {
        int capacity = (int) Math.min(
                Integer.MAX_VALUE - 8, ORDER_PER_SECOND * (options.measure().toSeconds() + 1));
        Tally tally = new Tally(shape.clients(), capacity, e.limit());
        List<Contender> clients;
        try {
            clients = Cleanup.openAll(
                    shape.clients(), i -> startClient(e, uris, tally), list -> Cleanup.each(list, Contender::close));
        } catch (RuntimeException x) {
            // One shape that cannot start its clients must not cost the others their measurement.
            System.err.printf(
                    "[multiclient] !!! %s %s: its clients did not start, not measured: %s%n", e.label(), phase, x);
            results.note(e.id(), phase, "not measured: its clients did not start: " + x);
            return;
        }
        impls.computeIfAbsent(
                e.id(),
                id -> new Report.Impl(
                        id,
                        e.label(),
                        "K independent clients, each: " + clients.get(0).settings(),
                        false));
        String name = e.id() + ":multiclient:" + phase;
        List<Samples> waits = new ArrayList<>();
        for (int i = 0; i < shape.workers(); i++) {
            waits.add(new Samples());
        }
        long wall;
        double foreign;
        try {
            Workers workers = Workers.start(
                    "multiclient-" + e.id() + "-" + shape,
                    shape.workers(),
                    tally.failures,
                    (worker, ready) -> work(worker, shape, clients, name, tally, waits.get(worker), ready));
            workers.awaitReady();
            Compare.parkUntil(System.nanoTime() + options.warmup().toNanos());
            ForeignCpu other = ForeignCpu.start();
            tally.measuring.set(true);
            long t0 = System.nanoTime();
            Compare.parkUntil(t0 + options.measure().toNanos());
            tally.measuring.set(false);
            wall = System.nanoTime() - t0;
            foreign = other.percent();
            tally.stop.set(true);
            workers.join(JOIN_TIMEOUT);
        } finally {
            Cleanup.each(clients, Contender::close);
        }
        put(e, shape, phase, tally, waits, wall, foreign, results);
    }

    /**
     * Starts one client of {@code e}, trying again after a pause if its start fails: on a loaded machine, many
     * clients filling their connection pools can miss a start-up reply's timeout (Redisson's is the 50 ms response
     * timeout). Each retry is noted with the measurement.
     */
    private static Contender startClient(Entrant e, List<String> uris, Tally tally) {
        for (int attempt = 1; ; attempt++) {
            try {
                return e.client().apply(uris, tally);
            } catch (RuntimeException x) {
                if (attempt >= START_ATTEMPTS) {
                    throw x;
                }
                tally.startRetried(x);
                System.err.printf("[multiclient] %s: a client did not start, trying again: %s%n", e.label(), x);
                Compare.parkUntil(System.nanoTime() + START_PAUSE.toNanos());
            }
        }
    }

    /** One worker: acquire, empty critical section, release, until told to stop. */
    private static void work(
            int worker, Shape shape, List<Contender> clients, String name, Tally tally, Samples wait, Runnable ready)
            throws Exception {
        int client = worker / shape.threads();
        try (Contender.Handle handle = clients.get(client).open(name)) {
            ready.run();
            while (!tally.stop.get()) {
                long t0 = System.nanoTime();
                boolean acquired;
                try {
                    acquired = handle.acquire(WAIT_MILLIS);
                } catch (InterruptedException x) {
                    throw x;
                } catch (Exception x) {
                    tally.failures.error(x);
                    continue;
                }
                long granted = System.nanoTime();
                boolean measured = tally.measuring.get();
                if (!acquired) {
                    if (measured) {
                        tally.failed.increment();
                    }
                    continue;
                }
                tally.enter(worker, client, measured);
                if (measured) {
                    wait.add(granted - t0);
                }
                // Empty critical section.
                tally.exit();
                try {
                    handle.release();
                } catch (Exception x) {
                    tally.failures.releaseError(x);
                }
            }
        }
    }

    /** Turns one measurement's tally into results; says loudly when exclusion was violated. */
    private static void put(
            Entrant e,
            Shape shape,
            String phase,
            Tally tally,
            List<Samples> waits,
            long wall,
            double foreign,
            Results results) {
        String id = e.id();
        Samples wait = new Samples();
        waits.forEach(wait::addAll);
        long done = 0;
        long least = Long.MAX_VALUE;
        long most = 0;
        for (int c = 0; c < shape.clients(); c++) {
            long n = tally.perClient.get(c);
            done += n;
            least = Math.min(least, n);
            most = Math.max(most, n);
        }
        double fair = (double) done / shape.clients();
        // Hand-overs: each pair of consecutive grants in the recorded order.
        int recorded = (int) Math.min(tally.grants.get(), tally.order.length);
        long toOther = 0;
        long sameThread = 0;
        for (int i = 1; i < recorded; i++) {
            int before = tally.order[i - 1];
            int after = tally.order[i];
            if (before / shape.threads() != after / shape.threads()) {
                toOther++;
            } else if (before == after) {
                sameThread++;
            }
        }
        long pairs = Math.max(0, recorded - 1);
        results.put(id, phase, "foreign_cpu", foreign, "%", done);
        results.put(id, phase, "cs_per_s", done / (wall / 1e9), "1/s", done);
        results.put(id, phase, "sections", done, "count", done);
        // Rounds are heard from our clients only; Redisson's are not visible from outside.
        putPerSection(results, e, phase, "rounds_per_cs", tally.rounds.sum(), done);
        putPerSection(results, e, phase, "split_rounds_per_cs", tally.splitRounds.sum(), done);
        results.put(id, phase, "wait_mean", wait.mean() / 1e6, "ms", wait.size());
        results.put(id, phase, "wait_p50", wait.percentile(0.5) / 1e6, "ms", wait.size());
        results.put(id, phase, "wait_p99", wait.percentile(0.99) / 1e6, "ms", wait.size());
        results.put(id, phase, "p99_over_mean", wait.percentile(0.99) / wait.mean(), "x", wait.size());
        results.put(id, phase, "to_other_client", pairs == 0 ? Double.NaN : 100.0 * toOther / pairs, "%", pairs);
        results.put(id, phase, "same_thread_again", pairs == 0 ? Double.NaN : 100.0 * sameThread / pairs, "%", pairs);
        results.put(id, phase, "client_share_min", done == 0 ? Double.NaN : least / fair, "x", done);
        results.put(id, phase, "client_share_max", done == 0 ? Double.NaN : most / fair, "x", done);
        results.put(id, phase, "failed", tally.failed.sum(), "count", tally.failed.sum());
        long errors = tally.failures.errorCount() + tally.failures.releaseErrorCount();
        results.put(id, phase, "errors", errors, "count", errors);
        results.put(id, phase, "max_holders", tally.maxHolders.get(), "count", done);
        results.put(id, phase, "violations", tally.violations.sum(), "count", done);
        List<String> notes = new ArrayList<>();
        for (String n : List.of(tally.failures.summary(), tally.startNote())) {
            if (!n.isEmpty()) {
                notes.add(n);
            }
        }
        if (tally.grants.get() > tally.order.length) {
            notes.add("hand-over order kept for the first " + recorded + " of " + tally.grants.get() + " grants");
        }
        results.note(id, phase, String.join("; ", notes));
        if (tally.violations.sum() > 0) {
            System.err.printf(
                    "[multiclient] !!! EXCLUSION VIOLATED: %s %s %s: %d grants beside more holders than %d "
                            + "(most %d at once) !!!%n",
                    e.label(), shape, phase, tally.violations.sum(), e.limit(), tally.maxHolders.get());
        }
    }

    /** {@code count / sections} of an implementation that hears its rounds; NaN (not measured) otherwise. */
    private static void putPerSection(Results results, Entrant e, String phase, String metric, long count, long done) {
        double value = e.hearsRounds() && done > 0 ? (double) count / done : Double.NaN;
        results.put(e.id(), phase, metric, value, "count", count);
    }

    /** The medians over the runs, metric by metric (failures and violations: their sum; most holders: the most). */
    private static void putMedians(Options options, Results results) {
        for (Entrant e : options.entrants()) {
            for (Shape shape : options.shapes()) {
                for (Results.Row row : results.rows()) {
                    if (!row.impl().equals(e.id()) || !row.phase().equals(runPhase(1, shape))) {
                        continue;
                    }
                    String metric = row.metric();
                    double[] values = new double[options.runs()];
                    for (int run = 1; run <= options.runs(); run++) {
                        values[run - 1] = results.get(e.id(), runPhase(run, shape), metric);
                    }
                    double combined = SUMMED.contains(metric)
                            ? Arrays.stream(values).sum()
                            : MAXED.contains(metric)
                                    ? Arrays.stream(values).max().orElse(Double.NaN)
                                    : median(values);
                    results.put(e.id(), medianPhase(shape), metric, combined, row.unit(), values.length);
                }
            }
        }
    }

    /** The median of the values that are numbers, or NaN if none is. */
    static double median(double[] values) {
        double[] v =
                Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    // ------------------------------------------------------------------------------------------------ report

    private static String markdown(Machine machine, Options options, Duration took, Results results) {
        StringBuilder md = new StringBuilder("# One lock, several independent clients\n\n")
                .append(machine.markdown())
                .append(" The run took ")
                .append(took.toSeconds())
                .append(" s.\n\n")
                .append("K independent clients x T threads, every thread on one lock name. Each client is its own "
                        + "RedlockClient (own connections, subscriber, executors) or its own set of RedissonClients "
                        + "(RedissonRedLock: one per master; RLock: one on master 1), as separate application "
                        + "instances would have. Each thread: acquire (wait budget ")
                .append(WAIT_MILLIS / 1000)
                .append(" s, lease ")
                .append(LEASE.toSeconds())
                .append(" s), empty critical section, release; ")
                .append(Report.num(options.warmup().toMillis() / 1000.0))
                .append(" s warm-up, ")
                .append(Report.num(options.measure().toMillis() / 1000.0))
                .append(" s measured, fresh clients and a fresh lock name for every shape.\n\n")
                .append("- CS/s: critical sections per second, all clients together.\n"
                        + "- rounds/CS: acquire rounds our clients ran during the measurement (heard by a "
                        + "RedlockListener on each client, rounds of failed attempts included) per critical "
                        + "section; the semaphore runs one round per permit it tries. split/CS: those failed rounds "
                        + "that at least one node but fewer than a quorum granted, by the nodes' answers when the "
                        + "round was decided (a node still pending then is not counted, so this is a lower bound). "
                        + "`-` for Redisson: not measurable from outside.\n"
                        + "- wait: from the acquire call to the grant, in ms, granted acquisitions only.\n"
                        + "- to other client: share of consecutive grants whose holder belongs to another client "
                        + "than the previous holder (0 with one client). same thread: share whose holder is the "
                        + "thread that held the previous grant. For the semaphore, consecutive in the order holders "
                        + "entered the critical section, several holding at once.\n"
                        + "- client share: the fewest and the most critical sections of one client, divided by the "
                        + "fair share (all sections / K); x1.00 is even (always, with one client).\n"
                        + "- failed: acquisitions that ended without the lock within the wait budget. errors: "
                        + "exceptions from acquire or release (see the notes at the end).\n"
                        + "- exclusion: most holders seen at once inside the JVM (a counter raised at the grant, "
                        + "lowered before the release) against the limit: 1, or the semaphore's permits.\n"
                        + "- other CPU: share of the machine's CPU used by other processes during the measurement.\n");
        for (int run = 1; run <= options.runs(); run++) {
            int r = run;
            md.append(options.runs() == 1 ? "\n## Results\n\n" : "\n## Run " + r + "\n\n");
            table(md, options, results, shape -> runPhase(r, shape));
        }
        if (options.runs() > 1) {
            md.append("\n## Medians of ")
                    .append(options.runs())
                    .append(" runs\n\n")
                    .append("Metric by metric; failed, errors and violations are the sums over the runs, most "
                            + "holders the most of any run.\n\n");
            table(md, options, results, MultiClient::medianPhase);
        }
        md.append(exclusion(options, results));
        return md.toString();
    }

    /** A column of the tables: its header, and its cell from the results of one implementation and phase. */
    private record Column(String header, CellOf cell) {

        /** A column showing one metric, formatted. */
        static Column of(String header, String metric, DoubleFunction<String> format) {
            return new Column(header, (r, e, phase) -> format.apply(r.get(e.id(), phase, metric)));
        }
    }

    @FunctionalInterface
    private interface CellOf {
        String apply(Results results, Entrant e, String phase);
    }

    /** The columns after the implementation and the shape, in table order. */
    private static final List<Column> COLUMNS = List.of(
            Column.of("CS/s", "cs_per_s", Report::num),
            Column.of("rounds/CS", "rounds_per_cs", Report::num),
            Column.of("split/CS", "split_rounds_per_cs", Report::num),
            Column.of("wait mean", "wait_mean", Report::num),
            Column.of("wait p50", "wait_p50", Report::num),
            Column.of("wait p99", "wait_p99", Report::num),
            Column.of("p99/mean", "p99_over_mean", Report::num),
            Column.of("to other client", "to_other_client", MultiClient::percent),
            Column.of("same thread", "same_thread_again", MultiClient::percent),
            Column.of("client share min", "client_share_min", MultiClient::share),
            Column.of("client share max", "client_share_max", MultiClient::share),
            Column.of("failed", "failed", Report::count),
            new Column(
                    "exclusion",
                    (r, e, phase) -> exclusionCell(
                            r.get(e.id(), phase, "max_holders"), r.get(e.id(), phase, "violations"), e.limit())),
            Column.of("errors", "errors", Report::count),
            Column.of("other CPU", "foreign_cpu", MultiClient::percent));

    private static void table(StringBuilder md, Options options, Results r, Function<Shape, String> phaseOf) {
        List<String> headers = new ArrayList<>(List.of("implementation", "shape"));
        COLUMNS.forEach(c -> headers.add(c.header()));
        Report.table(md, headers.toArray(String[]::new));
        for (Entrant e : options.entrants()) {
            for (Shape shape : options.shapes()) {
                List<String> cells = new ArrayList<>(List.of(e.label(), shape.toString()));
                for (Column c : COLUMNS) {
                    cells.add(c.cell().apply(r, e, phaseOf.apply(shape)));
                }
                Report.row(md, cells.toArray(String[]::new));
            }
        }
    }

    private static String exclusionCell(double maxHolders, double violations, int limit) {
        if (Double.isNaN(maxHolders)) {
            return "-"; // not measured
        }
        String most = "most " + Report.count(maxHolders) + " of " + limit;
        return violations > 0 ? "**VIOLATED x" + Report.count(violations) + "**, " + most : "ok, " + most;
    }

    /** Every measurement in which more held at once than allowed, or a line saying there was none. */
    private static String exclusion(Options options, Results results) {
        StringBuilder md = new StringBuilder("\n## Exclusion\n\n");
        int listed = 0;
        for (Results.Row row : results.rows()) {
            if (row.metric().equals("violations")
                    && row.value() > 0
                    && row.phase().startsWith("run")) {
                listed++;
                md.append("- **VIOLATED**: ")
                        .append(row.impl())
                        .append(", ")
                        .append(row.phase())
                        .append(": ")
                        .append(Report.count(row.value()))
                        .append(" grants beside more holders than allowed (most ")
                        .append(Report.count(results.get(row.impl(), row.phase(), "max_holders")))
                        .append(" at once)\n");
            }
        }
        if (listed == 0) {
            md.append("No violation: no measurement saw more holders at once than allowed (")
                    .append(options.runs())
                    .append(options.runs() == 1 ? " run" : " runs")
                    .append(").\n");
        }
        return md.toString();
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", v);
    }

    private static String share(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "x%.2f", v);
    }
}
