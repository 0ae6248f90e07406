/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The holding windows ({@link Op#windowStart()} to {@link Op#windowEnd()}) of a history's OK ops,
 * and the sweeps over them that the safety checkers share: grouping windows by lock or resource,
 * finding each window that starts inside one it is excluded from, and following which windows are
 * open at once. Windows that merely touch (one ends exactly where the next starts) never overlap.
 */
final class Windows {

    /** Start order: by start, then end, then client, so that two runs of a checker read the same. */
    static final Comparator<Op> BY_START = Comparator.comparingLong(Op::windowStart)
            .thenComparingLong(Op::windowEnd)
            .thenComparingInt(Op::client);

    private Windows() {}

    /** Told of one overlap found by {@link #sweepOverlaps}. */
    @FunctionalInterface
    interface Overlap {
        /**
         * An overlap of two windows.
         *
         * @param earlier the earlier window reaching furthest among those {@code later} is excluded from
         * @param later the window that starts inside it
         * @param nanos how long the two overlap
         */
        void found(Op earlier, Op later, long nanos);
    }

    /**
     * The two ops of an overlap, for a violation message.
     *
     * @return {@code client A <earlier op> overlaps client B <later op>}
     */
    static String overlapping(Op earlier, Op later) {
        return "client " + earlier.client() + " " + earlier + " overlaps client " + later.client() + " " + later;
    }

    /**
     * The OK ops with a non-empty window, grouped under each name {@code names} gives them (an op
     * may stand under several), each group in {@link #BY_START} order, the names in natural order
     * so that violations are reported in a stable order.
     */
    static SortedMap<String, List<Op>> byName(List<Op> ops, Function<Op, ? extends Collection<String>> names) {
        SortedMap<String, List<Op>> groups = new TreeMap<>();
        for (Op op : ops) {
            if (op.outcome() == Op.Outcome.OK && !op.windowEmpty()) {
                for (String name : names.apply(op)) {
                    groups.computeIfAbsent(name, k -> new ArrayList<>()).add(op);
                }
            }
        }
        groups.values().forEach(group -> group.sort(BY_START));
        return groups;
    }

    /**
     * Sweeps windows in start order, remembering the window that reaches furthest so far among all
     * of them and among the exclusive ones: an exclusive window that starts before the end of the
     * furthest one, or any other window that starts before the end of the furthest exclusive one,
     * overlaps it. So every window that starts inside one it is excluded from is reported once,
     * against the earlier window reaching furthest; that also catches a window nested wholly inside
     * another, and an overlap of two windows of which one is exclusive, whichever started first.
     *
     * @param sorted the windows of one lock or resource, in {@link #BY_START} order
     * @param exclusive which windows exclude every other (every one for a mutex, the writers' for a
     *     read-write lock); the others exclude only the exclusive ones
     * @param overlap told of each overlap, in the order found
     */
    static void sweepOverlaps(List<Op> sorted, Predicate<Op> exclusive, Overlap overlap) {
        Op furthest = null;
        Op furthestExclusive = null;
        for (Op op : sorted) {
            boolean excludesAll = exclusive.test(op);
            Op excludedBy = excludesAll ? furthest : furthestExclusive;
            if (excludedBy != null && op.windowStart() < excludedBy.windowEnd()) {
                overlap.found(excludedBy, op, Math.min(op.windowEnd(), excludedBy.windowEnd()) - op.windowStart());
            }
            if (furthest == null || op.windowEnd() > furthest.windowEnd()) {
                furthest = op;
            }
            if (excludesAll && (furthestExclusive == null || op.windowEnd() > furthestExclusive.windowEnd())) {
                furthestExclusive = op;
            }
        }
    }

    /**
     * The overlaps of each group's windows, every window excluding every other (a mutex per name),
     * as violations {@code <what> "<name>" held twice for <overlap>: client A <op> overlaps client B
     * <op>}, group by group.
     *
     * @param what what a name names, e.g. {@code "lock"}
     * @param byName the groups, from {@link #byName}
     * @return the violations, in the order found
     */
    static List<String> heldTwice(String what, SortedMap<String, List<Op>> byName) {
        List<String> violations = new ArrayList<>();
        byName.forEach((name, sorted) -> sweepOverlaps(
                sorted,
                op -> true,
                (earlier, later, nanos) -> violations.add(what
                        + " \""
                        + name
                        + "\" held twice for "
                        + Nanos.ms(nanos)
                        + ": "
                        + overlapping(earlier, later))));
        return violations;
    }

    /**
     * Walks the windows' boundaries in time order, ends before starts at one instant, and at each
     * start tells {@code atStart} which windows are open then: the starting one and those opened
     * before it and not yet ended, in the order they opened.
     *
     * @param ops the windows, in any order
     * @param atStart told of the open windows at each start
     */
    static void sweepOpen(List<Op> ops, Consumer<List<Op>> atStart) {
        // {time, +1 at a start or -1 at an end, index}; the sort is stable, so ties keep ops' order.
        List<long[]> edges = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            edges.add(new long[] {ops.get(i).windowStart(), 1, i});
            edges.add(new long[] {ops.get(i).windowEnd(), -1, i});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        // Indices, not ops: two ops can be equal records.
        Set<Integer> open = new LinkedHashSet<>();
        for (long[] e : edges) {
            if (e[1] < 0) {
                open.remove((int) e[2]);
                continue;
            }
            open.add((int) e[2]);
            List<Op> now = new ArrayList<>(open.size());
            open.forEach(i -> now.add(ops.get(i)));
            atStart.accept(now);
        }
    }

    /**
     * The most windows open at one instant.
     *
     * @param ops the windows, in any order
     * @return the largest number open together, 0 for none
     */
    static int mostAtOnce(List<Op> ops) {
        int[] most = {0};
        sweepOpen(ops, open -> most[0] = Math.max(most[0], open.size()));
        return most[0];
    }
}
