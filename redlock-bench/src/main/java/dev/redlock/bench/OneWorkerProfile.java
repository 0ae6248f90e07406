/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.QuorumPolicy;
import dev.redlock.testkit.RedisNodes;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * One worker's acquire+release cycles of our RedLock (or, with {@code -Dprofile.contender=floor-fanout-5}, of the
 * five-node fan-out floor) on five local masters, as {@link Compare} runs them, under a JFR recording that covers
 * only the measured window: {@code -Dprofile.seconds} (default 10) after {@code -Dprofile.warmup} seconds of
 * warm-up (default 10, so that the JIT has settled). Prints cycles, cycles/s, JVM
 * CPU and context switches per cycle, and writes the recording ({@code -Dprofile.jfr}, default
 * {@code redlock-bench/target/one-worker.jfr}) with JFR's {@code profile} settings.
 *
 * <pre>
 * java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.OneWorkerProfile
 * jfr print --events jdk.ThreadPark redlock-bench/target/one-worker.jfr
 * </pre>
 */
public final class OneWorkerProfile {

    private OneWorkerProfile() {}

    /**
     * Runs the warm-up and the recorded window; see the class documentation.
     *
     * @param args ignored
     * @throws Exception if the nodes or the client cannot be started, or the recording cannot be written
     */
    public static void main(String[] args) throws Exception {
        String which = System.getProperty("profile.contender", "ours-redlock");
        long seconds = Long.getLong("profile.seconds", 10);
        long warmup = Long.getLong("profile.warmup", 10);
        Path jfr = Path.of(System.getProperty("profile.jfr", "redlock-bench/target/one-worker.jfr"))
                .toAbsolutePath();
        try (RedisNodes nodes = RedisNodes.start(Compare.NODES)) {
            OurContender ours =
                    new OurContender(QuorumPolicy.MAJORITY, nodes.uris(), Compare.PER_NODE_TIMEOUT, Compare.LEASE);
            Contender contender = which.equals("ours-redlock")
                    ? ours
                    : new FanOutFloor(
                            nodes.uris(),
                            Compare.LEASE,
                            ours.config().retryDelay(),
                            ours.config().retryJitter());
            try (Contender.Handle handle = contender.open(which + ":profile")) {
                Failures failures = new Failures();
                long warmEnd = System.nanoTime() + Duration.ofSeconds(warmup).toNanos();
                while (System.nanoTime() - warmEnd < 0) {
                    Compare.timedCycle(handle, null, null, null, failures);
                }
                try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
                    recording.enable("jdk.ThreadPark").withoutThreshold().withStackTrace();
                    recording.enable("jdk.JavaMonitorWait").withoutThreshold().withStackTrace();
                    recording.enable("jdk.ThreadCPULoad").withPeriod(Duration.ofSeconds(1));
                    recording.start();
                    long switches0 = ContextSwitches.ofProcess();
                    long cpu0 = cpuNanos();
                    long t0 = System.nanoTime();
                    long end = t0 + Duration.ofSeconds(seconds).toNanos();
                    long cycles = 0;
                    while (System.nanoTime() - end < 0) {
                        Compare.timedCycle(handle, null, null, null, failures);
                        cycles++;
                    }
                    long t1 = System.nanoTime();
                    long cpu1 = cpuNanos();
                    long switches1 = ContextSwitches.ofProcess();
                    recording.stop();
                    Files.createDirectories(jfr.getParent());
                    recording.dump(jfr);
                    System.out.printf(
                            Locale.ROOT,
                            "%s: %d cycles in %.2f s = %.0f cycles/s; JVM CPU %.1f us/cycle; %.2f context switches"
                                    + "/cycle; %s%nrecording: %s%n",
                            which,
                            cycles,
                            (t1 - t0) / 1e9,
                            cycles / ((t1 - t0) / 1e9),
                            (cpu1 - cpu0) / 1e3 / cycles,
                            (double) (switches1 - switches0) / cycles,
                            failures.summary(),
                            jfr);
                }
            } finally {
                contender.close();
                if (contender != ours) {
                    ours.close();
                }
            }
        }
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }
}
