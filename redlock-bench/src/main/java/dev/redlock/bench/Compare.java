/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import dev.redlock.testkit.TlsCertificates;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Compares this library's RedLock and MultiLock with a raw single-node floor and with Redisson, against five real
 * {@code redis-server} masters started on loopback, and writes the results as Markdown, CSV and a PNG chart.
 *
 * <p>Run from the repository root:
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests &amp;&amp; java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.Compare
 * </pre>
 * Results go to {@code redlock-bench/target/compare/} ({@code results.md}, {@code results.csv}, {@code chart.png})
 * wherever the command is run from ({@code -Dcompare.out=DIR} overrides); the Markdown is also printed to stdout.
 * {@code -Dcompare.only=ours-redlock,ours-redlock-tls} runs only the contenders it names (by the ids the report
 * shows).
 * The redis-server binary and the nodes' data directories go to {@code target/} under the working directory (see
 * {@code RedisBinary}). The run takes three to four minutes.
 *
 * <p>Implementations, each with its own clients: (a) the floor, raw Jedis {@code SET NX PX} and a compare-and-delete
 * {@code EVALSHA} on node 1; (b) our RedLock, and the same over five other masters that speak only TLS (certificates
 * made for the run; not in the fault phase); (c) our MultiLock; (d) {@code RedissonRedLock} over five
 * {@code RedissonClient}s, one per node; (e) {@code RedissonMultiLock} likewise; (f) a Redisson {@code RLock} on node
 * 1. Phases, always in this order, each bounded in time:
 * <ol>
 *   <li>single-thread latency of acquire and of acquire+release (500 warm-up cycles, then 2000 samples);</li>
 *   <li>throughput of acquire+release cycles at 1, 4 and 16 threads, a distinct key per thread (2 s warm-up, 5 s
 *       measured), and JVM CPU time per cycle at 16 threads;</li>
 *   <li>contention: 8 threads on one key, tryLock with a 5 s wait budget and an empty critical section: critical
 *       sections per second and hand-off latency (from the holder's release call to the next acquisition's
 *       return);</li>
 *   <li>node 5 healthy, then stalled with SIGSTOP, then killed: single-thread acquire+release cycles per second,
 *       failed acquires, and acquire and release latency of (b) to (e), each over the same 5 s window, so the stalled
 *       and killed runs compare with the healthy one of the same run.</li>
 * </ol>
 */
public final class Compare {

