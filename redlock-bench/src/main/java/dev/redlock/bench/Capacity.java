/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import redis.clients.jedis.Jedis;

/**
 * Lock capacity as the masters grow: Redis server CPU per node per lock cycle with M masters and N nodes per lock
 * ({@link RedlockConfig.Builder#nodesPerLock(int)}). With M = N every lock uses every master, as before the setting
 * existed; with M = 2N each lock uses N of them, so each node should serve about N/M of the cycles and spend about
 * N/M of the CPU per cycle.
 *
 * <p>For each M, in each run: start M masters, build one client with {@code nodesPerLock(N)}, check on a few names
 * that their keys appear exactly on the nodes {@link RedlockClient#nodeNamesOf(String)} names, read every node's
 * {@code INFO cpu} across an idle window (the cost of a node that serves nothing: its cron, the client's own checks),
 * then run W worker threads of {@code tryAcquire} (one round) and {@code release} on uncontended names
 * {@code cap:<worker>:<i % 1000>}: a warm-up, then a measured window between two readings of every node's
 * {@code used_cpu_sys + used_cpu_user} and {@code total_commands_processed} (whether a node's commands, not only its
 * CPU, follow N/M). Runs are outermost and the values of M alternate inside them, so a disturbance
 * of the machine spoils one run of each M rather than all runs of one; the tables show every run and the medians.
 *
 * <p>Run from the repository root (settings by system property, defaults shown):
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests
 * java -Dcapacity.workers=4 -Dcapacity.seconds=10 -Dcapacity.warmup=3 -Dcapacity.idle=2 -Dcapacity.runs=3 \
 *     -Dcapacity.masters=5,10 -Dcapacity.perLock=5 -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.Capacity
 * </pre>
 * The Markdown report goes to stdout, progress to stderr.
 */
