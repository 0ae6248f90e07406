/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.Locale;

/** Formatting of nanosecond durations for violation messages. */
final class Nanos {

    private Nanos() {}

    /** A duration as milliseconds with three decimals, e.g. {@code 12.345 ms}. */
    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1_000_000.0);
    }

    /** A duration as signed seconds with three decimals, e.g. {@code +3.000s}. */
    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%+.3fs", nanos / 1_000_000_000.0);
    }
}
