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
 * five-node fan-out floor; with {@code -Dprofile.contender=ours-redlock-restart-protected}, of our RedLock with restart
 * protection on, whose warm-up must outlast the masters' first quarantine of the 10 s lease) on five local masters, as {@link Compare} runs them, under a JFR recording that covers
 * only the measured window: {@code -Dprofile.seconds} (default 10) after {@code -Dprofile.warmup} seconds of
 * warm-up (default 10, so that the JIT has settled). Prints cycles, cycles/s, acquire and cycle latency, JVM
 * CPU (user and system), the servers' and the whole machine's CPU, context switches and the bytes the JVM's threads
 * allocated per cycle, and writes the recording ({@code -Dprofile.jfr}, default
 * {@code redlock-bench/target/one-worker.jfr}; {@code none} records nothing, for a run under an external profiler) with
 * JFR's {@code profile} settings.
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
        try (RedisNodes nodes = RedisNodes.start(Compare.NODES)) {
            OurContender ours = which.equals("ours-redlock-restart-protected")
                    ? OurContender.restartProtected(nodes.uris(), Compare.PER_NODE_TIMEOUT, Compare.LEASE)
                    : new OurContender(QuorumPolicy.MAJORITY, nodes.uris(), Compare.PER_NODE_TIMEOUT, Compare.LEASE);
            Contender contender = which.startsWith("ours-redlock")
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
                String jfrProperty = System.getProperty("profile.jfr", "redlock-bench/target/one-worker.jfr");
                Recording recording = jfrProperty.equals("none") ? null : startRecording();
                long switches0 = ContextSwitches.ofProcess();
                long allocated0 = allocatedBytes();
                long[] ticks0 = ticks();
                long cpu0 = cpuNanos();
                long t0 = System.nanoTime();
                long end = t0 + Duration.ofSeconds(seconds).toNanos();
                long cycles = 0;
                Samples acquire = new Samples();
                Samples cycle = new Samples();
                while (System.nanoTime() - end < 0) {
                    Compare.timedCycle(handle, acquire, cycle, null, failures);
                    cycles++;
                }
                long t1 = System.nanoTime();
                long cpu1 = cpuNanos();
                long switches1 = ContextSwitches.ofProcess();
                long allocated1 = allocatedBytes();
                long[] ticks1 = ticks();
                String written = "none";
                if (recording != null) {
                    Path jfr = Path.of(jfrProperty).toAbsolutePath();
                    recording.stop();
                    Files.createDirectories(jfr.getParent());
                    recording.dump(jfr);
                    recording.close();
                    written = jfr.toString();
                }
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
                        written);
                System.out.printf(
                        Locale.ROOT,
                        "latency (us): acquire p50 %.1f p99 %.1f; cycle p50 %.1f p99 %.1f; allocated %s bytes/cycle%n",
                        acquire.percentile(0.5) / 1e3,
                        acquire.percentile(0.99) / 1e3,
                        cycle.percentile(0.5) / 1e3,
                        cycle.percentile(0.99) / 1e3,
                        allocated0 < 0 || allocated1 < 0
                                ? "(not measured)"
                                : String.format(Locale.ROOT, "%.0f", (double) (allocated1 - allocated0) / cycles));
                if (ticks0 != null && ticks1 != null) {
                    double perCycle = 1e6 / TICKS_PER_SECOND / cycles;
                    System.out.printf(
                            Locale.ROOT,
                            "per cycle: JVM user %.1f us, JVM system %.1f us, servers %.1f us; whole machine busy %.1f us"
                                    + " (%.2f of %d cores busy; %.1f us stolen by the host)%n",
                            (ticks1[0] - ticks0[0]) * perCycle,
                            (ticks1[1] - ticks0[1]) * perCycle,
                            (ticks1[3] - ticks0[3]) * perCycle,
                            (ticks1[2] - ticks0[2]) * perCycle,
                            (ticks1[2] - ticks0[2]) / (double) TICKS_PER_SECOND / ((t1 - t0) / 1e9),
                            Runtime.getRuntime().availableProcessors(),
                            (ticks1[4] - ticks0[4]) * perCycle);
                }
            } finally {
                contender.close();
                if (contender != ours) {
                    ours.close();
                }
            }
        }
    }

    // JFR's own start-up (class instrumentation, a burst of JIT compilation) lands in the window; an external profiler
    // run passes -Dprofile.jfr=none so that it sees the cycle alone.
    private static Recording startRecording() throws java.io.IOException, java.text.ParseException {
        Recording recording = new Recording(Configuration.getConfiguration("profile"));
        recording.enable("jdk.ThreadPark").withoutThreshold().withStackTrace();
        recording.enable("jdk.JavaMonitorWait").withoutThreshold().withStackTrace();
        recording.enable("jdk.ThreadCPULoad").withPeriod(Duration.ofSeconds(1));
        recording.start();
        return recording;
    }

    /** Linux's USER_HZ, the unit of {@code /proc}'s CPU times (100 on every mainstream architecture). */
    private static final int TICKS_PER_SECOND = 100;

    /**
     * This JVM's user and system CPU time, the whole machine's busy time (every CPU's time not idle, not waiting for
     * I/O and not stolen), the servers' CPU time and the time the host took from this virtual machine's CPUs, in
     * {@code /proc} ticks; null where {@code /proc} does not say. The machine's share covers the servers
     * and the kernel's network work done on their behalf.
     */
    private static long[] ticks() {
        try {
            String self = Files.readString(Path.of("/proc/self/stat"));
            String[] f = self.substring(self.lastIndexOf(')') + 2).split(" ");
            // after the command: state(3) ppid ... utime is field 14 and stime field 15 of the whole line
            long user = Long.parseLong(f[11]);
            long system = Long.parseLong(f[12]);
            String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] c = cpu.trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < c.length && i <= 7; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(c[i]);
                }
            }
            long steal = c.length > 8 ? Long.parseLong(c[8]) : 0; // a virtual machine's CPUs taken by its host
            long servers = ProcessHandle.current()
                    .descendants()
                    .mapToLong(OneWorkerProfile::cpuTicks)
                    .sum();
            return new long[] {user, system, busy, servers, steal};
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** A child process's user and system CPU time in {@code /proc} ticks (0 once it has ended). */
    private static long cpuTicks(ProcessHandle process) {
        try {
            String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The bytes every live thread of this JVM has allocated on the heap so far (the worker's, the client's I/O loop
     * and scheduler, JFR's), or -1 where the JVM does not count them. The threads live through the window, so the
     * difference of two readings is what the window allocated.
     */
    private static long allocatedBytes() {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
                || !threads.isThreadAllocatedMemorySupported()
                || !threads.isThreadAllocatedMemoryEnabled()) {
            return -1;
        }
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            if (bytes > 0) { // -1 for a thread that ended between the two calls
                sum += bytes;
            }
        }
        return sum;
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }
}
