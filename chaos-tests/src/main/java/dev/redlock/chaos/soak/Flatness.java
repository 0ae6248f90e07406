/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import java.util.Arrays;
import java.util.Locale;

/**
 * Whether a series of samples stayed flat: the median of its last third may exceed the largest value of its first
 * third by at most a relative margin plus an absolute slack. A quantity that swings with the load (the heap's live set,
 * connections that are being re-opened after a node restarts) may swing, even to one high sample late in the run,
 * while a quantity that keeps growing by more than the margin over the run, however slowly, ends with most of its
 * last third above the limit and fails.
 *
 * @param relativeMargin how much larger, as a fraction of the first third's maximum, the last third's may be
 * @param slack how much larger, in the series' unit, on top of the relative margin
 */
public record Flatness(double relativeMargin, double slack) {

    /** The fewest samples a series needs to be judged: one per third. */
    public static final int MIN_SAMPLES = 3;

    /**
     * Checks the margins.
     *
     * @param relativeMargin at least 0
     * @param slack at least 0
     * @throws IllegalArgumentException if either is negative or not a number
     */
    public Flatness {
        if (!(relativeMargin >= 0) || !(slack >= 0)) {
            throw new IllegalArgumentException("margins must be at least 0: " + relativeMargin + ", " + slack);
        }
    }

    /**
     * The verdict on one series.
     *
     * @param what what the series measures, with its unit
     * @param samples how many samples were judged (NaN ones left out)
     * @param judged whether there were enough samples ({@link #MIN_SAMPLES}) to judge
     * @param flat whether the series stayed flat; false when not judged
     * @param firstMax the largest value of the first third
     * @param lastMax the largest value of the last third (reported, not judged)
     * @param lastMedian the median of the last third
     * @param limit the most the last third's median was allowed to be
     */
    public record Judgement(
            String what,
            int samples,
            boolean judged,
            boolean flat,
            double firstMax,
            double lastMax,
            double lastMedian,
            double limit) {

        /**
         * One line such as {@code heap used after GC (MB): first third max 31.2, last third max 33.0, limit 38.3:
         * flat}.
         *
         * @return the verdict in words
         */
        @Override
        public String toString() {
            if (!judged) {
                return what + ": " + samples + " sample(s), too few to judge (at least " + MIN_SAMPLES + ")";
            }
            return String.format(
                    Locale.ROOT,
                    "%s: first third max %s, last third median %s (max %s), limit %s over %d samples: %s",
                    what,
                    number(firstMax),
                    number(lastMedian),
                    number(lastMax),
                    number(limit),
                    samples,
                    flat ? "flat" : "GROWING");
        }

        private static String number(double v) {
            return v == Math.rint(v) && Math.abs(v) < 1e15
                    ? Long.toString((long) v)
                    : String.format(Locale.ROOT, "%.1f", v);
        }
    }

    /**
     * Judges a series.
     *
     * @param what what the series measures, with its unit, for the verdict's text
     * @param series the samples in time order; NaN marks one that could not be taken (a node that was down) and is
     *     left out
     * @return the verdict
     */
    public Judgement judge(String what, double[] series) {
        double[] values = Arrays.stream(series).filter(v -> !Double.isNaN(v)).toArray();
        int n = values.length;
        if (n < MIN_SAMPLES) {
            return new Judgement(what, n, false, false, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        int third = n / 3;
        double firstMax = Arrays.stream(values, 0, third).max().orElseThrow();
        double[] last = Arrays.copyOfRange(values, n - third, n);
        Arrays.sort(last);
        double lastMax = last[last.length - 1];
        double lastMedian =
                last.length % 2 == 1 ? last[last.length / 2] : (last[last.length / 2 - 1] + last[last.length / 2]) / 2;
        double limit = firstMax * (1 + relativeMargin) + slack;
        return new Judgement(what, n, true, lastMedian <= limit, firstMax, lastMax, lastMedian, limit);
    }
}
