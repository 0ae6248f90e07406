/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import dev.redlock.NotEnoughNodesException;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * Shows a RedLock keeping a shared counter correct while two of its five Redis masters die.
 *
 * <p>Five independent redis-server masters are started. Eight worker threads, each with its own
 * {@link RedlockClient} (and so its own connections, like eight separate processes), increment one
 * counter 200 times each. The counter is a plain {@code long} field that nothing but the RedLock
 * {@code "demo-counter"} protects, and every increment is a deliberately racy read,
 * {@link Thread#yield()}, write. When half of the 1600 increments are done, a controller thread
 * kills two of the five masters with SIGKILL. A majority (3 of 5) is still reachable, so the lock
 * keeps working and the final count must be exactly 1600; a lost update would show up as a lower
 * count.
 *
 * <p>At the end it prints a report: expected and final count, acquisitions, failed attempts,
 * acquire latency percentiles, which nodes were killed at what progress, and the settings used.
 * The exit status is 0 when the count is right, 1 when it is not (or the workers did not finish
 * in time), and 2 on an unexpected error.
 *
 * <p>Run it from the repository root with:
 *
 * <pre>
 * ./mvnw -q -Pdemo verify -DskipTests
 * </pre>
 */
public final class Demo {

    private static final int NODES = 5;
    private static final int WORKERS = 8;
    private static final int INCREMENTS_PER_WORKER = 200;
    private static final int TOTAL = WORKERS * INCREMENTS_PER_WORKER;
    /** The masters killed midway: two of five, so a majority of three stays reachable. */
    private static final int[] KILLED_NODES = {1, 3};

    private static final String LOCK_NAME = "demo-counter";

    private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(50);
    private static final Duration LEASE_TIME = Duration.ofSeconds(5);
    private static final Duration RETRY_DELAY = Duration.ofMillis(5);
    private static final double RETRY_JITTER = 0.5;
    private static final Duration WAIT_BUDGET = Duration.ofSeconds(10);
    /** Wait budget of each {@code tryLock} call. */
    private static final long TRY_LOCK_SECONDS = 10;
    /** How long the workers (and the controller) get to finish before the run counts as failed. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);

    /** The shared state. Deliberately neither volatile nor atomic: only the RedLock protects it. */
    private static final class Counter {
        long value;
    }

    /** What one worker did; read by the main thread only after joining the worker. */
    private static final class WorkerStats {
        final long[] latencies = new long[INCREMENTS_PER_WORKER];
        int acquisitions;
        int busy;
        int notEnoughNodes;
    }

    /** A master killed by the controller, and how many increments were done when it died. */
    private record Kill(String node, int progress) {}

    private Demo() {}

    /**
     * Runs the demo and exits with 0 (count correct), 1 (count wrong or timeout) or 2 (error).
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        int status;
        try {
            status = run();
        } catch (Throwable t) {
            System.out.println();
            System.out.println("Redlock demo: ERROR, unexpected exception:");
            t.printStackTrace(System.out);
            status = 2;
        }
        System.out.flush();
        System.exit(status);
    }

    private static int run() throws InterruptedException {
        RedisNodes nodes = RedisNodes.start(NODES);
        try {
            return run(nodes);
        } finally {
            nodes.close();
        }
    }

    private static int run(RedisNodes nodes) throws InterruptedException {
        RedlockConfig config = RedlockConfig.builder()
                .nodes(nodes.uris())
                .perNodeTimeout(PER_NODE_TIMEOUT)
                .leaseTime(LEASE_TIME)
                .retryDelay(RETRY_DELAY)
                .retryJitter(RETRY_JITTER)
                .waitBudget(WAIT_BUDGET)
                // The masters were started a moment ago: with restart quarantine on (the default, and what production
                // should use) their votes would not count for the first lease time.
                .restartQuarantine(false)
                .build();
        String settings = describe(config);
        System.out.printf(
                "Redlock demo: %d workers x %d increments on %d masters, lock '%s'%n",
                WORKERS, INCREMENTS_PER_WORKER, NODES, LOCK_NAME);
        System.out.println("  masters   " + String.join(", ", config.nodeNames()));
        System.out.println("  settings  " + settings);
        System.out.println("  running...");

        List<RedlockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < WORKERS; i++) {
                clients.add(RedlockClient.create(config));
            }
            return runWorkers(nodes, clients, settings);
        } finally {
            for (RedlockClient client : clients) {
                client.close();
            }
        }
    }

    private static int runWorkers(RedisNodes nodes, List<RedlockClient> clients, String settings)
            throws InterruptedException {
        Counter counter = new Counter();
        AtomicInteger progress = new AtomicInteger();
        CountDownLatch halfway = new CountDownLatch(TOTAL / 2);
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Kill> kills = new ArrayList<>();

        WorkerStats[] stats = new WorkerStats[WORKERS];
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            WorkerStats s = new WorkerStats();
            stats[w] = s;
            QuorumLock lock = clients.get(w).redLock(LOCK_NAME);
            threads.add(newThread("demo-worker-" + w, errors, () -> {
                start.await();
                work(lock, counter, progress, halfway, s);
            }));
        }
        Thread controller = newThread("demo-controller", errors, () -> {
            // The latch is counted down once per increment, so this wakes up at the midpoint.
            if (!halfway.await(RUN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
            for (int index : KILLED_NODES) {
                RedisServer server = nodes.get(index);
                // The workers keep going while we kill, so the progress may be slightly past halfway.
                int at = progress.get();
                server.kill();
                synchronized (kills) {
                    kills.add(new Kill(server.host() + ":" + server.port(), at));
                }
            }
        });

        long began = System.nanoTime();
        threads.forEach(Thread::start);
        controller.start();
        start.countDown();

        long deadline = began + RUN_TIMEOUT.toNanos();
        boolean finished = true;
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            finished &= !t.isAlive();
        }
        long elapsed = System.nanoTime() - began;
        // If every worker finished cleanly, the latch has released the controller and it only has
        // the kills to complete; otherwise do not wait for it (it is a daemon thread).
        controller.join(finished && errors.isEmpty() ? 30_000 : 1);

        if (!errors.isEmpty()) {
            IllegalStateException failure = new IllegalStateException("a demo thread failed");
            errors.forEach(failure::addSuppressed);
            throw failure;
        }
        if (!finished) {
            System.out.printf(
                    "%nRedlock demo: FAILED, the workers did not finish within %d s" + " (%d/%d increments done)%n",
                    RUN_TIMEOUT.toSeconds(), progress.get(), TOTAL);
            for (Thread t : threads) {
                if (t.isAlive()) {
                    System.out.println("  still running: " + t.getName() + " at "
                            + Arrays.stream(t.getStackTrace())
                                    .limit(6)
                                    .map(String::valueOf)
                                    .collect(Collectors.joining(" <- ")));
                }
            }
            return 1;
        }

        // join() makes every worker's writes, including the counter's, visible from here on.
        long finalCount = counter.value;
        return report(finalCount, stats, kills, elapsed, settings);
    }

    /** One worker: exactly {@link #INCREMENTS_PER_WORKER} increments, each under the RedLock. */
    @SuppressWarnings("ThreadPriorityCheck") // the yield widens the race that a broken lock would lose
    private static void work(
            QuorumLock lock, Counter counter, AtomicInteger progress, CountDownLatch halfway, WorkerStats s)
            throws InterruptedException {
        while (s.acquisitions < INCREMENTS_PER_WORKER) {
            long t0 = System.nanoTime();
            boolean acquired;
            try {
                acquired = lock.tryLock(TRY_LOCK_SECONDS, TimeUnit.SECONDS);
            } catch (NotEnoughNodesException e) {
                s.notEnoughNodes++;
                continue;
            }
            long latency = System.nanoTime() - t0;
            if (!acquired) {
                s.busy++;
                continue;
            }
            try {
                s.latencies[s.acquisitions++] = latency;
                // Read, give other threads a chance to run, write: without mutual exclusion,
                // concurrent increments would overwrite each other and the final count would be low.
                long read = counter.value;
                Thread.yield();
                counter.value = read + 1;
                progress.incrementAndGet();
                halfway.countDown();
            } finally {
                lock.unlock();
            }
        }
    }

    private static int report(long finalCount, WorkerStats[] stats, List<Kill> kills, long elapsed, String settings) {
        Histogram latencies = new Histogram(3);
        for (WorkerStats s : stats) {
            for (int i = 0; i < s.acquisitions; i++) {
                latencies.recordValue(s.latencies[i]);
            }
        }
        int acquisitions = (int) latencies.getTotalCount();
        int busy = Arrays.stream(stats).mapToInt(s -> s.busy).sum();
        int notEnough = Arrays.stream(stats).mapToInt(s -> s.notEnoughNodes).sum();
        boolean ok = finalCount == TOTAL;

        String down;
        synchronized (kills) {
            down = kills.isEmpty()
                    ? "none (the midpoint was never reached)"
                    : kills.stream()
                            .map(k -> k.node() + " (killed at " + k.progress() + "/" + TOTAL + ")")
                            .collect(Collectors.joining(", "));
        }

        System.out.println();
        System.out.printf(
                "Redlock demo: %d workers x %d increments on %d masters (%d killed midway)%n",
                WORKERS, INCREMENTS_PER_WORKER, NODES, KILLED_NODES.length);
        line("expected count", String.valueOf(TOTAL));
        line(
                "final count",
                String.format("%-6d %s", finalCount, ok ? "OK" : "FAILED (" + (TOTAL - finalCount) + " lost updates)"));
        line("acquisitions", String.valueOf(acquisitions));
        line("failed attempts", busy + notEnough + " (" + busy + " busy, " + notEnough + " not enough nodes)");
        line("acquire latency p50", millis(latencies.getValueAtPercentile(50)));
        line("acquire latency p99", millis(latencies.getValueAtPercentile(99)));
        line("acquire latency max", millis(latencies.getMaxValue()));
        line("elapsed", String.format(Locale.ROOT, "%.2f s", elapsed / 1e9));
        line("nodes down", down);
        line("settings", settings);
        System.out.println();
        System.out.println(
                ok ? "Redlock demo: OK" : "Redlock demo: FAILED, final count " + finalCount + " != " + TOTAL);
        return ok ? 0 : 1;
    }

    /** A thread whose body may throw; any failure is collected for the main thread. */
    private static Thread newThread(String name, ConcurrentLinkedQueue<Throwable> errors, ThrowingRunnable body) {
        Thread t = new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Throwable e) {
                        errors.add(
                                new IllegalStateException(Thread.currentThread().getName() + " failed", e));
                    }
                },
                name);
        // Daemon, so a worker stuck in the library cannot keep the JVM alive after a timeout.
        t.setDaemon(true);
        return t;
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private static void line(String label, String value) {
        System.out.printf("  %-21s %s%n", label, value);
    }

    private static String describe(RedlockConfig c) {
        return "perNodeTimeout " + c.perNodeTimeout().toMillis() + " ms, leaseTime "
                + c.leaseTime().toSeconds() + " s, retryDelay " + c.retryDelay().toMillis()
                + " ms, retryJitter " + c.retryJitter() + ", waitBudget "
                + c.waitBudget().toSeconds()
                + " s, tryLock wait " + TRY_LOCK_SECONDS + " s";
    }
}
