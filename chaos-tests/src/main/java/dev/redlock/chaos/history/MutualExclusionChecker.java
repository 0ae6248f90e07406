/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.List;
import java.util.SortedMap;

/**
 * Safety: for each lock, no two OK ops' holding windows ({@link Op#windowStart()} to {@link
 * Op#windowEnd()}) overlap. Windows that merely touch (one ends exactly where the next starts) are
 * fine.
 *
 * <p>Per lock it sweeps the windows in order of start, remembering the window that reaches
 * furthest so far; every window that starts before that one ends is an overlap. So each offending
 * op is reported once, against the earlier window reaching furthest, which also catches a window
 * nested wholly inside another. Ops with empty windows are skipped but counted in the summary.
 */
public final class MutualExclusionChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "mutual-exclusion";

    /** Creates the checker; it has no settings. */
    public MutualExclusionChecker() {}

    /**
     * Checks every lock's OK windows for overlaps.
     *
     * @param history the run
     * @return VALID when no windows overlap, INVALID listing every overlap otherwise
     */
    @Override
    public CheckResult check(History history) {
        List<Op> ops = history.ops();
        int empty = 0;
        for (Op op : ops) {
            if (op.outcome() == Op.Outcome.OK && op.windowEmpty()) {
                empty++;
            }
        }
        SortedMap<String, List<Op>> byLock = Windows.byName(ops, op -> List.of(op.lock()));
        int windows = 0;
        for (List<Op> group : byLock.values()) {
            windows += group.size();
        }
        List<String> violations = Windows.heldTwice("lock", byLock);

        String summary = windows
                + " holding windows on "
                + byLock.size()
                + " locks checked, "
                + empty
                + " empty windows ignored, "
                + violations.size()
                + " overlaps";
        return CheckResult.of(NAME, violations, summary);
    }
}
