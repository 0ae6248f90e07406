/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Safety of read-write locks: no writer's holding window overlaps the window of any other holder of its lock, reader
 * or writer. Readers may overlap each other. The one exception is a downgrade: a reader let in by a write lease's
 * token (taken by the thread that holds the write lease) may overlap that write lease, and only that one. (The chaos
 * suite's {@code ReadWriteChecker} states the same without that exception: its workloads take no reader inside a
 * write lease.)
 */
public final class ReadWriteExclusionChecker {

    /** This checker's name in its results. */
    public static final String NAME = "read-write-exclusion";

    private ReadWriteExclusionChecker() {}

    /**
     * One lease of a read-write lock.
     *
     * @param op the lease's holding window (its lock is the read-write lock's name)
     * @param writer whether it is a write lease
     * @param token the lease's full token
     * @param admittedBy a reader let in by a write lease: that lease's full token; null otherwise
     */
    public record Hold(Op op, boolean writer, String token, String admittedBy) {}

    /**
     * Checks every writer against every other holder of its lock.
     *
     * @param holds the leases of every read-write lock, readers and writers
     * @return VALID when no writer overlaps another holder, INVALID naming both leases of each overlap otherwise
     */
    @SuppressWarnings("ReferenceEquality") // which of the two holds, not an equal one
    public static CheckResult check(List<Hold> holds) {
        Map<String, List<Hold>> byLock = new TreeMap<>();
        for (Hold h : holds) {
            if (h.op().outcome() == Op.Outcome.OK && !h.op().windowEmpty()) {
                byLock.computeIfAbsent(h.op().lock(), k -> new ArrayList<>()).add(h);
            }
        }
        List<String> violations = new ArrayList<>();
        int writers = 0;
        int readers = 0;
        int sharedReads = 0;
        int downgrades = 0;
        for (Map.Entry<String, List<Hold>> e : byLock.entrySet()) {
            List<Hold> list = e.getValue();
            for (int i = 0; i < list.size(); i++) {
                Hold a = list.get(i);
                if (a.writer()) {
                    writers++;
                } else {
                    readers++;
                }
                for (int j = i + 1; j < list.size(); j++) {
                    Hold b = list.get(j);
                    long overlap = Math.min(a.op().windowEnd(), b.op().windowEnd())
                            - Math.max(a.op().windowStart(), b.op().windowStart());
                    if (overlap <= 0) {
                        continue;
                    }
                    if (!a.writer() && !b.writer()) {
                        sharedReads++;
                    } else if (admits(a, b) || admits(b, a)) {
                        downgrades++;
                    } else {
                        Hold w = a.writer() ? a : b;
                        Hold other = w == a ? b : a;
                        violations.add("read-write lock \"" + e.getKey() + "\": writer client " + w.op().client()
                                + " " + w.op() + " overlaps " + (other.writer() ? "writer" : "reader") + " client "
                                + other.op().client() + " " + other.op() + " for "
                                + TimeUnit.NANOSECONDS.toMicros(overlap) + " us");
                    }
                }
            }
        }
        String summary = writers + " write and " + readers + " read windows on " + byLock.size() + " locks, "
                + sharedReads + " overlapping reads, " + downgrades + " readers inside their own write lease, "
                + violations.size() + " writer overlaps";
        return violations.isEmpty() ? CheckResult.valid(NAME, summary) : CheckResult.invalid(NAME, violations, summary);
    }

    /** Whether writer {@code w} let reader {@code r} in (a downgrade). */
    private static boolean admits(Hold w, Hold r) {
        return w.writer() && !r.writer() && w.token().equals(r.admittedBy());
    }
}
