/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Context switches of this JVM, from Linux's {@code /proc/self/task/<tid>/status}: the sum over its live threads of
 * {@code voluntary_ctxt_switches} and {@code nonvoluntary_ctxt_switches} (a thread that ended takes its count with
 * it, so read it around a window in which the threads that matter live throughout).
 */
final class ContextSwitches {

    private static final Path TASKS = Path.of("/proc/self/task");

    private ContextSwitches() {}

    /** The sum over the process's live threads, or -1 where {@code /proc} does not say (not Linux). */
    static long ofProcess() {
        if (!Files.isDirectory(TASKS)) {
            return -1;
        }
        long total = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                total += ofStatus(task.resolve("status"));
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    private static long ofStatus(Path status) {
        try {
            long sum = 0;
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
            return sum;
        } catch (IOException | RuntimeException e) {
            // The thread ended while the directory was read.
            return 0;
        }
    }
}
