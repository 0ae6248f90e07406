/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.QuorumPolicy;
import dev.redlock.bench.FamilyContenders.Flavor;
import dev.redlock.bench.FamilyContenders.Kind;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The lock family side by side with Redisson, in one run on one machine: this library's fair lock, read-write lock,
 * semaphore and multi-resource lock over five independent {@code redis-server} masters (granted by a majority), and
 * Redisson's {@code RFairLock}, {@code RReadWriteLock}, {@code RPermitExpirableSemaphore}, {@code RSemaphore} and
 * {@code getMultiLock} on one of them (plus, for several resources, a {@code RedissonRedLock} per resource over all
 * five). A plain mutex ({@code redLock} against {@code RLock} and {@code RedissonRedLock}) is measured uncontended as
 * the reference.
 *
 * <p>Run from the repository root:
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests &amp;&amp; java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.Family
 * </pre>
 * Results go to {@code redlock-bench/target/family/} ({@code results.md}, {@code results.csv}, {@code chart.png};
 * {@code -Dfamily.out=DIR} overrides); the Markdown is also printed. The run takes about three minutes. With
 * {@code --median a.csv b.csv ...} it runs nothing and prints the same tables from the medians, metric by metric, of
 * the {@code results.csv} of earlier runs (ratios are then those of the medians), leaving out a measurement's
 * disturbed runs when it has undisturbed ones.
 *
 * <p>Phases, kind by kind (a kind's clients are closed before the next kind starts):
 * <ol>
 *   <li>uncontended: one thread, one name, acquire with {@code wait 0} and release; 1 s of warm-up cycles, then
 *       2 s of cycles: cycles per second and the latency of a cycle (p50, p99). The read-write lock is measured as a
 *       read lock and as a write lock;</li>
 *   <li>contended: every thread on one name acquires (waiting up to 10 s), runs an empty critical section and
 *       releases, for 5 s after a 1 s warm-up: fair lock and multi-resource lock with 8 and 64 threads, read-write
 *       lock with 8 and 64 threads of which each acquisition is a write with probability 10% (a read otherwise),
 *       semaphore ({@value FamilyContenders#PERMITS} permits) with 16 threads. Reported: acquisitions per second, the
 *       wait (acquire call to grant: mean, p50, p99, p99/mean), Redis commands per acquisition (as {@link Contention}
 *       counts them), how often a grant went to a thread that began waiting after another thread still waiting
 *       (exclusive kinds), and a check of exclusion inside the JVM (most holders at once; a violation is a writer
 *       granted beside another holder, or more holders than permits).</li>
 * </ol>
 * During each measurement the CPU that other processes took from the machine is recorded ({@link ForeignCpu}); a
 * measurement during which they took {@value #DISTURBED_PERCENT}% or more is listed as disturbed. After each phase,
 * every lease released, the keys of its lock still on the masters are counted (with and without a TTL). Every lease
 * is fixed at 10 s, so no watchdog runs; names differ per implementation and phase.
 */
public final class Family {

    static final int NODES = 5;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);

    static final Duration UNCONTENDED_WARMUP = Duration.ofSeconds(1);
    static final Duration UNCONTENDED_MEASURE = Duration.ofSeconds(2);

    static final long WAIT_MILLIS = 10_000;
    static final Duration WARMUP = Duration.ofSeconds(1);
    static final Duration MEASURE = Duration.ofSeconds(5);
    static final int[] THREADS = {8, 64};
    static final int SEMAPHORE_THREADS = 16;
    static final double WRITE_SHARE = 0.10;

    /** A phase during which other processes used this share (%) of the machine's CPU or more is disturbed. */
    static final double DISTURBED_PERCENT = 5;

    /** Bound on how long the workers of a contended phase may take to stop (a wait budget plus slack). */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);

    private static final String OURS_PLAIN = "ours-redlock";
    private static final String REDISSON_PLAIN = "redisson-rlock";
    private static final String REDISSON_RED_LOCK = "redisson-redlock";

    private Family() {}

    /** One line of a table: a phase of ours against one Redisson counterpart. */
    private record Pair(String kind, String phase, int threads, String ours, String theirs) {

        /** The kind in a word, for the chart: the phase's kind. */
        String shortKind() {
            return phase.split(":")[1];
        }
    }

    /** The uncontended comparisons, in table order. */
    private static final List<Pair> UNCONTENDED = List.of(
            new Pair("mutex (reference)", "uncontended:plain", 1, OURS_PLAIN, REDISSON_PLAIN),
            new Pair("mutex (reference)", "uncontended:plain", 1, OURS_PLAIN, REDISSON_RED_LOCK),
            new Pair("fair lock", "uncontended:fair", 1, "ours-fair", "redisson-fair"),
            new Pair("read lock", "uncontended:read", 1, "ours-rw", "redisson-rw"),
            new Pair("write lock", "uncontended:write", 1, "ours-rw", "redisson-rw"),
            new Pair("semaphore", "uncontended:semaphore", 1, "ours-semaphore", "redisson-permit-semaphore"),
            new Pair("semaphore", "uncontended:semaphore", 1, "ours-semaphore", "redisson-semaphore"),
            new Pair("multi-resource lock", "uncontended:multi", 1, "ours-multi", "redisson-multi"),
            new Pair("multi-resource lock", "uncontended:multi", 1, "ours-multi", "redisson-redlocks"));

    /** The contended comparisons, in table order. */
    private static final List<Pair> CONTENDED = contendedPairs();

    private static List<Pair> contendedPairs() {
        List<Pair> pairs = new ArrayList<>();
        for (int t : THREADS) {
            pairs.add(new Pair("fair lock", contendedPhase("fair", t), t, "ours-fair", "redisson-fair"));
        }
        for (int t : THREADS) {
            pairs.add(new Pair("read-write, 10% writes", contendedPhase("rw", t), t, "ours-rw", "redisson-rw"));
        }
        pairs.add(new Pair(
                "semaphore",
                contendedPhase("semaphore", SEMAPHORE_THREADS),
                SEMAPHORE_THREADS,
                "ours-semaphore",
                "redisson-permit-semaphore"));
        pairs.add(new Pair(
                "semaphore",
                contendedPhase("semaphore", SEMAPHORE_THREADS),
                SEMAPHORE_THREADS,
                "ours-semaphore",
                "redisson-semaphore"));
        for (int t : THREADS) {
            pairs.add(new Pair("multi-resource lock", contendedPhase("multi", t), t, "ours-multi", "redisson-multi"));
            pairs.add(
                    new Pair("multi-resource lock", contendedPhase("multi", t), t, "ours-multi", "redisson-redlocks"));
        }
        return List.copyOf(pairs);
    }

    private static String contendedPhase(String kind, int threads) {
        return "contended:" + kind + ":" + threads + "t";
    }

    /**
     * Runs every phase once and writes the report; or, with {@code --median} and CSV files, prints the report of their
     * medians. See the class documentation.
     *
     * @param args nothing, or {@code --median} followed by the {@code results.csv} of earlier runs
     * @throws Exception if the nodes or a client cannot be started, or a file cannot be read or written
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--median")) {
            median(Arrays.asList(args).subList(1, args.length));
            return;
        }
        Compare.quietRedissonLogs();
        Path out = Compare.outputDir("family.out", "family");
        Machine machine = Machine.describe();
        System.err.println("[family] " + machine.markdown().replace("\n", " "));
        long started = System.nanoTime();
        Results results = new Results();
        List<Report.Impl> impls = new ArrayList<>();
        try (RedisNodes nodes = RedisNodes.start(NODES)) {
            List<String> uris = nodes.uris();
            List<RedisServer> servers = nodes.servers();

            runKind(
                    impls,
                    results,
                    List.of(
                            new OurContender(QuorumPolicy.MAJORITY, uris, PER_NODE_TIMEOUT, LEASE),
                            new RedissonContender(RedissonContender.Kind.SINGLE, uris, LEASE),
                            new RedissonContender(RedissonContender.Kind.RED_LOCK, uris, LEASE)),
                    (c, r) -> uncontended(c, "uncontended:plain", false, servers, r));

            runKind(
                    impls,
                    results,
                    List.of(
                            new FamilyContenders.Ours(Kind.FAIR, uris, PER_NODE_TIMEOUT, LEASE),
                            new FamilyContenders.Theirs(Flavor.FAIR_LOCK, uris, LEASE)),
                    (c, r) -> {
                        uncontended(c, "uncontended:fair", false, servers, r);
                        for (int t : THREADS) {
                            contended(c, contendedPhase("fair", t), t, 1, 1, true, servers, r);
                        }
                    });

            runKind(
                    impls,
                    results,
                    List.of(
                            new FamilyContenders.Ours(Kind.READ_WRITE, uris, PER_NODE_TIMEOUT, LEASE),
                            new FamilyContenders.Theirs(Flavor.READ_WRITE_LOCK, uris, LEASE)),
                    (c, r) -> {
                        uncontended(c, "uncontended:read", true, servers, r);
                        uncontended(c, "uncontended:write", false, servers, r);
                        for (int t : THREADS) {
                            contended(c, contendedPhase("rw", t), t, WRITE_SHARE, 1, false, servers, r);
                        }
                    });

            runKind(
                    impls,
                    results,
                    List.of(
                            new FamilyContenders.Ours(Kind.SEMAPHORE, uris, PER_NODE_TIMEOUT, LEASE),
                            new FamilyContenders.Theirs(Flavor.PERMIT_EXPIRABLE_SEMAPHORE, uris, LEASE),
                            new FamilyContenders.Theirs(Flavor.SEMAPHORE, uris, LEASE)),
                    (c, r) -> {
                        uncontended(c, "uncontended:semaphore", false, servers, r);
                        contended(
                                c,
                                contendedPhase("semaphore", SEMAPHORE_THREADS),
                                SEMAPHORE_THREADS,
                                1,
                                FamilyContenders.PERMITS,
                                false,
                                servers,
                                r);
                    });

            runKind(
                    impls,
                    results,
                    List.of(
                            new FamilyContenders.Ours(Kind.MULTI, uris, PER_NODE_TIMEOUT, LEASE),
                            new FamilyContenders.Theirs(Flavor.MULTI_LOCK, uris, LEASE),
                            new FamilyContenders.Theirs(Flavor.RED_LOCKS_IN_ORDER, uris, LEASE)),
                    (c, r) -> {
                        uncontended(c, "uncontended:multi", false, servers, r);
                        for (int t : THREADS) {
                            contended(c, contendedPhase("multi", t), t, 1, 1, true, servers, r);
                        }
                    });
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        Map<String, String> labels = new LinkedHashMap<>();
        for (Report.Impl impl : impls) {
            labels.put(impl.id(), impl.label());
        }
        String md = markdown(machine, "The run took " + took.toSeconds() + " s.", labels, results)
                + disturbance(labels, results, null)
                + leftovers(labels, results)
                + settings(impls)
                + errors(labels, results);
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.md"), md);
        Files.writeString(out.resolve("results.csv"), new Report(machine, impls, results, took).csv());
        chart(out.resolve("chart.png"), results);
        System.out.println(md);
        System.out.println("Written: " + out.resolve("results.md") + ", " + out.resolve("results.csv") + ", "
                + out.resolve("chart.png"));
    }

    /** What a kind runs on each of its contenders. */
    @FunctionalInterface
    private interface Phases {
        void run(Contender c, Results results) throws Exception;
    }

    /** Runs the phases on each contender in turn, then closes them all (before the next kind's are created). */
    private static void runKind(List<Report.Impl> impls, Results results, List<Contender> contenders, Phases phases)
            throws Exception {
        try {
            for (Contender c : contenders) {
                impls.add(new Report.Impl(c.id(), c.label(), c.settings(), false));
            }
            for (Contender c : contenders) {
                phases.run(c, results);
            }
        } finally {
            Cleanup.each(contenders, Contender::close);
        }
    }

    // ------------------------------------------------------------------------------------------------ phases

    /** One thread, one name: cycles of acquire ({@code wait 0}) and release. */
    private static void uncontended(
            Contender c, String phase, boolean shared, List<RedisServer> servers, Results results) throws Exception {
        System.err.printf("[family] %-30s %s%n", phase, c.label());
        Samples cycle = new Samples();
        Failures failures = new Failures();
        String name = c.id() + ":" + phase;
        long elapsed;
        double foreign;
        try (Contender.Handle handle = shared ? ((FamilyContenders.Shared) c).openShared(name) : c.open(name)) {
            long start = System.nanoTime() + UNCONTENDED_WARMUP.toNanos();
            Failures warmupFailures = new Failures();
            while (System.nanoTime() - start < 0) {
                Compare.timedCycle(handle, null, null, null, warmupFailures);
            }
            long end = start + UNCONTENDED_MEASURE.toNanos();
            ForeignCpu other = ForeignCpu.start();
            while (System.nanoTime() - end < 0) {
                Compare.timedCycle(handle, null, cycle, null, failures);
            }
            elapsed = System.nanoTime() - start;
            foreign = other.percent();
        }
        String id = c.id();
        results.put(id, phase, "foreign_cpu", foreign, "%", cycle.size());
        results.put(id, phase, "cycles_per_s", cycle.size() / (elapsed / 1e9), "1/s", cycle.size());
        results.put(id, phase, "cycle_p50", cycle.percentile(0.5) / 1e3, "us", cycle.size());
        results.put(id, phase, "cycle_p99", cycle.percentile(0.99) / 1e3, "us", cycle.size());
        results.put(id, phase, "errors", failures.errorCount() + failures.releaseErrorCount(), "count", cycle.size());
        results.note(id, phase, failures.summary());
        putLeftovers(servers, name, id, phase, results);
    }

    /**
     * Counts the keys of the phase's lock left on the masters once every lease was released: {@code keys_kept}
     * without a TTL, {@code keys_expiring} with one.
     */
    private static void putLeftovers(List<RedisServer> servers, String name, String id, String phase, Results results) {
        long kept = 0;
        long expiring = 0;
        List<String> seen = new ArrayList<>();
        for (RedisServer server : servers) {
            try (redis.clients.jedis.Jedis jedis = server.client()) {
                for (String key : jedis.keys("*" + name + "*")) {
                    if (jedis.pttl(key) == -1) {
                        kept++;
                    } else {
                        expiring++;
                    }
                    if (seen.size() < 4 && !seen.contains(key)) {
                        seen.add(key);
                    }
                }
            }
        }
        results.put(id, phase, "keys_kept", kept, "count", kept);
        results.put(id, phase, "keys_expiring", expiring, "count", expiring);
        if (!seen.isEmpty()) {
            results.note(id, phase + " keys", "e.g. " + String.join(", ", seen));
        }
    }

    /**
     * Every thread on one name: acquire (waiting up to {@link #WAIT_MILLIS}), empty critical section, release.
     *
     * @param writeShare the probability that an acquisition is exclusive; below 1 the others take the shared side
     * @param limit how many exclusive holders may hold at once (the permits of a semaphore, 1 otherwise)
     * @param orderCheck whether to count grants to a thread that began waiting after another one still waiting
     */
    private static void contended(
            Contender c,
            String phase,
            int threads,
            double writeShare,
            int limit,
            boolean orderCheck,
            List<RedisServer> servers,
            Results results)
            throws InterruptedException {
        System.err.printf("[family] %-30s %s%n", phase, c.label());
        String name = c.id() + ":" + phase;
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder sections = new LongAdder();
        LongAdder exclusiveSections = new LongAdder();
        LongAdder timedOut = new LongAdder();
        LongAdder overtaken = new LongAdder();
        LongAdder violations = new LongAdder();
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger maxHolders = new AtomicInteger();
        Failures failures = new Failures();
        // When each worker began the acquisition it is in (Long.MAX_VALUE: none).
        AtomicLongArray waitingSince = new AtomicLongArray(threads);
        List<Samples> readWaits = new ArrayList<>();
        List<Samples> writeWaits = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            waitingSince.set(i, Long.MAX_VALUE);
            readWaits.add(new Samples());
            writeWaits.add(new Samples());
        }
        Workers workers = Workers.start("family-" + c.id() + "-" + phase, threads, failures, (worker, ready) -> {
            Samples readWait = readWaits.get(worker);
            Samples writeWait = writeWaits.get(worker);
            try (Contender.Handle write = c.open(name);
                    Contender.Handle read = writeShare < 1 ? ((FamilyContenders.Shared) c).openShared(name) : null) {
                ready.run();
                SplittableRandom random = new SplittableRandom(worker);
                while (!stop.get()) {
                    boolean exclusive = writeShare >= 1 || random.nextDouble() < writeShare;
                    Contender.Handle handle = exclusive ? write : read;
                    long t0 = System.nanoTime();
                    waitingSince.set(worker, t0);
                    boolean acquired;
                    try {
                        acquired = handle.acquire(WAIT_MILLIS);
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        waitingSince.set(worker, Long.MAX_VALUE);
                        failures.error(e);
                        continue;
                    }
                    long granted = System.nanoTime();
                    waitingSince.set(worker, Long.MAX_VALUE);
                    boolean measured = measuring.get();
                    if (!acquired) {
                        if (measured) {
                            timedOut.increment();
                        }
                        continue;
                    }
                    // The JVM's own view of the holders, taken inside the hold: [grant, release call).
                    if (exclusive) {
                        int now = holders.incrementAndGet();
                        maxHolders.accumulateAndGet(now, Math::max);
                        if (now > limit || readers.get() > 0) {
                            violations.increment();
                        }
                    } else {
                        maxHolders.accumulateAndGet(readers.incrementAndGet(), Math::max);
                        if (holders.get() > 0) {
                            violations.increment();
                        }
                    }
                    if (measured) {
                        sections.increment();
                        if (exclusive) {
                            exclusiveSections.increment();
                            writeWait.add(granted - t0);
                        } else {
                            readWait.add(granted - t0);
                        }
                        if (orderCheck && startedBefore(waitingSince, worker, t0)) {
                            overtaken.increment();
                        }
                    }
                    // Empty critical section.
                    if (exclusive) {
                        holders.decrementAndGet();
                    } else {
                        readers.decrementAndGet();
                    }
                    try {
                        handle.release();
                    } catch (Exception e) {
                        failures.releaseError(e);
                    }
                }
            }
        });
        workers.awaitReady();
        Compare.parkUntil(System.nanoTime() + WARMUP.toNanos());
        long commandsBefore = Contention.commands(servers);
        ForeignCpu other = ForeignCpu.start();
        measuring.set(true);
        long t0 = System.nanoTime();
        Compare.parkUntil(t0 + MEASURE.toNanos());
        measuring.set(false);
        long wall = System.nanoTime() - t0;
        double foreign = other.percent();
        long commandsAfter = Contention.commands(servers);
        stop.set(true);
        workers.join(JOIN_TIMEOUT);

        Samples readWait = new Samples();
        Samples writeWait = new Samples();
        for (int i = 0; i < threads; i++) {
            readWait.addAll(readWaits.get(i));
            writeWait.addAll(writeWaits.get(i));
        }
        Samples wait = new Samples();
        wait.addAll(readWait);
        wait.addAll(writeWait);
        String id = c.id();
        long done = sections.sum();
        results.put(id, phase, "foreign_cpu", foreign, "%", done);
        results.put(id, phase, "ops_per_s", done / (wall / 1e9), "1/s", done);
        results.put(id, phase, "wait_mean", wait.mean() / 1e6, "ms", wait.size());
        results.put(id, phase, "wait_p50", wait.percentile(0.5) / 1e6, "ms", wait.size());
        results.put(id, phase, "wait_p99", wait.percentile(0.99) / 1e6, "ms", wait.size());
        results.put(id, phase, "p99_over_mean", wait.percentile(0.99) / wait.mean(), "x", wait.size());
        if (writeShare < 1) {
            results.put(
                    id, phase, "writes_per_s", exclusiveSections.sum() / (wall / 1e9), "1/s", exclusiveSections.sum());
            results.put(id, phase, "read_wait_p99", readWait.percentile(0.99) / 1e6, "ms", readWait.size());
            results.put(id, phase, "write_wait_p50", writeWait.percentile(0.5) / 1e6, "ms", writeWait.size());
            results.put(id, phase, "write_wait_p99", writeWait.percentile(0.99) / 1e6, "ms", writeWait.size());
        }
        if (orderCheck) {
            results.put(id, phase, "overtaken_pct", done == 0 ? Double.NaN : 100.0 * overtaken.sum() / done, "%", done);
        }
        results.put(
                id,
                phase,
                "commands_per_op",
                done == 0 ? Double.NaN : (double) (commandsAfter - commandsBefore) / done,
                "count",
                done);
        results.put(id, phase, "max_holders", maxHolders.get(), "count", done);
        results.put(id, phase, "violations", violations.sum(), "count", done);
        results.put(id, phase, "timed_out", timedOut.sum(), "count", timedOut.sum());
        results.put(id, phase, "errors", failures.errorCount() + failures.releaseErrorCount(), "count", done);
        results.note(id, phase, failures.summary());
        putLeftovers(servers, name, id, phase, results);
    }

    /** Whether a worker other than {@code self} is still waiting in an acquisition it began before {@code t0}. */
    private static boolean startedBefore(AtomicLongArray waitingSince, int self, long t0) {
        for (int j = 0; j < waitingSince.length(); j++) {
            if (j != self && waitingSince.get(j) - t0 < 0) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------ report

    private static String markdown(Machine machine, String runLine, Map<String, String> labels, Results r) {
        StringBuilder md = new StringBuilder("# Lock family: ours over 5 masters, Redisson on 1\n\n")
                .append(machine.markdown())
                .append(' ')
                .append(runLine)
                .append("\n\n")
                .append("Ours asks all 5 masters and needs a majority (3) of them for every grant; Redisson's "
                        + "objects (except the RedLock row) live on one master. `÷` is ours divided by Redisson: "
                        + "for cycles/s and acquisitions/s above x1 means ours is faster, for latencies and waits "
                        + "below x1 means ours is faster. `-` means not measured or no sample.\n\n");

        md.append("## Uncontended: one thread, one name\n\n")
                .append("`wait 0`, lease 10 s; ")
                .append(UNCONTENDED_WARMUP.toSeconds())
                .append(" s of warm-up " + "cycles, then ")
                .append(UNCONTENDED_MEASURE.toSeconds())
                .append(" s of acquire+release cycles: their number per second, and the latency of one. Semaphore: ")
                .append(FamilyContenders.PERMITS)
                .append(" permits; multi-resource: ")
                .append(FamilyContenders.RESOURCES)
                .append(" resources.\n\n");
        Report.table(md, new String[] {
            "kind",
            "Redisson counterpart",
            "ours cycles/s",
            "Redisson cycles/s",
            "÷",
            "ours p50 µs",
            "Redisson p50 µs",
            "÷",
            "ours p99 µs",
            "Redisson p99 µs",
            "÷"
        });
        for (Pair p : UNCONTENDED) {
            double oc = r.get(p.ours(), p.phase(), "cycles_per_s");
            double tc = r.get(p.theirs(), p.phase(), "cycles_per_s");
            double o50 = r.get(p.ours(), p.phase(), "cycle_p50");
            double t50 = r.get(p.theirs(), p.phase(), "cycle_p50");
            double o99 = r.get(p.ours(), p.phase(), "cycle_p99");
            double t99 = r.get(p.theirs(), p.phase(), "cycle_p99");
            Report.row(
                    md,
                    p.kind(),
                    labelOf(labels, p.theirs()),
                    Report.num(oc),
                    Report.num(tc),
                    Report.times(oc, tc),
                    Report.num(o50),
                    Report.num(t50),
                    Report.times(o50, t50),
                    Report.num(o99),
                    Report.num(t99),
                    Report.times(o99, t99));
        }

        md.append("\n## Contended: every thread on one name\n\n")
                .append("Each thread: acquire (wait up to ")
                .append(WAIT_MILLIS / 1000)
                .append(" s, lease 10 s), " + "empty critical section, release; ")
                .append(WARMUP.toSeconds())
                .append(" s warm-up, ")
                .append(MEASURE.toSeconds())
                .append(" s measured. Read-write: each acquisition is a write with " + "probability ")
                .append(Math.round(WRITE_SHARE * 100))
                .append("%, a read otherwise. "
                        + "Ops/s: acquisitions (critical sections) per second. Wait: from the acquire call to the "
                        + "grant, in ms.\n\n");
        Report.table(md, new String[] {
            "kind",
            "threads",
            "Redisson counterpart",
            "ours ops/s",
            "Redisson ops/s",
            "÷",
            "ours wait mean",
            "Redisson wait mean",
            "ours wait p99",
            "Redisson wait p99",
            "÷",
            "ours p99/mean",
            "Redisson p99/mean"
        });
        for (Pair p : CONTENDED) {
            double oo = r.get(p.ours(), p.phase(), "ops_per_s");
            double to = r.get(p.theirs(), p.phase(), "ops_per_s");
            double o99 = r.get(p.ours(), p.phase(), "wait_p99");
            double t99 = r.get(p.theirs(), p.phase(), "wait_p99");
            Report.row(
                    md,
                    p.kind(),
                    Integer.toString(p.threads()),
                    labelOf(labels, p.theirs()),
                    Report.num(oo),
                    Report.num(to),
                    Report.times(oo, to),
                    Report.num(r.get(p.ours(), p.phase(), "wait_mean")),
                    Report.num(r.get(p.theirs(), p.phase(), "wait_mean")),
                    Report.num(o99),
                    Report.num(t99),
                    Report.times(o99, t99),
                    Report.num(r.get(p.ours(), p.phase(), "p99_over_mean")),
                    Report.num(r.get(p.theirs(), p.phase(), "p99_over_mean")));
        }

        md.append("\n## Contended: each implementation\n\n")
                .append("Overtaken: share of grants that went to a thread while another thread that had begun "
                        + "waiting earlier was still waiting (FIFO order gives 0; exclusive kinds only). Commands: "
                        + "EVAL/EVALSHA and (UN)SUBSCRIBE requests over all masters (INFO commandstats) per "
                        + "acquisition; commands run inside scripts and other commands are not counted. Most "
                        + "holders: most exclusive holders (readers for a read) seen at once inside the JVM; "
                        + "violations: a grant beside a holder it excludes, seen inside the JVM.\n\n");
        Report.table(md, new String[] {
            "kind",
            "threads",
            "implementation",
            "ops/s",
            "wait p50",
            "wait p99",
            "writes/s",
            "write wait p50",
            "write wait p99",
            "read wait p99",
            "overtaken",
            "commands/op",
            "most holders",
            "violations",
            "timed out",
            "errors"
        });
        List<String> seen = new ArrayList<>();
        for (Pair p : CONTENDED) {
            for (String id : List.of(p.ours(), p.theirs())) {
                if (seen.contains(id + p.phase())) {
                    continue;
                }
                seen.add(id + p.phase());
                String ph = p.phase();
                double overtaken = r.get(id, ph, "overtaken_pct");
                Report.row(
                        md,
                        p.kind(),
                        Integer.toString(p.threads()),
                        labelOf(labels, id),
                        Report.num(r.get(id, ph, "ops_per_s")),
                        Report.num(r.get(id, ph, "wait_p50")),
                        Report.num(r.get(id, ph, "wait_p99")),
                        Report.num(r.get(id, ph, "writes_per_s")),
                        Report.num(r.get(id, ph, "write_wait_p50")),
                        Report.num(r.get(id, ph, "write_wait_p99")),
                        Report.num(r.get(id, ph, "read_wait_p99")),
                        Double.isNaN(overtaken) ? "-" : String.format(Locale.ROOT, "%.1f%%", overtaken),
                        Report.num(r.get(id, ph, "commands_per_op")),
                        count(r.get(id, ph, "max_holders")),
                        count(r.get(id, ph, "violations")),
                        count(r.get(id, ph, "timed_out")),
                        count(r.get(id, ph, "errors")));
            }
        }
        return md.toString();
    }

    /** The Settings section: each implementation's label, id and settings, one item each. */
    static String settings(List<Report.Impl> impls) {
        StringBuilder md = new StringBuilder("\n## Settings\n\n");
        for (Report.Impl impl : impls) {
            md.append("- **")
                    .append(impl.label())
                    .append("** (`")
                    .append(impl.id())
                    .append("`): ")
                    .append(impl.settings())
                    .append('\n');
        }
        return md.toString();
    }

    /** The measurements during which other processes took a noticeable share of the CPU. */
    private static String disturbance(Map<String, String> labels, Results results, Map<String, String> medianNotes) {
        StringBuilder md = new StringBuilder("\n## Other load on the machine\n\n")
                .append("CPU used by processes other than this JVM and its redis-servers, as a share of the whole "
                        + "machine, during each measurement (from /proc). Measurements with ")
                .append(Report.num(DISTURBED_PERCENT))
                .append("% or more are listed")
                .append(
                        medianNotes == null
                                ? ""
                                : "; the medians leave out the runs in which a measurement was "
                                        + "disturbed, when at least one run of it was not")
                .append(".\n\n");
        int listed = 0;
        for (Results.Row row : results.rows()) {
            if (!row.metric().equals("foreign_cpu")) {
                continue;
            }
            String key = row.impl() + "|" + row.phase();
            String note = medianNotes == null ? null : medianNotes.get(key);
            if (row.value() >= DISTURBED_PERCENT || note != null) {
                listed++;
                md.append("- ")
                        .append(labelOf(labels, row.impl()))
                        .append(", ")
                        .append(row.phase())
                        .append(": ")
                        .append(note != null ? note : Report.num(row.value()) + "%")
                        .append('\n');
            }
        }
        if (listed == 0) {
            md.append("None.\n");
        }
        return md.toString();
    }

    /** The phases after which keys of their lock were left on the masters. */
    private static String leftovers(Map<String, String> labels, Results results) {
        StringBuilder md = new StringBuilder("\n## Keys left on the masters after each phase\n\n")
                .append("Every lease released: the keys whose name contains the phase's lock name, over all masters, "
                        + "without a TTL (kept) and with one (expiring). Redisson's semaphores keep their permit "
                        + "count (and the expirable one its permits' timeouts) by design. Phases that left none are "
                        + "not listed.\n\n");
        int listed = 0;
        List<String> done = new ArrayList<>();
        for (Results.Row row : results.rows()) {
            String key = row.impl() + "|" + row.phase();
            if (!row.metric().equals("keys_kept") || done.contains(key)) {
                continue;
            }
            done.add(key);
            double kept = row.value();
            double expiring = results.get(row.impl(), row.phase(), "keys_expiring");
            if (kept > 0 || expiring > 0) {
                listed++;
                String example = results.note(row.impl(), row.phase() + " keys");
                md.append("- ")
                        .append(labelOf(labels, row.impl()))
                        .append(", ")
                        .append(row.phase())
                        .append(": ")
                        .append(count(kept))
                        .append(" kept, ")
                        .append(count(expiring))
                        .append(" expiring")
                        .append(example.isEmpty() ? "" : " (" + example + ")")
                        .append('\n');
            }
        }
        if (listed == 0) {
            md.append("None.\n");
        }
        return md.toString();
    }

    /** The section of every phase's notes (errors, failed attempts), leaving out the examples of leftover keys. */
    static String errors(Map<String, String> labels, Results results) {
        StringBuilder md = new StringBuilder("\n## Errors and failed attempts\n\n");
        List<String[]> notes = results.notes();
        notes.removeIf(note -> note[1].endsWith(" keys"));
        if (notes.isEmpty()) {
            md.append("None.\n");
        }
        for (String[] note : notes) {
            md.append("- ")
                    .append(labelOf(labels, note[0]))
                    .append(", ")
                    .append(note[1])
                    .append(": ")
                    .append(note[2].replace("|", "\\|"))
                    .append('\n');
        }
        return md.toString();
    }

    private static String labelOf(Map<String, String> labels, String id) {
        return labels.getOrDefault(id, id);
    }

    /** A label short enough for a bar. */
    private static String shortLabel(String id) {
        return switch (id) {
            case REDISSON_PLAIN -> "Redisson RLock";
            case REDISSON_RED_LOCK -> "Redisson RedLock";
            case "redisson-fair" -> "Redisson RFairLock";
            case "redisson-rw" -> "Redisson RReadWriteLock";
            case "redisson-permit-semaphore" -> "Redisson RPermit Expirable Semaphore";
            case "redisson-semaphore" -> "Redisson RSemaphore";
            case "redisson-multi" -> "Redisson getMultiLock";
            case "redisson-redlocks" -> "Redisson RedLocks in order";
            default -> id.startsWith("ours") ? "ours" : id;
        };
    }

    private static String count(double v) {
        return Double.isNaN(v) ? "-" : Long.toString(Math.round(v));
    }

    /** Two panels: uncontended cycles/s of every implementation, and acquisitions/s at the fewest threads. */
    private static void chart(Path file, Results r) throws IOException {
        Set<String> seen = new HashSet<>();
        List<Pair> fewestThreads = CONTENDED.stream()
                .filter(p -> p.threads() == THREADS[0] || p.threads() == SEMAPHORE_THREADS)
                .toList();
        Chart.write(
                file,
                "Lock family: ours over 5 masters (blue), Redisson (red)",
                List.of(
                        panel(
                                "Uncontended acquire+release cycles per second, one thread (higher is better)",
                                "cycles per second",
                                UNCONTENDED,
                                "cycles_per_s",
                                seen,
                                r),
                        panel(
                                "Contended acquisitions per second, " + THREADS[0] + " threads (" + SEMAPHORE_THREADS
                                        + " for the semaphore) on one name (higher is better)",
                                "acquisitions per second",
                                fewestThreads,
                                "ops_per_s",
                                seen,
                                r)));
    }

    /** A panel of {@code metric} for both sides of each pair, leaving out the bars {@code seen} already has. */
    private static Chart.Panel panel(
            String title, String yLabel, List<Pair> pairs, String metric, Set<String> seen, Results r) {
        List<String> labels = new ArrayList<>();
        List<Chart.Group> groups = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (Pair p : pairs) {
            for (String id : List.of(p.ours(), p.theirs())) {
                if (seen.add(id + p.phase())) {
                    labels.add(p.shortKind() + ": " + shortLabel(id));
                    groups.add(Chart.Group.of(id));
                    values.add(r.get(id, p.phase(), metric));
                }
            }
        }
        return new Chart.Panel(
                title,
                yLabel,
                labels,
                groups,
                values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    // ------------------------------------------------------------------------------------------------ medians

    /**
     * Prints the tables of the medians of earlier runs' {@code results.csv}, metric by metric. A measurement's values
     * from runs in which it was disturbed ({@link #DISTURBED_PERCENT}) are left out when another run has it undisturbed.
     */
    private static void median(List<String> files) throws IOException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("--median needs the results.csv of at least one run");
        }
        // Per run: metric key (impl|phase|metric) -> value; and the measurement's other load (impl|phase -> %).
        List<Map<String, Double>> runs = new ArrayList<>();
        List<Map<String, Double>> loads = new ArrayList<>();
        Map<String, String[]> keys = new LinkedHashMap<>();
        Map<String, String> labels = new LinkedHashMap<>();
        for (String file : files) {
            Map<String, Double> values = new LinkedHashMap<>();
            Map<String, Double> load = new LinkedHashMap<>();
            List<String> lines = Files.readAllLines(Path.of(file));
            for (String line : lines.subList(1, lines.size())) {
                List<String> cells = csvCells(line);
                String impl = cells.get(0);
                labels.put(impl, cells.get(1));
                String key = impl + "|" + cells.get(2) + "|" + cells.get(3);
                keys.putIfAbsent(key, new String[] {impl, cells.get(2), cells.get(3), cells.get(5)});
                double value = cells.get(4).isEmpty() ? Double.NaN : Double.parseDouble(cells.get(4));
                values.put(key, value);
                if (cells.get(3).equals("foreign_cpu")) {
                    load.put(impl + "|" + cells.get(2), value);
                }
            }
            runs.add(values);
            loads.add(load);
        }
        Results medians = new Results();
        Map<String, String> notes = new LinkedHashMap<>();
        keys.forEach((key, k) -> {
            String measurement = k[0] + "|" + k[1];
            List<Integer> clean = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                Double load = loads.get(i).get(measurement);
                if (runs.get(i).containsKey(key) && (load == null || !(load >= DISTURBED_PERCENT))) {
                    clean.add(i);
                }
            }
            List<Integer> used = new ArrayList<>(clean);
            if (used.isEmpty()) {
                for (int i = 0; i < runs.size(); i++) {
                    if (runs.get(i).containsKey(key)) {
                        used.add(i);
                    }
                }
            }
            double[] v = used.stream()
                    .mapToDouble(i -> runs.get(i).get(key))
                    .filter(d -> !Double.isNaN(d))
                    .sorted()
                    .toArray();
            double m = v.length == 0
                    ? Double.NaN
                    : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            medians.put(k[0], k[1], k[2], m, k[3], v.length);
            if (k[2].equals("foreign_cpu") && clean.size() < runs.size()) {
                notes.put(
                        measurement,
                        clean.isEmpty()
                                ? "disturbed in every run; median of all " + used.size()
                                : "median of the " + clean.size() + " undisturbed run(s) of " + runs.size());
            }
        });
        System.out.println(markdown(
                        Machine.describe(),
                        "Medians of " + files.size() + " runs, metric by metric; " + "ratios are those of the medians.",
                        labels,
                        medians)
                + disturbance(labels, medians, notes)
                + leftovers(labels, medians));
    }

    /** The cells of one line of {@link Report#csv()}: commas separate, double quotes enclose (doubled inside). */
    private static List<String> csvCells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    cell.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
            } else if (ch == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(ch);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