    // Shape of the run. Package-private so the report can describe exactly what was measured.
    static final int NODES = 5;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);

    static final int LATENCY_WARMUP_CYCLES = Integer.getInteger("compare.latencyWarmup", 500);
    static final int LATENCY_SAMPLES = 2000;
    static final Duration LATENCY_CAP = Duration.ofSeconds(30);

    static final Duration WARMUP = Duration.ofSeconds(2);
    static final Duration MEASURE = Duration.ofSeconds(5);
    static final int[] THREADS = {1, 4, 16};
    static final int CPU_THREADS = 16;

    static final int CONTENDED_THREADS = 8;
    static final long CONTENDED_WAIT_MILLIS = 5000;

    /** Index of the node that is stalled and then killed: node 5 of 5. */
    static final int FAULT_NODE = NODES - 1;

    static final Duration FAULT_WARMUP = Duration.ofSeconds(1);
    static final int FAULT_WARMUP_MAX = 200;
    static final Duration FAULT_MEASURE = Duration.ofSeconds(5);
    /** The states of the fault phase, in order: the baseline of the same run, then the faults. */
    static final List<String> FAULT_STATES = List.of("healthy", "stalled", "killed");

    /** Bound on how long stopping a phase's workers may take (one contended wait budget plus slack). */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(20);

    private Compare() {}

    /**
     * Runs every phase once and writes the report; see the class documentation for the command.
     *
     * @param args ignored
     * @throws Exception if the nodes or a client cannot be started, or the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        quietRedissonLogs();
        Path out = outputDir();
        Machine machine = Machine.describe();
        System.err.println("[compare] " + machine.markdown().replace("\n", " "));
        long started = System.nanoTime();

        Results results = new Results();
        List<Report.Impl> impls = new ArrayList<>();
        TlsCertificates certs = TlsCertificates.generate();
        try (RedisNodes nodes = RedisNodes.start(NODES);
                RedisNodes tlsNodes = RedisNodes.startTls(NODES, certs, List.of())) {
            List<Contender> contenders = new ArrayList<>();
            try {
                List<String> uris = nodes.uris();
                OurContender ourRedLock = new OurContender(QuorumPolicy.MAJORITY, uris, PER_NODE_TIMEOUT, LEASE);
                RedlockConfig ours = ourRedLock.config();
                contenders.add(new FloorContender(nodes.get(0), LEASE, ours.retryDelay(), ours.retryJitter()));
                contenders.add(ourRedLock);
                // The five-node floor: our scripts fanned out by the caller's thread, nothing in between.
                contenders.add(new FanOutFloor(uris, LEASE, ours.retryDelay(), ours.retryJitter()));
                // The same with one hand-off per round to a reading thread: what an I/O thread costs by itself.
                contenders.add(new FanOutFloor(uris, LEASE, ours.retryDelay(), ours.retryJitter(), true));
                // The same RedLock over five TLS-only masters (certificates made for the run), beside plain TCP.
                contenders.add(
                        new OurContender(QuorumPolicy.MAJORITY, tlsNodes.uris(), PER_NODE_TIMEOUT, LEASE, certs));
                contenders.add(new OurContender(QuorumPolicy.ALL, uris, PER_NODE_TIMEOUT, LEASE));
                contenders.add(new RedissonContender(RedissonContender.Kind.RED_LOCK, uris, LEASE));
                contenders.add(new RedissonContender(RedissonContender.Kind.MULTI_LOCK, uris, LEASE));
                contenders.add(new RedissonContender(RedissonContender.Kind.SINGLE, uris, LEASE));
                only(contenders);
                for (Contender c : contenders) {
                    impls.add(new Report.Impl(c.id(), c.label(), c.settings(), isFaultTolerant(c)));
                }
                runAllPhases(contenders, nodes.get(FAULT_NODE), results);
            } finally {
                Cleanup.eachInReverse(contenders, Contender::close);
            }
        }

        Report report = new Report(machine, impls, results, Duration.ofNanos(System.nanoTime() - started));
        String markdown = report.markdown();
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.md"), markdown);
        Files.writeString(out.resolve("results.csv"), report.csv());
        Chart.write(out.resolve("chart.png"), impls, results);
        System.out.println(markdown);
        System.out.println("Written: " + out.resolve("results.md") + ", " + out.resolve("results.csv") + ", "
                + out.resolve("chart.png"));
    }

    /**
     * Keeps only the contenders that {@code -Dcompare.only} names (ids, comma-separated, such as
     * {@code ours-redlock,ours-redlock-tls}), in that order, closing the others; all of them without it.
     *
     * @throws IllegalArgumentException if it names an id that no contender has
     */
    private static void only(List<Contender> contenders) {
        String only = System.getProperty("compare.only");
        if (only == null || only.isBlank()) {
            return;
        }
        List<String> ids = List.of(only.trim().split("\\s*,\\s*"));
        List<String> known = contenders.stream().map(Contender::id).toList();
        for (String id : ids) {
            if (!known.contains(id)) {
                throw new IllegalArgumentException(
                        "-Dcompare.only names '" + id + "', which is none of the contenders: " + known);
            }
        }
        contenders.removeIf(c -> {
            if (ids.contains(c.id())) {
                return false;
            }
            c.close();
            return true;
        });
        // In the order given: every phase runs them in turn, and the first one's latency phase is the JVM's first work.
        contenders.sort(java.util.Comparator.comparingInt(c -> ids.indexOf(c.id())));
    }

    /** The fault phase only concerns the implementations that span all five nodes, (b) to (e). */
    private static boolean isFaultTolerant(Contender c) {
        // The TLS RedLock runs on its own masters, not those the fault phase stalls and kills.
        return !(c instanceof FloorContender)
                && !(c instanceof FanOutFloor)
                && !c.id().equals("redisson-rlock")
                && !c.id().endsWith("-tls");
    }

    /** Same phases in the same order on every run: phase by phase, implementation by implementation. */
    private static void runAllPhases(List<Contender> contenders, RedisServer faultNode, Results results)
            throws InterruptedException {
        for (Contender c : contenders) {
            progress("latency", c);
            latencyPhase(c, results);
        }
        for (int threads : THREADS) {
            for (Contender c : contenders) {
                progress("throughput " + threads + " thread(s)", c);
                throughputPhase(c, threads, results);
            }
        }
        for (Contender c : contenders) {
            progress("contended", c);
            contendedPhase(c, results);
        }
        for (Contender c : contenders) {
            if (isFaultTolerant(c)) {
                progress("node " + (FAULT_NODE + 1) + " healthy", c);
                faultPhase(c, "healthy", results);
            }
        }
        faultNode.pause();
        for (Contender c : contenders) {
            if (isFaultTolerant(c)) {
                progress("node " + (FAULT_NODE + 1) + " stalled", c);
                faultPhase(c, "stalled", results);
            }
        }
        faultNode.kill();
        for (Contender c : contenders) {
            if (isFaultTolerant(c)) {
                progress("node " + (FAULT_NODE + 1) + " killed", c);
                faultPhase(c, "killed", results);
            }
        }
    }

    private static void progress(String phase, Contender c) {
        System.err.printf("[compare] %-28s %s%n", phase, c.label());
    }

    // ------------------------------------------------------------------------------------------------ phases

    private static void latencyPhase(Contender c, Results results) throws InterruptedException {
        String phase = "latency";
        Samples acquire = new Samples();
        Samples cycle = new Samples();
        Failures failures = new Failures();
        Failures warmupFailures = new Failures();
        try (Contender.Handle handle = open(c, phase)) {
            long cap = System.nanoTime() + LATENCY_CAP.toNanos();
            for (int i = 0; i < LATENCY_WARMUP_CYCLES && System.nanoTime() - cap < 0; i++) {
                timedCycle(handle, null, null, null, warmupFailures);
            }
            while (acquire.size() < LATENCY_SAMPLES && System.nanoTime() - cap < 0) {
                timedCycle(handle, acquire, cycle, null, failures);
            }
        }
        String id = c.id();
        putPercentiles(results, id, phase, "acquire", acquire, 1e3, "us", 0.5, 0.99, 0.999);
        putPercentiles(results, id, phase, "cycle", cycle, 1e3, "us", 0.5, 0.99, 0.999);
        putFailures(results, id, phase, failures);
    }

    private static void throughputPhase(Contender c, int threads, Results results) throws InterruptedException {
        String phase = "throughput_" + threads + "t";
        LongAdder cycles = new LongAdder();
        Failures failures = new Failures();
        long[] cpu = new long[2];
        long[] wall = new long[2];
        long[] switches = new long[2];
        runWorkers(
                c,
                phase,
                threads,
                failures,
                (worker, handle, window, stop) -> {
                    while (!stop.get()) {
                        try {
                            if (handle.acquire(0)) {
                                handle.release();
                                if (window.contains(System.nanoTime())) {
                                    cycles.increment();
                                }
                            } else {
                                failures.busy();
                            }
                        } catch (InterruptedException e) {
                            throw e;
                        } catch (Exception e) {
                            failures.error(e);
                        }
                    }
                },
                () -> {
                    switches[0] = ContextSwitches.ofProcess();
                    cpu[0] = processCpuNanos();
                    wall[0] = System.nanoTime();
                },
                () -> {
                    cpu[1] = processCpuNanos();
                    wall[1] = System.nanoTime();
                    switches[1] = ContextSwitches.ofProcess();
                });
        long done = cycles.sum();
        String id = c.id();
        results.put(id, phase, "cycles_per_s", done / ((wall[1] - wall[0]) / 1e9), "1/s", done);
        if ((threads == CPU_THREADS || threads == 1) && done > 0 && cpu[0] >= 0) {
            // Process CPU covers every JVM thread: callers, client I/O threads, GC and JIT (not redis-server).
            results.put(id, phase, "cpu_us_per_cycle", (cpu[1] - cpu[0]) / 1e3 / done, "us", done);
        }
        if (threads == 1 && done > 0 && switches[0] >= 0 && switches[1] >= 0) {
            // Voluntary and involuntary, summed over the JVM's threads (Linux /proc only).
            results.put(id, phase, "ctx_switches_per_cycle", (double) (switches[1] - switches[0]) / done, "", done);
        }
        putFailures(results, id, phase, failures);
    }

    private static void contendedPhase(Contender c, Results results) throws InterruptedException {
        String phase = "contended";
        LongAdder sections = new LongAdder();
        LongAdder timedOut = new LongAdder();
        // Who called release last, and when; the lock itself orders the writes of one holder before the reads of
        // the next.
        AtomicReference<ReleaseStamp> lastRelease = new AtomicReference<>();
        Samples handoffs = new Samples();
        Failures failures = new Failures();
        long[] wall = new long[2];
        String sharedName = c.id() + ":contended";
        runWorkers(
                c,
                phase,
                CONTENDED_THREADS,
                failures,
                sharedName,
                (worker, handle, window, stop) -> {
                    while (!stop.get()) {
                        boolean acquired;
                        try {
                            acquired = handle.acquire(CONTENDED_WAIT_MILLIS);
                        } catch (InterruptedException e) {
                            throw e;
                        } catch (Exception e) {
                            failures.error(e);
                            continue;
                        }
                        long acquiredAt = System.nanoTime();
                        if (!acquired) {
                            if (window.contains(acquiredAt)) {
                                timedOut.increment();
                            }
                            continue;
                        }
                        ReleaseStamp previous = lastRelease.get();
                        if (window.contains(acquiredAt)) {
                            sections.increment();
                            // A thread that re-acquires its own lock (barging) is no hand-off: count only a new holder.
                            if (previous != null && previous.worker() != worker) {
                                synchronized (handoffs) {
                                    handoffs.add(acquiredAt - previous.nanos());
                                }
                            }
                        }
                        // Empty critical section.
                        lastRelease.set(new ReleaseStamp(worker, System.nanoTime()));
                        try {
                            handle.release();
                        } catch (Exception e) {
                            failures.releaseError(e);
                        }
                    }
                },
                () -> wall[0] = System.nanoTime(),
                () -> wall[1] = System.nanoTime());
        String id = c.id();
        long done = sections.sum();
        results.put(id, phase, "sections_per_s", done / ((wall[1] - wall[0]) / 1e9), "1/s", done);
        synchronized (handoffs) {
            putPercentiles(results, id, phase, "handoff", handoffs, 1e6, "ms", 0.5, 0.99);
            results.put(
                    id, phase, "new_holder_share", done == 0 ? Double.NaN : 100.0 * handoffs.size() / done, "%", done);
        }
        results.put(id, phase, "timed_out", timedOut.sum(), "count", timedOut.sum());
        putFailures(results, id, phase, failures);
    }

    /** The last release call of the contended phase: which worker made it, and when. */
    private record ReleaseStamp(int worker, long nanos) {}

    /** One thread acquiring and releasing for the whole window: cycles per second, failures and latencies. */
    private static void faultPhase(Contender c, String state, Results results) throws InterruptedException {
        Samples acquire = new Samples();
        Samples failed = new Samples();
        Samples release = new Samples();
        Failures failures = new Failures();
        int attempts = 0;
        long[] wall = new long[2];
        try (Contender.Handle handle = open(c, state)) {
            // Warm-up lets circuit breakers and reconnect logic settle: what is reported is the steady state.
            long warmEnd = System.nanoTime() + FAULT_WARMUP.toNanos();
            for (int i = 0; i < FAULT_WARMUP_MAX && System.nanoTime() - warmEnd < 0; i++) {
                timedCycle(handle, null, null, null, new Failures());
            }
            wall[0] = System.nanoTime();
            long end = wall[0] + FAULT_MEASURE.toNanos();
            while (System.nanoTime() - end < 0) {
                attempts++;
                timedCycle(handle, acquire, null, release, failures, failed);
            }
            wall[1] = System.nanoTime();
        }
        String id = c.id();
        results.put(id, state, "attempts", attempts, "count", attempts);
        results.put(id, state, "acquired", acquire.size(), "count", attempts);
        results.put(id, state, "cycles_per_s", acquire.size() / ((wall[1] - wall[0]) / 1e9), "1/s", attempts);
        putPercentiles(results, id, state, "acquire", acquire, 1e6, "ms", 0.5, 0.99);
        putPercentiles(results, id, state, "failed_acquire", failed, 1e6, "ms", 0.5, 0.99);
        putPercentiles(results, id, state, "release", release, 1e6, "ms", 0.5, 0.99);
        putFailures(results, id, state, failures);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Contender.Handle open(Contender c, String phase) throws InterruptedException {
        try {
            return c.open(c.id() + ":" + phase);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot open a handle of " + c.label(), e);
        }
    }

    /**
     * One acquire (wait 0) and, if it succeeded, one release, recording the acquire, the whole cycle and the release
     * latencies into the samples given (null: not recorded); busy answers and exceptions go to {@code failures}.
     */
    static void timedCycle(Contender.Handle handle, Samples acquire, Samples cycle, Samples release, Failures failures)
            throws InterruptedException {
        timedCycle(handle, acquire, cycle, release, failures, null);
    }

    /** One acquire (wait 0) and, if it succeeded, one release, recording whichever latencies are asked for. */
    private static void timedCycle(
            Contender.Handle handle, Samples acquire, Samples cycle, Samples release, Failures failures, Samples failed)
            throws InterruptedException {
        long t0 = System.nanoTime();
        boolean acquired;
        try {
            acquired = handle.acquire(0);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            addIfWanted(failed, System.nanoTime() - t0);
            failures.error(e);
            return;
        }
        long t1 = System.nanoTime();
        if (!acquired) {
            addIfWanted(failed, t1 - t0);
            failures.busy();
            return;
        }
        addIfWanted(acquire, t1 - t0);
        try {
            handle.release();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // A release that threw still took this long; it counts in the release latency and in the notes.
            failures.releaseError(e);
        }
        long t2 = System.nanoTime();
        addIfWanted(release, t2 - t1);
        addIfWanted(cycle, t2 - t0);
    }

    private static void addIfWanted(Samples samples, long nanos) {
        if (samples != null) {
            samples.add(nanos);
        }
    }

    private static void putPercentiles(
            Results results,
            String id,
            String phase,
            String metric,
            Samples samples,
            double divisor,
            String unit,
            double... ps) {
        for (double p : ps) {
            String suffix = p == 0.5 ? "p50" : p == 0.99 ? "p99" : p == 0.999 ? "p999" : "p" + p;
            results.put(id, phase, metric + "_" + suffix, samples.percentile(p) / divisor, unit, samples.size());
        }
    }

    private static void putFailures(Results results, String id, String phase, Failures failures) {
        results.put(
                id,
                phase,
                "errors",
                failures.errorCount() + failures.releaseErrorCount(),
                "count",
                failures.errorCount() + failures.releaseErrorCount());
        results.note(id, phase, failures.summary());
    }

    /** The measured interval of a multi-threaded phase, on {@link System#nanoTime()}. */
    record Window(long start, long end) {
        boolean contains(long t) {
            return t - start >= 0 && t - end < 0;
        }
    }

    /** What each worker thread of a phase runs with its own handle. */
    @FunctionalInterface
    interface Body {
        void run(int worker, Contender.Handle handle, Window window, AtomicBoolean stop) throws Exception;
    }

    private static void runWorkers(
            Contender c, String phase, int threads, Failures failures, Body body, Runnable atStart, Runnable atEnd)
            throws InterruptedException {
        runWorkers(c, phase, threads, failures, null, body, atStart, atEnd);
    }

    /**
     * Starts {@code threads} workers, each opening its own handle (on a distinct lock, or all on
     * {@code sharedName}), releases them together, calls {@code atStart} when the warm-up ends and {@code atEnd}
     * when the measurement ends, then stops and joins them.
     */
    private static void runWorkers(
            Contender c,
            String phase,
            int threads,
            Failures failures,
            String sharedName,
            Body body,
            Runnable atStart,
            Runnable atEnd)
            throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Window> window = new AtomicReference<>();
        Workers workers = Workers.start("compare-" + c.id() + "-" + phase, threads, failures, (index, ready) -> {
            String lockName = sharedName != null ? sharedName : c.id() + ":" + phase + ":" + index;
            try (Contender.Handle handle = c.open(lockName)) {
                ready.run();
                go.await();
                body.run(index, handle, window.get(), stop);
            }
        });
        workers.awaitReady();
        long start = System.nanoTime() + WARMUP.toNanos();
        Window w = new Window(start, start + MEASURE.toNanos());
        window.set(w);
        go.countDown();
        parkUntil(w.start());
        atStart.run();
        parkUntil(w.end());
        atEnd.run();
        stop.set(true);
        workers.join(JOIN_TIMEOUT);
    }

    /** Paces the main thread to a phase boundary; the workers never wait on this. */
    static void parkUntil(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * {@code redlock-bench/target/compare}: next to the jar (or classes directory) this class was loaded from, so
     * the output lands in the module's target directory whatever the working directory.
     */
    private static Path outputDir() throws URISyntaxException {
        return outputDir("compare.out", "compare");
    }

    /**
     * {@code redlock-bench/target/<dir>}, next to the jar (or classes directory) the benchmarks were loaded from, or
     * the directory the system property {@code property} names.
     */
    static Path outputDir(String property, String dir) throws URISyntaxException {
        String explicit = System.getProperty(property);
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit).toAbsolutePath();
        }
        Path origin = Path.of(Compare.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        return origin.getParent().resolve(dir).toAbsolutePath();
    }

    /**
     * Redisson logs every pool it fills at INFO (a few lines per client, eleven clients here) and every reconnect
     * attempt to the killed node; keep its warnings and errors only, unless the caller chose a level.
     */
    static void quietRedissonLogs() {
        String key = "org.slf4j.simpleLogger.log.org.redisson";
        if (System.getProperty(key) == null) {
            System.setProperty(key, "warn");
        }
    }
}
