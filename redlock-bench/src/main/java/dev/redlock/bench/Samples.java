/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import org.HdrHistogram.Histogram;

/**
 * Nanosecond durations kept in an HdrHistogram (three significant digits, any range), with its percentiles and mean.
 * Not thread-safe.
 */
final class Samples {

    private final Histogram histogram = new Histogram(3);

    /** Records one duration, in nanoseconds (negative ones, from a clock read out of order, count as 0). */
    void add(long nanos) {
        histogram.recordValue(Math.max(0, nanos));
    }

    int size() {
        return (int) histogram.getTotalCount();
    }

    /** Adds every duration of {@code other}. */
    void addAll(Samples other) {
        histogram.add(other.histogram);
    }

    /**
     * Returns the arithmetic mean, in nanoseconds.
     *
     * @return the mean, or NaN without samples
     */
    double mean() {
        return size() == 0 ? Double.NaN : histogram.getMean();
    }

    /**
     * Returns the percentile: the smallest duration that a fraction {@code p} of the samples do not exceed.
     *
     * @param p in (0, 1], e.g. 0.999
     * @return the percentile in nanoseconds, or NaN without samples
     */
    double percentile(double p) {
        return size() == 0 ? Double.NaN : histogram.getValueAtPercentile(p * 100);
    }
}
