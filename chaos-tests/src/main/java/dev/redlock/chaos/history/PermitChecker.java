/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Safety of a semaphore: for each semaphore (an op's {@link Op#lock()}), at no instant are more than {@code permits}
 * OK ops' holding windows ({@link Op#windowStart()} to {@link Op#windowEnd()}) open at once. Windows that merely touch
 * (one ends exactly where the next starts) do not overlap.
 *
 * <p>It sweeps the window boundaries in time order, ends before starts at the same instant, counting open windows;
 * each time the count goes above {@code permits} it reports the windows open then. With {@code permits} = 1 it judges
 * what {@link MutualExclusionChecker} judges.
 */
public final class PermitChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "permits";

    private final int permits;

    /**
     * Creates the checker.
     *
     * @param permits how many holders a semaphore may have at once, at least 1
     */
    public PermitChecker(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits: must be at least 1, was " + permits);
        }
        this.permits = permits;
    }

    /**
     * Checks every semaphore's OK windows.
     *
     * @param history the run
     * @return VALID when no instant has more than {@code permits} open windows, INVALID listing each excess
     */
    @Override
    public CheckResult check(History history) {
        Map<String, List<Op>> bySemaphore = Windows.byName(history.ops(), op -> List.of(op.lock()));
        List<String> violations = new ArrayList<>();
        int windows = 0;
        int[] most = {0};
        for (Map.Entry<String, List<Op>> entry : bySemaphore.entrySet()) {
            windows += entry.getValue().size();
            Windows.sweepOpen(entry.getValue(), open -> {
                most[0] = Math.max(most[0], open.size());
                if (open.size() > permits) {
                    StringBuilder v = new StringBuilder("semaphore \"")
                            .append(entry.getKey())
                            .append("\" held ")
                            .append(open.size())
                            .append(" times at once (")
                            .append(permits)
                            .append(" permits):");
                    for (Op op : open) {
                        v.append(" client ").append(op.client()).append(' ').append(op);
                    }
                    violations.add(v.toString());
                }
            });
        }
        String summary = windows + " holding windows on " + bySemaphore.size() + " semaphores checked, at most "
                + most[0] + " held at once, " + violations.size() + " excesses";
        return CheckResult.of(NAME, violations, summary);
    }
}
