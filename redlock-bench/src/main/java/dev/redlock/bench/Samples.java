package dev.redlock.bench;

import java.util.Arrays;

/** A growable list of nanosecond durations with nearest-rank percentiles. Not thread-safe. */
final class Samples {

    private long[] values;
    private int size;

    Samples(int initialCapacity) {
        values = new long[Math.max(16, initialCapacity)];
    }

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    /** The {@code i}-th duration added, in nanoseconds. */
    long get(int i) {
        return values[i];
    }

    int size() {
        return size;
    }

    /** Adds every duration of {@code other}. */
    void addAll(Samples other) {
        for (int i = 0; i < other.size; i++) {
            add(other.values[i]);
        }
    }

    /**
     * Returns the arithmetic mean, in nanoseconds.
     *
     * @return the mean, or NaN without samples
     */
    double mean() {
        if (size == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += values[i];
        }
        return sum / size;
    }

    /**
     * Returns the nearest-rank percentile, in nanoseconds.
     *
     * @param p in (0, 1], e.g. 0.999
     * @return the percentile, or NaN without samples
     */
    double percentile(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p * size);
        return sorted[Math.min(size, Math.max(1, rank)) - 1];
    }
}
