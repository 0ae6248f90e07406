/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.List;
import java.util.Objects;

/**
 * What one {@link Checker} concluded about a {@link History}.
 *
 * <p>A {@link Validity#VALID VALID} result has no violations and an {@link Validity#INVALID
 * INVALID} one has at least one, so a reader never has to reconcile the two.
 *
 * @param checker the checker's name, e.g. {@code "mutual-exclusion"}
 * @param validity the verdict
 * @param violations human-readable violations, in the order found; the first names the operations
 *     involved in full
 * @param summary one line saying what was checked and found
 */
public record CheckResult(String checker, Validity validity, List<String> violations, String summary) {

    /** A checker's verdict. */
    public enum Validity {
        /** The history satisfies the property. */
        VALID,
        /** The history breaks the property; see the violations. */
        INVALID,
        /** The history says too little to decide either way. */
        UNKNOWN
    }

    /**
     * Copies the violations and checks they agree with the verdict.
     *
     * @param checker the checker's name
     * @param validity the verdict
     * @param violations the violations (copied)
     * @param summary one line on what was checked
     * @throws NullPointerException if any argument, or any violation, is null
     * @throws IllegalArgumentException if a VALID result has violations or an INVALID one has none
     */
    public CheckResult {
        Objects.requireNonNull(checker, "checker");
        Objects.requireNonNull(validity, "validity");
        Objects.requireNonNull(summary, "summary");
        violations = List.copyOf(violations);
        if (validity == Validity.VALID && !violations.isEmpty()) {
            throw new IllegalArgumentException("a VALID result cannot carry violations");
        }
        if (validity == Validity.INVALID && violations.isEmpty()) {
            throw new IllegalArgumentException("an INVALID result needs at least one violation");
        }
    }

    /**
     * A passing result.
     *
     * @param checker the checker's name
     * @param summary what was checked
     * @return a VALID result with no violations
     */
    public static CheckResult valid(String checker, String summary) {
        return new CheckResult(checker, Validity.VALID, List.of(), summary);
    }

    /**
     * A failing result.
     *
     * @param checker the checker's name
     * @param violations the violations found, at least one
     * @param summary what was checked and found
     * @return an INVALID result
     */
    public static CheckResult invalid(String checker, List<String> violations, String summary) {
        return new CheckResult(checker, Validity.INVALID, violations, summary);
    }

    /**
     * A passing result when no violation was found, a failing one otherwise.
     *
     * @param checker the checker's name
     * @param violations the violations found, possibly none (copied)
     * @param summary what was checked and found
     * @return VALID without violations, INVALID with them
     */
    public static CheckResult of(String checker, List<String> violations, String summary) {
        return violations.isEmpty() ? valid(checker, summary) : invalid(checker, violations, summary);
    }

    /**
     * An undecided result.
     *
     * @param checker the checker's name
     * @param summary why no verdict could be reached
     * @return an UNKNOWN result with no violations
     */
    public static CheckResult unknown(String checker, String summary) {
        return new CheckResult(checker, Validity.UNKNOWN, List.of(), summary);
    }

    /**
     * Whether the verdict is {@link Validity#VALID}.
     *
     * @return true for a passing result
     */
    public boolean isValid() {
        return validity == Validity.VALID;
    }

    /**
     * Renders the verdict and summary on one line, e.g. {@code mutual-exclusion VALID: 640 windows
     * ...}; violations are left out (see {@link #violations()}).
     *
     * @return the one-line rendering
     */
    @Override
    public String toString() {
        return checker + " " + validity + ": " + summary;
    }
}
