/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How much of the machine's CPU other processes used during a phase: busy time of every CPU (from
 * {@code /proc/stat}) minus the CPU time of this JVM and of the processes it started (the redis-servers), as a share
 * of all CPU time. On a small machine another build or test run shows up here and explains disturbed numbers.
 * Linux only; elsewhere the share is NaN.
 */
final class ForeignCpu {

    private final long[] start;

    private ForeignCpu(long[] start) {
        this.start = start;
    }

    /** Starts measuring now. */
    static ForeignCpu start() {
        return new ForeignCpu(sample());
    }

    /**
     * Returns the share of all CPU time since {@link #start()} that went to other processes.
     *
     * @return percent of the machine's capacity (0 to 100), or NaN if {@code /proc} cannot be read
     */
    double percent() {
        long[] end = sample();
        if (start == null || end == null || end[0] == start[0]) {
            return Double.NaN;
        }
        long total = end[0] - start[0];
        long busy = end[1] - start[1];
        long own = end[2] - start[2];
        return Math.max(0, 100.0 * (busy - own) / total);
    }

    /** {total, busy, own} in clock ticks, or null off Linux. */
    private static long[] sample() {
        try {
            long total = 0;
            long busy = 0;
            for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
                if (line.startsWith("cpu ")) {
                    String[] f = line.trim().split("\\s+");
                    // user nice system idle iowait irq softirq steal (guest time is already in user).
                    for (int i = 1; i <= 8 && i < f.length; i++) {
                        long v = Long.parseLong(f[i]);
                        total += v;
                        if (i != 4 && i != 5) {
                            busy += v;
                        }
                    }
                    break;
                }
            }
            long own = ticks(ProcessHandle.current().pid());
            for (ProcessHandle child : ProcessHandle.current().children().toList()) {
                own += ticks(child.pid());
            }
            return new long[] {total, busy, own};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** User plus system clock ticks of one process (0 if it is gone). */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // The command name (field 2) may hold spaces; the fields after it follow its closing parenthesis.
            List<String> f =
                    List.of(stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+"));
            return Long.parseLong(f.get(11)) + Long.parseLong(f.get(12)); // utime and stime: fields 14 and 15
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
