/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;

/**
 * Safety of multi-resource locks: for each resource, no two OK ops that hold it have overlapping
 * holding windows ({@link Op#windowStart()} to {@link Op#windowEnd()}). An op holds {@link
 * Op#resourcesHeld()}: every name of a multi-resource lease ({@link Op#resources()}), or the one
 * name of a plain lock's lease ({@link Op#lock()}); so multi-resource leases are checked against
 * each other and against plain RedLock leases of their member names. A lease holds all of its
 * names for its whole window: there are no partial holds. Windows that merely touch (one ends
 * exactly where the next starts) do not overlap.
 *
 * <p>Per resource it sweeps the windows of the ops holding it in order of start, remembering the
 * window that reaches furthest so far; every window that starts before that one ends is an
 * overlap, reported once for that resource against the window reaching furthest (which also
 * catches a window nested wholly inside another). Two leases that share several names are
 * reported once per shared name. Ops with empty windows are skipped.
 *
 * <p>The summary also gives the most multi-resource leases held at once on any names, which shows
 * whether leases of disjoint sets really ran side by side.
 */
public final class MultiResourceChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "multi-resource";

    /** Creates the checker; it has no settings. */
    public MultiResourceChecker() {}

    /**
     * Checks every resource's holders for overlapping windows.
     *
     * @param history the run
     * @return VALID when no resource was held twice at once, INVALID listing every overlap
     */
    @Override
    public CheckResult check(History history) {
        List<Op> ops = history.ops();
        SortedMap<String, List<Op>> byResource = Windows.byName(ops, Op::resourcesHeld);
        List<Op> multi = new ArrayList<>();
        int windows = 0;
        for (Op op : ops) {
            if (op.outcome() == Op.Outcome.OK && !op.windowEmpty()) {
                windows++;
                if (op.kind() == Op.Kind.MULTI) {
                    multi.add(op);
                }
            }
        }

        List<String> violations = Windows.heldTwice("resource", byResource);

        String summary = windows
                + " holding windows ("
                + multi.size()
                + " multi-resource) on "
                + byResource.size()
                + " resources checked, at most "
                + Windows.mostAtOnce(multi)
                + " multi-resource leases at once, "
                + violations.size()
                + " overlaps";
        return CheckResult.of(NAME, violations, summary);
    }
}
