/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.List;

/**
 * The end-to-end check: the shared register, incremented once by every holder that completed a
 * write, ends up equal to the number of ops with {@link Op#wrote()} true.
 *
 * <p>Lower means a write was lost (two holders raced a read-modify-write); higher means a write
 * landed that its client never saw complete, i.e. the history undercounts.
 */
public final class LostUpdateChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "lost-update";

    private final long finalRegisterValue;

    /**
     * Creates the checker.
     *
     * @param finalRegisterValue the register's value read after the workload stopped
     */
    public LostUpdateChecker(long finalRegisterValue) {
        this.finalRegisterValue = finalRegisterValue;
    }

    /**
     * Compares the register with the count of completed writes.
     *
     * @param history the run
     * @return VALID if they are equal, INVALID with both numbers otherwise
     */
    @Override
    public CheckResult check(History history) {
        long writes = history.ops().stream().filter(Op::wrote).count();
        String summary = "final register value " + finalRegisterValue + ", completed writes " + writes;
        if (finalRegisterValue == writes) {
            return CheckResult.valid(NAME, summary);
        }
        String what = finalRegisterValue < writes
                ? (writes - finalRegisterValue) + " updates lost"
                : (finalRegisterValue - writes) + " more increments than completed writes";
        return CheckResult.invalid(
                NAME,
                List.of("final register value "
                        + finalRegisterValue
                        + " != "
                        + writes
                        + " completed writes ("
                        + what
                        + ")"),
                summary);
    }
}