public final class Capacity {

    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);
    /** Names each worker cycles through: enough that placement spreads them, few enough to create up front. */
    static final int NAMES_PER_WORKER = 1000;
    /** Names whose placement is counted per node. */
    static final int SAMPLE_NAMES = 10_000;
    /** Names whose keys are looked for on every node while held. */
    static final int CHECKED_NAMES = 20;
    /** How long a checked key may take to reach the last of its lock's nodes. */
    static final Duration CHECK_SETTLE = Duration.ofMillis(500);

    /** A worker stops after the round it is in, which lasts a per-node timeout; the rest is slack. */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(20);

    private Capacity() {}

    /** What to run, from system properties. */
    record Settings(
            List<Integer> masters,
            int perLock,
            int workers,
            Duration warmup,
            Duration measure,
            Duration idle,
            int runs) {

        static Settings fromProperties() {
            List<Integer> masters = Arrays.stream(
                            System.getProperty("capacity.masters", "5,10").split(","))
                    .map(s -> Integer.parseInt(s.trim()))
                    .toList();
            Settings s = new Settings(
                    masters,
                    Integer.getInteger("capacity.perLock", 5),
                    Integer.getInteger("capacity.workers", 4),
                    seconds("capacity.warmup", "3"),
                    seconds("capacity.seconds", "10"),
                    seconds("capacity.idle", "2"),
                    Integer.getInteger("capacity.runs", 3));
            if (s.workers() < 1 || s.runs() < 1 || s.measure().isZero() || masters.isEmpty()) {
                throw new IllegalArgumentException("capacity: need at least 1 worker, 1 run, a measured window and "
                        + "one master count; got " + s);
            }
            for (int m : masters) {
                if (m < s.perLock()) {
                    throw new IllegalArgumentException(
                            "capacity.masters: " + m + " is below capacity.perLock " + s.perLock());
                }
            }
            return s;
        }

        private static Duration seconds(String property, String fallback) {
            String value = System.getProperty(property, fallback).trim();
            Duration d = Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
            if (d.isNegative()) {
                throw new IllegalArgumentException(property + ": not a usable number of seconds: " + value);
            }
            return d;
        }
    }

    /**
     * One measured window of one M.
     *
     * @param nodeMicrosPerCycle per node: its CPU in the window over all cycles of the window
     * @param idleMicrosPerSecond per node: its CPU per second of the idle window
     * @param commandsPerNodePerCycle commands the nodes processed in the window, over M and the cycles
     * @param microsPerCommand CPU of all nodes over the commands they processed in the window
     */
    record Measurement(
            int masters,
            double cyclesPerSecond,
            double redisCpuSeconds,
            double[] nodeMicrosPerCycle,
            double[] idleMicrosPerSecond,
            double netMicrosPerCycle,
            double commandsPerNodePerCycle,
            double microsPerCommand,
            double jvmMicrosPerCycle,
            long failed,
            long errors,
            double foreignCpu,
            String notes) {

        double meanMicros() {
            return Arrays.stream(nodeMicrosPerCycle).average().orElse(Double.NaN);
        }

        double minMicros() {
            return Arrays.stream(nodeMicrosPerCycle).min().orElse(Double.NaN);
        }

        double maxMicros() {
            return Arrays.stream(nodeMicrosPerCycle).max().orElse(Double.NaN);
        }

        double totalMicrosPerCycle() {
            return Arrays.stream(nodeMicrosPerCycle).sum();
        }

        double idleMicros() {
            return Arrays.stream(idleMicrosPerSecond).average().orElse(Double.NaN);
        }
    }

    /**
     * Where names land, by {@link RedlockClient#nodeNamesOf(String)}.
     *
     * @param sample per node: how many of {@value #SAMPLE_NAMES} sample names use it
     * @param work per node: how many of the workers' names use it
     * @param notAcquired checked names whose lock was not granted
     * @param outside checked names whose key was found on a node outside those named
     * @param missing checked names whose key was still absent from one of the nodes named after {@link #CHECK_SETTLE}
     */
    record Placement(int[] sample, int[] work, int checked, int notAcquired, int outside, int missing) {

        String check() {
            if (notAcquired + outside + missing == 0) {
                return "ok, " + checked + " of " + checked;
            }
            return "**of " + checked + ": " + notAcquired + " not granted, " + outside + " with the key outside its "
                    + "nodes, " + missing + " without it on one of its nodes**";
        }
    }

    /**
     * Measures every M of {@code capacity.masters} {@code capacity.runs} times and prints the report.
     *
     * @param args ignored; see the class documentation for the settings
     * @throws Exception if the nodes or a client cannot be started
     */
    public static void main(String[] args) throws Exception {
        Settings s = Settings.fromProperties();
        Machine machine = Machine.describe();
        long started = System.nanoTime();
        Map<Integer, List<Measurement>> byMasters = new LinkedHashMap<>();
        Map<Integer, Placement> placements = new LinkedHashMap<>();
        s.masters().forEach(m -> byMasters.put(m, new ArrayList<>()));
        for (int run = 1; run <= s.runs(); run++) {
            for (int m : s.masters()) {
                System.err.printf(
                        Locale.ROOT, "[capacity] run %d/%d: %d masters, %d per lock%n", run, s.runs(), m, s.perLock());
                Measurement r = measure(m, s, placements);
                byMasters.get(m).add(r);
                System.err.printf(
                        Locale.ROOT,
                        "[capacity]   %.0f cycles/s, %.1f us/node/cycle (min %.1f, max %.1f), %.1f us/cycle over all "
                                + "nodes, other CPU %.1f%%%s%n",
                        r.cyclesPerSecond(),
                        r.meanMicros(),
                        r.minMicros(),
                        r.maxMicros(),
                        r.totalMicrosPerCycle(),
                        r.foreignCpu(),
                        r.notes().isEmpty() ? "" : "; " + r.notes());
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        System.out.println(markdown(machine, s, took, byMasters, placements));
    }

    // ------------------------------------------------------------------------------------------------ measurement

    /** Starts {@code m} masters and one client, and measures one window; everything is closed on return. */
    private static Measurement measure(int m, Settings s, Map<Integer, Placement> placements)
            throws InterruptedException {
        try (RedisNodes nodes = RedisNodes.start(m);
                CpuProbe cpu = new CpuProbe(nodes);
                RedlockClient client = RedlockClient.create(RedlockConfig.builder()
                        .nodes(nodes.uris())
                        .nodesPerLock(s.perLock())
                        .perNodeTimeout(PER_NODE_TIMEOUT)
                        // The masters were started moments ago and would not count at first.
                        .restartQuarantine(false)
                        .build())) {
            if (!placements.containsKey(m)) {
                // Placement is a function of the key, N and the node names (host:port), and the ports change with
                // every start: the first run's placement stands for the others.
                placements.put(m, placement(client, cpu, s));
            }

            // Idle: what a node costs per second while serving no lock, to tell that apart from the per-cycle cost.
            double[] idle0 = cpu.read();
            long idleStart = System.nanoTime();
            Compare.parkUntil(idleStart + s.idle().toNanos());
            double[] idle1 = cpu.read();
            double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
            double[] idleRate = new double[m];
            for (int i = 0; i < m; i++) {
                idleRate[i] = idleSeconds > 0 ? (idle1[i] - idle0[i]) * 1e6 / idleSeconds : 0;
            }

            AtomicBoolean stop = new AtomicBoolean();
            LongAdder cycles = new LongAdder();
            LongAdder failed = new LongAdder();
            Failures failures = new Failures();
            Workers workers = Workers.start("capacity", s.workers(), failures, (worker, ready) -> {
                // The locks are made up front so the loop measures rounds, not object creation.
                QuorumLock[] locks = new QuorumLock[NAMES_PER_WORKER];
                for (int i = 0; i < NAMES_PER_WORKER; i++) {
                    locks[i] = client.redLock("cap:" + worker + ":" + i);
                }
                ready.run();
                for (int i = 0; !stop.get(); i = (i + 1) % NAMES_PER_WORKER) {
                    try {
                        // Zero wait: one round. The names are this worker's own, so it is never busy.
                        Optional<Lease> lease = locks[i].tryAcquire(Duration.ZERO, LEASE);
                        if (lease.isPresent()) {
                            lease.get().release();
                            cycles.increment();
                        } else {
                            failed.increment();
                        }
                    } catch (RuntimeException e) {
                        failures.error(e); // keep going: one failed round must not end the worker
                    }
                }
            });
            try {
                workers.awaitReady();
                Compare.parkUntil(System.nanoTime() + s.warmup().toNanos());
                ForeignCpu foreign = ForeignCpu.start();
                long jvm0 = processCpuNanos();
                long failed0 = failed.sum();
                long cycles0 = cycles.sum();
                double[] cpu0 = cpu.read();
                long[] commands0 = cpu.commands();
                long t0 = System.nanoTime();
                Compare.parkUntil(t0 + s.measure().toNanos());
                double[] cpu1 = cpu.read();
                long[] commands1 = cpu.commands();
                long t1 = System.nanoTime();
                long done = cycles.sum() - cycles0;
                long failedInWindow = failed.sum() - failed0;
                long jvm1 = processCpuNanos();
                double foreignCpu = foreign.percent();
                double window = (t1 - t0) / 1e9;

                double[] perCycle = new double[m];
                double total = 0;
                double net = 0;
                long commands = 0;
                for (int i = 0; i < m; i++) {
                    commands += commands1[i] - commands0[i];
                    double used = cpu1[i] - cpu0[i];
                    total += used;
                    perCycle[i] = done > 0 ? used * 1e6 / done : Double.NaN;
                    net += done > 0 ? (used * 1e6 - idleRate[i] * window) / done : Double.NaN;
                }
                double jvm = jvm0 >= 0 && jvm1 >= 0 && done > 0 ? (jvm1 - jvm0) / 1e3 / done : Double.NaN;
                return new Measurement(
                        m,
                        done / window,
                        total,
                        perCycle,
                        idleRate,
                        net / m,
                        done > 0 ? (double) commands / m / done : Double.NaN,
                        commands > 0 ? total * 1e6 / commands : Double.NaN,
                        jvm,
                        failedInWindow,
                        failures.errorCount(),
                        foreignCpu,
                        failures.summary());
            } finally {
                stop.set(true);
                workers.join(JOIN_TIMEOUT);
            }
        }
    }

    /**
     * Counts where the sample and the workers' names land, and checks on {@value #CHECKED_NAMES} names that a held
     * lock's key is on exactly the nodes named for it: the placement the bench relies on is the one the rounds use.
     */
    private static Placement placement(RedlockClient client, CpuProbe cpu, Settings s) throws InterruptedException {
        List<String> names = client.nodeNames();
        int[] sample = new int[names.size()];
        for (int i = 0; i < SAMPLE_NAMES; i++) {
            for (String node : client.nodeNamesOf("cap:sample:" + i)) {
                sample[names.indexOf(node)]++;
            }
        }
        int[] work = new int[names.size()];
        for (int w = 0; w < s.workers(); w++) {
            for (int i = 0; i < NAMES_PER_WORKER; i++) {
                for (String node : client.nodeNamesOf("cap:" + w + ":" + i)) {
                    work[names.indexOf(node)]++;
                }
            }
        }
        int notAcquired = 0;
        int outside = 0;
        int missing = 0;
        for (int i = 0; i < CHECKED_NAMES; i++) {
            String name = "cap:check:" + i;
            List<String> expected = client.nodeNamesOf(name);
            Optional<Lease> lease = client.redLock(name).tryAcquire(Duration.ZERO, LEASE);
            if (lease.isEmpty()) {
                notAcquired++;
                continue;
            }
            try {
                String key = client.keyOf(name);
                // A round is decided at its quorum, so the last of the lock's nodes may set the key a moment later:
                // look again for a while before calling it missing. A key outside the lock's nodes is never right.
                long deadline = System.nanoTime() + CHECK_SETTLE.toNanos();
                boolean sawOutside = false;
                boolean complete;
                do {
                    complete = true;
                    for (int n = 0; n < names.size(); n++) {
                        boolean there = cpu.exists(n, key);
                        boolean own = expected.contains(names.get(n));
                        sawOutside |= there && !own;
                        complete &= there || !own;
                    }
                    if (!complete) {
                        java.util.concurrent.locks.LockSupport.parkNanos(
                                5_000_000L); // a short poll within CHECK_SETTLE
                    }
                } while (!complete && System.nanoTime() - deadline < 0);
                outside += sawOutside ? 1 : 0;
                missing += complete ? 0 : 1;
            } finally {
                lease.get().release();
            }
        }
        return new Placement(sample, work, CHECKED_NAMES, notAcquired, outside, missing);
    }

    /** CPU time of this JVM in nanoseconds, or -1 where the platform does not report it. */
    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * One plain connection per node, apart from the client's, for {@code INFO cpu} and {@code EXISTS}. Used by one
     * thread at a time.
     */
    private static final class CpuProbe implements AutoCloseable {

        private final List<Jedis> connections;

        CpuProbe(RedisNodes nodes) {
            List<RedisServer> servers = nodes.servers();
            this.connections = Cleanup.openAll(
                    servers.size(), i -> servers.get(i).client(), opened -> Cleanup.each(opened, Jedis::close));
        }

        /** Every node's {@code used_cpu_sys + used_cpu_user}, in seconds, in node order. */
        double[] read() {
            double[] out = new double[connections.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = usedCpu(connections.get(i).info("cpu"));
            }
            return out;
        }

        /**
         * Every node's {@code total_commands_processed}, in node order: whether a node's share of the work, and not
         * only its CPU, follows N/M.
         */
        long[] commands() {
            long[] out = new long[connections.size()];
            for (int i = 0; i < out.length; i++) {
                for (String line : connections.get(i).info("stats").split("\r?\n")) {
                    if (line.startsWith("total_commands_processed:")) {
                        out[i] = Long.parseLong(
                                line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            }
            return out;
        }

        boolean exists(int node, String key) {
            return connections.get(node).exists(key);
        }

        /** Main thread and background threads alike: getrusage of the whole server process. */
        static double usedCpu(String info) {
            double sum = 0;
            for (String line : info.split("\r?\n")) {
                if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                    sum += Double.parseDouble(
                            line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return sum;
        }

        @Override
        public void close() {
            Cleanup.each(connections, Jedis::close);
        }
    }

    // ------------------------------------------------------------------------------------------------ report

    /** A column of the results tables. */
    private record Column(String header, ToDoubleFunction<Measurement> value, boolean summed) {}

    private static final List<Column> COLUMNS = List.of(
            new Column("cycles/s", Measurement::cyclesPerSecond, false),
            new Column("Redis CPU s, all nodes", Measurement::redisCpuSeconds, false),
            new Column("Redis CPU us/cycle, all nodes", Measurement::totalMicrosPerCycle, false),
            new Column("us/node/cycle mean", Measurement::meanMicros, false),
            new Column("us/node/cycle min", Measurement::minMicros, false),
            new Column("us/node/cycle max", Measurement::maxMicros, false),
            new Column("idle us/node/s", Measurement::idleMicros, false),
            new Column("net us/node/cycle", Measurement::netMicrosPerCycle, false),
            new Column("commands/node/cycle", Measurement::commandsPerNodePerCycle, false),
            new Column("us/command", Measurement::microsPerCommand, false),
            new Column("JVM CPU us/cycle", Measurement::jvmMicrosPerCycle, false),
            new Column("failed", r -> r.failed(), true),
            new Column("errors", r -> r.errors(), true),
            new Column("other CPU %", Measurement::foreignCpu, false));

    private static String markdown(
            Machine machine,
            Settings s,
            Duration took,
            Map<Integer, List<Measurement>> byMasters,
            Map<Integer, Placement> placements) {
        StringBuilder md = new StringBuilder("# Redis CPU per node per lock cycle\n\n")
                .append(machine.markdown().replace("5 x ", "M x "))
                .append(" The run took ")
                .append(took.toSeconds())
                .append(" s.\n\n")
                .append(String.format(
                        Locale.ROOT,
                        "One RedlockClient with nodesPerLock(%d) over M fresh masters; %d worker thread(s), each "
                                + "tryAcquire (zero wait: one round, lease %d s) then release on its own names "
                                + "cap:<worker>:<i %% %d>; %s s idle, %s s warm-up, %s s measured; %d run(s), the "
                                + "values of M alternating inside each run.%n%n",
                        s.perLock(),
                        s.workers(),
                        LEASE.toSeconds(),
                        NAMES_PER_WORKER,
                        Report.num(s.idle().toMillis() / 1000.0),
                        Report.num(s.warmup().toMillis() / 1000.0),
                        Report.num(s.measure().toMillis() / 1000.0),
                        s.runs()))
                .append("- Redis CPU: used_cpu_sys + used_cpu_user of INFO cpu (the whole server process), read on "
                        + "every node before and after the measured window.\n"
                        + "- us/node/cycle: one node's CPU in the window over all cycles of the window (a cycle: one "
                        + "acquire round and one release), in microseconds; mean, least and most over the M nodes.\n"
                        + "- idle us/node/s: a node's CPU per second with the client connected and no lock taken "
                        + "(cron, the client's checks); net us/node/cycle: the mean with that idle rate taken out.\n"
                        + "- commands/node/cycle: total_commands_processed of INFO stats in the window, all nodes, "
                        + "over M and the cycles; us/command: all nodes' CPU over their commands.\n"
                        + "- JVM CPU us/cycle: the benchmark's own process, client and workers; other CPU: share of "
                        + "the machine used by other processes (another build disturbs the numbers).\n");
        for (int run = 0; run < s.runs(); run++) {
            md.append("\n## Run ").append(run + 1).append("\n\n");
            int r = run;
            table(md, s, byMasters, rows -> List.of(rows.get(r)), false);
        }
        md.append("\n## Medians of ")
                .append(s.runs())
                .append(s.runs() == 1 ? " run" : " runs")
                .append("\n\n");
        table(md, s, byMasters, rows -> rows, true);
        md.append(placement(s, placements));
        StringBuilder notes = new StringBuilder();
        byMasters.forEach((m, rows) -> {
            for (int run = 0; run < rows.size(); run++) {
                if (!rows.get(run).notes().isEmpty()) {
                    notes.append("- M = ")
                            .append(m)
                            .append(", run ")
                            .append(run + 1)
                            .append(": ")
                            .append(rows.get(run).notes())
                            .append('\n');
                }
            }
        });
        md.append("\n## Errors\n\n").append(notes.length() == 0 ? "None.\n" : notes.toString());
        return md.toString();
    }

    /**
     * One row per M of the median (or sum) of {@code pick}'s measurements per column, then the ratio of each later M to
     * the first.
     */
    private static void table(
            StringBuilder md,
            Settings s,
            Map<Integer, List<Measurement>> byMasters,
            java.util.function.Function<List<Measurement>, List<Measurement>> pick,
            boolean ratios) {
        List<String> headers = new ArrayList<>(List.of("M masters", "N per lock"));
        COLUMNS.forEach(c -> headers.add(c.header()));
        Report.table(md, headers.toArray(String[]::new));
        Map<Integer, double[]> values = new LinkedHashMap<>();
        byMasters.forEach((m, rows) -> {
            List<Measurement> picked = pick.apply(rows);
            double[] v = new double[COLUMNS.size()];
            for (int c = 0; c < COLUMNS.size(); c++) {
                Column col = COLUMNS.get(c);
                double[] each = picked.stream().mapToDouble(col.value()).toArray();
                v[c] = col.summed() ? Arrays.stream(each).sum() : MultiClient.median(each);
            }
            values.put(m, v);
            List<String> cells = new ArrayList<>(List.of(Integer.toString(m), Integer.toString(s.perLock())));
            for (int c = 0; c < COLUMNS.size(); c++) {
                cells.add(COLUMNS.get(c).summed() ? Report.count(v[c]) : Report.num(v[c]));
            }
            Report.row(md, cells.toArray(String[]::new));
        });
        if (!ratios || values.size() < 2) {
            return;
        }
        int first = s.masters().get(0);
        for (int m : s.masters().subList(1, s.masters().size())) {
            List<String> cells = new ArrayList<>(List.of("**" + m + " / " + first + "**", ""));
            for (int c = 0; c < COLUMNS.size(); c++) {
                // Ratios of counts, of the idle rate and of other processes' share would say nothing.
                String h = COLUMNS.get(c).header();
                boolean meaningful = !COLUMNS.get(c).summed() && !h.startsWith("idle") && !h.startsWith("other");
                double a = values.get(m)[c];
                double b = values.get(first)[c];
                cells.add(meaningful && b != 0 ? String.format(Locale.ROOT, "x%.2f", a / b) : "");
            }
            Report.row(md, cells.toArray(String[]::new));
        }
        md.append(String.format(
                Locale.ROOT,
                "%nExpected for us/node/cycle: N/M of the first row's, x%.2f for M = %d.%n",
                (double) first / s.masters().get(s.masters().size() - 1),
                s.masters().get(s.masters().size() - 1)));
    }

    private static String placement(Settings s, Map<Integer, Placement> placements) {
        StringBuilder md = new StringBuilder("\n## Placement (first run)\n\n")
                .append(String.format(
                        Locale.ROOT,
                        "Per node, by nodeNamesOf: how many of %,d sample names (cap:sample:<i>) and of the %,d "
                                + "workers' names use it, against the even share N/M; and %d names held one at a "
                                + "time with EXISTS of their key on every node, which must find it on exactly the "
                                + "nodes named (a round is decided at its quorum, so the last of them gets up to "
                                + CHECK_SETTLE.toMillis() + " ms).%n%n",
                        SAMPLE_NAMES,
                        s.workers() * NAMES_PER_WORKER,
                        CHECKED_NAMES));
        Report.table(
                md,
                new String[] {"M", "sample names per node", "even share", "workers' names per node", "EXISTS check"});
        placements.forEach((m, p) -> Report.row(
                md,
                Integer.toString(m),
                Arrays.toString(p.sample()),
                Integer.toString(SAMPLE_NAMES * s.perLock() / m),
                Arrays.toString(p.work()),
                p.check()));
        return md.toString();
    }
}
