/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Liveness: while a quorum of nodes was healthy, the lock kept being acquired at no less than a
 * floor rate.
 *
 * <p>The union of the healthy intervals is cut into whole one-second buckets, each starting a
 * whole number of seconds after the start of its (merged) interval and lying entirely inside it;
 * a leftover fraction of a second at an interval's end is not judged, since a partial bucket
 * would be compared against a whole second's floor. Each bucket counts the OK ops whose {@code
 * completeNanos} falls in it, and any bucket below the floor is a violation. With no whole
 * healthy second there is nothing to judge, so the result is UNKNOWN.
 */
public final class LivenessChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "liveness";

    private static final long SECOND = 1_000_000_000L;

    private final List<long[]> healthy;
    private final double minSuccessesPerSecond;

    /**
     * Creates the checker.
     *
     * @param healthyIntervals {@code [startNanos, endNanos)} pairs during which a quorum of nodes was
     *     healthy, on the ops' clock; they may overlap and come in any order (they are copied)
     * @param minSuccessesPerSecond the least number of successful acquisitions each healthy second
     *     must see
     * @throws IllegalArgumentException if an interval is not a pair with {@code start <= end}, or the
     *     floor is negative or not finite
     */
    public LivenessChecker(List<long[]> healthyIntervals, double minSuccessesPerSecond) {
        Objects.requireNonNull(healthyIntervals, "healthyIntervals");
        if (!(minSuccessesPerSecond >= 0) || Double.isInfinite(minSuccessesPerSecond)) {
            throw new IllegalArgumentException("bad minSuccessesPerSecond " + minSuccessesPerSecond);
        }
        List<long[]> copy = new ArrayList<>();
        for (long[] interval : healthyIntervals) {
            if (interval == null || interval.length != 2 || interval[1] < interval[0]) {
                throw new IllegalArgumentException(
                        "interval must be [start, end) with start <= end: " + Arrays.toString(interval));
            }
            copy.add(interval.clone()); // the caller may reuse its arrays
        }
        this.healthy = merge(copy);
        this.minSuccessesPerSecond = minSuccessesPerSecond;
    }

    /**
     * Counts OK acquisitions per healthy second and compares each count with the floor.
     *
     * @param history the run
     * @return VALID if every whole healthy second met the floor, INVALID listing each second that
     *     did not, UNKNOWN if there was no whole healthy second
     */
    @Override
    public CheckResult check(History history) {
        List<Op> ops = history.ops();
        long[] completes = ops.stream()
                .filter(op -> op.outcome() == Op.Outcome.OK)
                .mapToLong(Op::completeNanos)
                .sorted()
                .toArray();
        // Offsets are reported from the first op so they match what a person reading the timeline
        // sees; with no ops at all the first healthy instant is the only reference there is.
        long origin = ops.stream().mapToLong(Op::invokeNanos).min().orElse(healthy.isEmpty() ? 0 : healthy.get(0)[0]);

        List<String> violations = new ArrayList<>();
        long buckets = 0;
        long successes = 0;
        long worst = Long.MAX_VALUE;
        for (long[] interval : healthy) {
            // Subtraction, not start + SECOND <= end, so an interval near Long.MAX_VALUE cannot overflow.
            for (long start = interval[0]; interval[1] - start >= SECOND; start += SECOND) {
                long end = start + SECOND;
                long count = (long) lowerBound(completes, end) - lowerBound(completes, start);
                buckets++;
                successes += count;
                worst = Math.min(worst, count);
                if (count < minSuccessesPerSecond) {
                    violations.add("healthy second at "
                            + Nanos.seconds(start - origin)
                            + " from the first op saw "
                            + count
                            + " successful acquisitions, below the floor of "
                            + fmt(minSuccessesPerSecond)
                            + " per second");
                }
            }
        }

        if (buckets == 0) {
            return CheckResult.unknown(
                    NAME,
                    "no whole healthy second to judge ("
                            + healthy.size()
                            + " merged healthy intervals, "
                            + completes.length
                            + " OK ops)");
        }
        String summary = buckets
                + " whole healthy seconds, "
                + successes
                + " acquisitions in them, overall "
                + fmt((double) successes / buckets)
                + "/s, worst second "
                + worst
                + ", floor "
                + fmt(minSuccessesPerSecond)
                + "/s, "
                + violations.size()
                + " seconds below the floor";
        return CheckResult.of(NAME, violations, summary);
    }

    /** Sorts and merges overlapping or touching intervals, so buckets can span the seam. */
    private static List<long[]> merge(List<long[]> intervals) {
        intervals.sort(Comparator.comparingLong(a -> a[0]));
        List<long[]> merged = new ArrayList<>();
        for (long[] next : intervals) {
            long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
            if (last != null && next[0] <= last[1]) {
                last[1] = Math.max(last[1], next[1]);
            } else {
                merged.add(next);
            }
        }
        return merged;
    }

    /** Index of the first element {@code >= key} in a sorted array. */
    private static int lowerBound(long[] sorted, long key) {
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (sorted[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
