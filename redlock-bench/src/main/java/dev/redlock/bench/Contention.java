/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.QuorumPolicy;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import redis.clients.jedis.Jedis;

/**
 * Many threads of one process on one lock: how waiting works. For each implementation and thread count, every thread
 * acquires (waiting up to 10 s), runs an empty critical section and releases, for 5 s after a 1 s warm-up, and the
 * run reports critical sections per second, the wait (from the acquire call to the grant: mean, p50, p99), the
 * hand-off (from a holder's release call to the grant of another thread: p50) and the Redis commands per critical
 * section, from {@code INFO commandstats} deltas summed over the nodes. Commands are the client's requests: script
 * calls ({@code EVAL}, {@code EVALSHA}) and pub/sub requests ({@code SUBSCRIBE}, {@code UNSUBSCRIBE} and their pattern
 * forms); the commands a script runs inside are not counted. The uncontended cycle (one thread) is the baseline.
 *
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests
 * java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.Contention
 * </pre>
 *
 * Writes {@code redlock-bench/target/contention/results.md} (or {@code -Dcontention.out=DIR}).
 */
public final class Contention {

    static final int NODES = 5;
    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);
    static final long WAIT_MILLIS = 10_000;
    static final int[] THREADS = {1, 8, 64};
    static final Duration WARMUP = Duration.ofSeconds(1);
    static final Duration MEASURE = Duration.ofSeconds(5);
    static final List<String> COUNTED = List.of(
            "eval",
            "evalsha",
            "eval_ro",
            "evalsha_ro",
            "subscribe",
            "unsubscribe",
            "psubscribe",
            "punsubscribe",
            "ssubscribe",
            "sunsubscribe");

    private Contention() {}

    /** One implementation at one thread count. */
    record Row(
            String label,
            int threads,
            double sectionsPerSecond,
            double waitMeanMs,
            double waitP50Ms,
            double waitP99Ms,
            double handoffP50Ms,
            double commandsPerSection,
            long sections,
            long timedOut) {}

    /**
     * Runs every implementation at every thread count and writes the report.
     *
     * @param args ignored
     * @throws Exception if the nodes or a client cannot be started, or the report cannot be written
     */
    public static void main(String[] args) throws Exception {
        Compare.quietRedissonLogs();
        Path out = Path.of(System.getProperty("contention.out", "redlock-bench/target/contention"));
        Machine machine = Machine.describe();
        List<Row> rows = new ArrayList<>();
        try (RedisNodes nodes = RedisNodes.start(NODES)) {
            List<String> uris = nodes.uris();
            List<Contender> contenders = List.of(
                    new OurContender(QuorumPolicy.MAJORITY, uris, PER_NODE_TIMEOUT, LEASE),
                    new OurContender(QuorumPolicy.MAJORITY, uris, PER_NODE_TIMEOUT, LEASE, true),
                    new RedissonContender(RedissonContender.Kind.RED_LOCK, uris, LEASE),
                    new RedissonContender(RedissonContender.Kind.SINGLE, uris, LEASE));
            try {
                for (Contender c : contenders) {
                    for (int threads : THREADS) {
                        System.err.printf("[contention] %-45s %d thread(s)%n", c.label(), threads);
                        rows.add(run(c, threads, nodes.servers()));
                    }
                }
            } finally {
                for (Contender c : contenders) {
                    c.close();
                }
            }
        }
        String md = markdown(machine, rows);
        Files.createDirectories(out);
        Files.writeString(out.resolve("results.md"), md);
        System.out.println(md);
        System.out.println("Written: " + out.resolve("results.md"));
    }

    private static Row run(Contender c, int threads, List<RedisServer> servers) throws Exception {
        String name = c.id() + ":contention:" + threads;
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder sections = new LongAdder();
        LongAdder timedOut = new LongAdder();
        // Who called release last and when; the lock orders one holder's writes before the next holder's reads.
        AtomicLong lastReleaseWorker = new AtomicLong(-1);
        AtomicLong lastReleaseAt = new AtomicLong();
        List<Samples> waits = new ArrayList<>();
        List<Samples> handoffs = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(threads);
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < threads; i++) {
            int worker = i;
            Samples wait = new Samples();
            Samples handoff = new Samples();
            waits.add(wait);
            handoffs.add(handoff);
            Thread t = new Thread(
                    () -> {
                        try (Contender.Handle h = c.open(name)) {
                            ready.countDown();
                            while (!stop.get()) {
                                long t0 = System.nanoTime();
                                if (!h.acquire(WAIT_MILLIS)) {
                                    if (measuring.get()) {
                                        timedOut.increment();
                                    }
                                    continue;
                                }
                                long granted = System.nanoTime();
                                long previous = lastReleaseWorker.get();
                                long releasedAt = lastReleaseAt.get();
                                if (measuring.get()) {
                                    sections.increment();
                                    wait.add(granted - t0);
                                    if (previous >= 0 && previous != worker) {
                                        handoff.add(granted - releasedAt);
                                    }
                                }
                                lastReleaseAt.set(System.nanoTime());
                                lastReleaseWorker.set(worker);
                                h.release();
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                            ready.countDown();
                        }
                    },
                    "contention-" + c.id() + "-" + i);
            workers.add(t);
            t.start();
        }
        ready.await();
        Compare.parkUntil(System.nanoTime() + WARMUP.toNanos());
        long before = commands(servers);
        measuring.set(true);
        long t0 = System.nanoTime();
        Compare.parkUntil(t0 + MEASURE.toNanos());
        measuring.set(false);
        long wall = System.nanoTime() - t0;
        long after = commands(servers);
        stop.set(true);
        for (Thread t : workers) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(c.label() + " failed at " + threads + " threads", errors.get(0));
        }
        Samples wait = merge(waits);
        Samples handoff = merge(handoffs);
        long done = sections.sum();
        return new Row(
                c.label(),
                threads,
                done / (wall / 1e9),
                wait.mean() / 1e6,
                wait.percentile(0.5) / 1e6,
                wait.percentile(0.99) / 1e6,
                handoff.percentile(0.5) / 1e6,
                done == 0 ? Double.NaN : (double) (after - before) / done,
                done,
                timedOut.sum());
    }

    private static Samples merge(List<Samples> parts) {
        Samples all = new Samples();
        for (Samples s : parts) {
            all.addAll(s);
        }
        return all;
    }

    /** Client requests so far on every node (see the class documentation for which commands count). */
    static long commands(List<RedisServer> servers) {
        long total = 0;
        for (RedisServer s : servers) {
            try (Jedis j = s.client()) {
                for (String line : j.info("commandstats").split("\r\n")) {
                    int colon = line.indexOf(':');
                    if (line.startsWith("cmdstat_")
                            && colon > 0
                            && COUNTED.contains(line.substring("cmdstat_".length(), colon))) {
                        String calls = line.substring(colon + 1).split(",")[0];
                        total += Long.parseLong(calls.substring("calls=".length()));
                    }
                }
            }
        }
        return total;
    }

    private static String markdown(Machine machine, List<Row> rows) {
        StringBuilder md = new StringBuilder("# One lock, many threads\n\n")
                .append(machine.markdown())
                .append("\n\n");
        md.append("Each thread: acquire (wait up to 10 s, lease 10 s), empty critical section, release; 1 s warm-up, "
                + "5 s measured. Wait = acquire call to grant; hand-off = a holder's release call to another "
                + "thread's grant; commands = EVAL/EVALSHA and (UN)SUBSCRIBE requests over all nodes (INFO "
                + "commandstats deltas) per critical section.\n\n");
        md.append("| implementation | threads | CS/s | wait mean ms | wait p50 ms | wait p99 ms | p99/mean | "
                + "hand-off p50 ms | commands/CS | ×uncontended | timed out |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            double base = rows.stream()
                    .filter(o -> o.label().equals(r.label()) && o.threads() == 1)
                    .mapToDouble(Row::commandsPerSection)
                    .findFirst()
                    .orElse(Double.NaN);
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %,.0f | %.3f | %.3f | %.3f | %.1f | %s | %.1f | ×%.2f " + "| %d |%n",
                    r.label(),
                    r.threads(),
                    r.sectionsPerSecond(),
                    r.waitMeanMs(),
                    r.waitP50Ms(),
                    r.waitP99Ms(),
                    r.waitP99Ms() / r.waitMeanMs(),
                    Double.isNaN(r.handoffP50Ms()) ? "-" : String.format(Locale.ROOT, "%.3f", r.handoffP50Ms()),
                    r.commandsPerSection(),
                    r.commandsPerSection() / base,
                    r.timedOut()));
        }
        return md.toString();
    }
}
