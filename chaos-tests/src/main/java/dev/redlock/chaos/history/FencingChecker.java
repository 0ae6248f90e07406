/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Fencing: for each lock, the fencing tokens of successive OK acquisitions (ordered by {@code
 * completeNanos}) strictly increase, so a resource that remembers the highest token seen can
 * reject a stale holder.
 *
 * <p>Reports the first inversion (or repeat) per lock, naming both ops, and counts the rest in the
 * summary. Ops completing at the same instant are ordered by token, since the clock cannot tell
 * them apart; only a repeated token is then an inversion. UNKNOWN when no op carries a token.
 */
public final class FencingChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "fencing";

    /** Creates the checker; it has no settings. */
    public FencingChecker() {}

    /**
     * Checks the token order of every lock.
     *
     * @param history the run
     * @return VALID if tokens strictly increase on every lock, INVALID naming the first inversion
     *     of each lock that has one, UNKNOWN if no op has a fencing token
     */
    @Override
    public CheckResult check(History history) {
        Map<String, List<Op>> byLock = new TreeMap<>();
        int tokens = 0;
        for (Op op : history.ops()) {
            if (op.outcome() == Op.Outcome.OK && op.fencingToken() != Op.NONE) {
                tokens++;
                byLock.computeIfAbsent(op.lock(), k -> new ArrayList<>()).add(op);
            }
        }
        if (tokens == 0) {
            return CheckResult.unknown(NAME, "no OK op carries a fencing token");
        }

        List<String> violations = new ArrayList<>();
        int inversions = 0;
        for (Map.Entry<String, List<Op>> entry : byLock.entrySet()) {
            List<Op> sorted = entry.getValue();
            sorted.sort(Comparator.comparingLong(Op::completeNanos).thenComparingLong(Op::fencingToken));
            boolean reported = false;
            for (int i = 1; i < sorted.size(); i++) {
                Op prev = sorted.get(i - 1);
                Op next = sorted.get(i);
                if (next.fencingToken() > prev.fencingToken()) {
                    continue;
                }
                inversions++;
                if (!reported) {
                    reported = true;
                    violations.add("lock \""
                            + entry.getKey()
                            + "\" fencing token went from "
                            + prev.fencingToken()
                            + " to "
                            + next.fencingToken()
                            + ": client "
                            + prev.client()
                            + " "
                            + prev
                            + " then client "
                            + next.client()
                            + " "
                            + next);
                }
            }
        }
        String summary = tokens
                + " fenced acquisitions on "
                + byLock.size()
                + " locks, "
                + inversions
                + " non-increasing steps on "
                + violations.size()
                + " locks";
        return CheckResult.of(NAME, violations, summary);
    }
}
