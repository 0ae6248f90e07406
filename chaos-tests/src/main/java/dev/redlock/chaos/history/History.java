/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import org.HdrHistogram.Histogram;

/**
 * The record of a chaos run: every lock operation the workload clients attempted and every fault
 * the nemesis injected, all timed on one {@link System#nanoTime()} clock.
 *
 * <p>Thread-safe and append-only: many clients {@link #add(Op)} concurrently while the run goes
 * on; the checkers read snapshots afterwards.
 */
public final class History {

    // One monitor guards both lists: appends are cheap and rare next to a lock round trip, so
    // contention does not matter, and readers get a consistent snapshot of both.
    private final Object mutex = new Object();
    private final List<Op> ops = new ArrayList<>();
    private final List<NemesisEvent> events = new ArrayList<>();

    /** Creates an empty history. */
    public History() {}

    /**
     * Appends an operation.
     *
     * @param op the finished operation
     */
    public void add(Op op) {
        Objects.requireNonNull(op, "op");
        synchronized (mutex) {
            ops.add(op);
        }
    }

    /**
     * Appends a nemesis event.
     *
     * @param e the event
     */
    public void add(NemesisEvent e) {
        Objects.requireNonNull(e, "e");
        synchronized (mutex) {
            events.add(e);
        }
    }

    /**
     * A snapshot of the operations, in the order they were added.
     *
     * @return an unmodifiable copy
     */
    public List<Op> ops() {
        synchronized (mutex) {
            return List.copyOf(ops);
        }
    }

    /**
     * A snapshot of the nemesis events, in the order they were added.
     *
     * @return an unmodifiable copy
     */
    public List<NemesisEvent> events() {
        synchronized (mutex) {
            return List.copyOf(events);
        }
    }

    /**
     * A new history holding the operations that match {@code filter} (in the order they were added)
     * and every nemesis event, for a checker that judges one kind of operation of a mixed run.
     *
     * @param filter which operations to keep
     * @return the selection; this history is not changed
     */
    public History select(Predicate<? super Op> filter) {
        Objects.requireNonNull(filter, "filter");
        History selected = new History();
        synchronized (mutex) {
            for (Op op : ops) {
                if (filter.test(op)) {
                    selected.ops.add(op);
                }
            }
            selected.events.addAll(events);
        }
        return selected;
    }

    /**
     * Writes the history as JSON lines (UTF-8, one object per line), replacing {@code file}.
     *
     * <p>Ops (by {@code invokeNanos}) and events (by {@code atNanos}) are interleaved in time order so
     * the file reads as a timeline; at equal times ops come first, and otherwise the order they were
     * added is kept. Each line has {@code "type"} {@code "op"} or {@code "nemesis"}.
     *
     * @param file where to write
     * @throws IOException if writing fails
     */
    public void writeJsonLines(Path file) throws IOException {
        List<Op> opsSnapshot;
        List<NemesisEvent> eventsSnapshot;
        synchronized (mutex) {
            opsSnapshot = new ArrayList<>(ops);
            eventsSnapshot = new ArrayList<>(events);
        }
        // List.sort is stable, so equal timestamps keep their insertion order.
        opsSnapshot.sort(Comparator.comparingLong(Op::invokeNanos));
        eventsSnapshot.sort(Comparator.comparingLong(NemesisEvent::atNanos));
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            int i = 0;
            int j = 0;
            while (i < opsSnapshot.size() || j < eventsSnapshot.size()) {
                String line;
                if (j >= eventsSnapshot.size()
                        || (i < opsSnapshot.size()
                                && opsSnapshot.get(i).invokeNanos()
                                        <= eventsSnapshot.get(j).atNanos())) {
                    line = opsSnapshot.get(i++).toJson();
                } else {
                    line = eventsSnapshot.get(j++).toJson();
                }
                w.write(line);
                w.write('\n');
            }
        }
    }

    /**
     * Reads a file written by {@link #writeJsonLines(Path)}; blank lines are skipped.
     *
     * @param file the JSON-lines file
     * @return a new history holding the file's ops and events, each in file order
     * @throws IOException if reading fails
     * @throws IllegalArgumentException if a line is malformed or its type is unknown (the message
     *     gives the line number)
     */
    public static History readJsonLines(Path file) throws IOException {
        History history = new History();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int lineNo = 0;
            while ((line = r.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    JsonLines.Line parsed = JsonLines.read(line, JsonLines.Line.class);
                    if (parsed instanceof JsonLines.OpLine op) {
                        history.add(op.toOp());
                    } else {
                        history.add(((JsonLines.EventLine) parsed).toEvent());
                    }
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + ":" + lineNo + ": " + e.getMessage(), e);
                }
            }
        }
        return history;
    }

    /**
     * Counts the run's operations and the checkers' violations.
     *
     * @param results the checkers' results
     * @return the counts and the p99 acquire latency of OK ops
     */
    public Summary summarize(List<CheckResult> results) {
        List<Op> snapshot = ops();
        int acquired = 0;
        int failed = 0;
        int unknown = 0;
        Histogram latencies = new Histogram(3);
        for (Op op : snapshot) {
            switch (op.outcome()) {
                case OK -> {
                    acquired++;
                    latencies.recordValue(op.latencyNanos());
                }
                case FAIL -> failed++;
                case UNKNOWN -> unknown++;
            }
        }
        int violations = 0;
        for (CheckResult r : results) {
            violations += r.violations().size();
        }
        double p99Ms = acquired == 0 ? Double.NaN : latencies.getValueAtPercentile(99) / 1_000_000.0;
        return new Summary(snapshot.size(), acquired, failed, unknown, violations, p99Ms);
    }

    /**
     * The headline numbers of a run.
     *
     * @param ops operations attempted
     * @param acquired operations that acquired the lock (OK)
     * @param failed operations that did not (FAIL)
     * @param unknown operations that ended in an unexpected error (UNKNOWN)
     * @param violations total violations across the checkers' results
     * @param p99AcquireMs 99th percentile of OK ops' acquire latency in milliseconds (the smallest
     *     latency that 99% of them do not exceed, to three significant digits), or NaN when nothing
     *     was acquired
     */
    public record Summary(int ops, int acquired, int failed, int unknown, int violations, double p99AcquireMs) {

        /**
         * One line such as {@code ops=812 acquired=640 failed=170 unknown=2 violations=0
         * p99AcquireMs=3.41}; the latency reads {@code n/a} when nothing was acquired.
         *
         * @return the one-line summary
         */
        @Override
        public String toString() {
            String p99 = Double.isNaN(p99AcquireMs) ? "n/a" : String.format(Locale.ROOT, "%.2f", p99AcquireMs);
            return "ops="
                    + ops
                    + " acquired="
                    + acquired
                    + " failed="
                    + failed
                    + " unknown="
                    + unknown
                    + " violations="
                    + violations
                    + " p99AcquireMs="
                    + p99;
        }
    }
}
