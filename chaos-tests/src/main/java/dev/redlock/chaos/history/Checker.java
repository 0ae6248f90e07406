/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

/**
 * Checks one property of a finished chaos run's {@link History}.
 *
 * <p>Checkers run after the workload has stopped, so they see a history that no longer changes;
 * they must not modify it.
 */
public interface Checker {

    /**
     * Checks the history.
     *
     * @param history the run's recorded operations and nemesis events
     * @return the verdict, with violations when INVALID
     */
    CheckResult check(History history);
}
