/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Safety of a read-write lock: for each lock (an op's {@link Op#lock()}), no OK writer's holding
 * window ({@link Op#windowStart()} to {@link Op#windowEnd()}) overlaps any other OK op's window,
 * reader's or writer's; readers' windows may overlap each other. An op is a reader when its {@link
 * Op#kind()} is {@link Op.Kind#READ}; every other op on the lock ({@link Op.Kind#WRITE}, or a plain
 * lock's op) counts as a writer. Windows that merely touch (one ends exactly where the next starts)
 * do not overlap.
 *
 * <p>Per lock it sweeps the windows in order of start, remembering the window that reaches
 * furthest so far among all holders and among writers: a writer that starts before the furthest
 * holder's end, or a reader that starts before the furthest writer's end, overlaps it. So every op
 * that starts inside a window it is excluded from is reported once, against the earlier window
 * reaching furthest; an overlap of two writers or of a writer and a reader is always found that
 * way, whichever of the two started first. Ops with empty windows are skipped.
 *
 * <p>The summary also gives the most readers seen holding one lock at once, which shows whether
 * the run really shared the lock between readers.
 */
public final class ReadWriteChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "read-write";

    /** Creates the checker; it has no settings. */
    public ReadWriteChecker() {}

    /**
     * Checks every lock's OK windows for a writer overlapping another holder.
     *
     * @param history the run
     * @return VALID when no writer's window overlaps another holder's, INVALID listing every overlap
     */
    @Override
    public CheckResult check(History history) {
        Map<String, List<Op>> byLock = Windows.byName(history.ops(), op -> List.of(op.lock()));
        int readers = 0;
        int writers = 0;
        int mostReaders = 0;
        List<String> violations = new ArrayList<>();
        for (Map.Entry<String, List<Op>> entry : byLock.entrySet()) {
            List<Op> sorted = entry.getValue();
            List<Op> readersHere =
                    sorted.stream().filter(ReadWriteChecker::isReader).toList();
            readers += readersHere.size();
            writers += sorted.size() - readersHere.size();
            Windows.sweepOverlaps(
                    sorted,
                    op -> !isReader(op),
                    (earlier, later, nanos) -> violations.add("lock \""
                            + entry.getKey()
                            + "\" "
                            + role(earlier)
                            + " and "
                            + role(later)
                            + " held it together for "
                            + Nanos.ms(nanos)
                            + ": "
                            + Windows.overlapping(earlier, later)));
            mostReaders = Math.max(mostReaders, Windows.mostAtOnce(readersHere));
        }

        String summary = readers
                + " reader and "
                + writers
                + " writer holding windows on "
                + byLock.size()
                + " locks checked, at most "
                + mostReaders
                + " readers at once, "
                + violations.size()
                + " overlaps with a writer";
        return CheckResult.of(NAME, violations, summary);
    }

    private static boolean isReader(Op op) {
        return op.kind() == Op.Kind.READ;
    }

    private static String role(Op op) {
        return isReader(op) ? "a reader" : "a writer";
    }
}
