/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.S;
import static dev.redlock.chaos.history.Ops.T0;
import static dev.redlock.chaos.history.Ops.at;
import static dev.redlock.chaos.history.Ops.busy;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import java.util.List;
import org.junit.jupiter.api.Test;

class LivenessCheckerTest {

    /** One OK op completing every {@code stepMs} over [fromMs, toMs), skipping [gapFrom, gapTo). */
    private static History steady(long fromMs, long toMs, long stepMs, long gapFromMs, long gapToMs) {
        History h = new History();
        int client = 0;
        for (long t = fromMs; t < toMs; t += stepMs) {
            if (t >= gapFromMs && t < gapToMs) {
                h.add(busy(client++ % 4, "a", t).build());
                continue;
            }
            h.add(ok(client++ % 4, "a", t, t + stepMs).build());
        }
        return h;
    }

    @Test
    void steadyProgressIsValid() {
        History h = steady(0, 5000, 100, 0, 0); // 10 per second
        LivenessChecker c = new LivenessChecker(List.of(new long[] {at(0), at(5000)}), 5);
        CheckResult r = c.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("5 whole healthy seconds"), r.summary());
        assertTrue(r.summary().contains("overall 10.00/s"), r.summary());
    }

    @Test
    void gapInHealthySecondIsInvalidAndNamesTheBucket() {
        History h = steady(0, 5000, 100, 2000, 3000); // nothing acquired in the third second
        LivenessChecker c = new LivenessChecker(List.of(new long[] {at(0), at(5000)}), 5);
        CheckResult r = c.check(h);
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(1, r.violations().size());
        String v = r.violations().get(0);
        // The first op is invoked 2 ms before T0 (see Ops.ok), so the bucket sits at +2.002s from it.
        assertTrue(v.contains("+2.002s"), v);
        assertTrue(v.contains("saw 0 successful"), v);
    }

    @Test
    void gapOutsideHealthyIntervalsIsNotJudged() {
        History h = steady(0, 5000, 100, 2000, 3000);
        LivenessChecker c =
                new LivenessChecker(List.of(new long[] {at(3000), at(5000)}, new long[] {at(0), at(2000)}), 5);
        CheckResult r = c.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("4 whole healthy seconds"), r.summary());
    }

    @Test
    void overlappingAndTouchingIntervalsAreMergedBeforeBucketing() {
        History h = steady(0, 3000, 100, 0, 0);
        // [0, 1.5s) and [1.5s, 2.5s) and [1.0s, 2.0s): union [0, 2.5s) → two whole seconds.
        LivenessChecker c = new LivenessChecker(
                List.of(new long[] {at(0), at(1500)}, new long[] {at(1500), at(2500)}, new long[] {at(1000), at(2000)}),
                10);
        CheckResult r = c.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("2 whole healthy seconds"), r.summary());
    }

    @Test
    void noWholeHealthySecondIsUnknown() {
        History h = steady(0, 3000, 100, 0, 0);
        LivenessChecker c =
                new LivenessChecker(List.of(new long[] {at(0), at(900)}, new long[] {at(1000), at(1999)}), 5);
        assertEquals(Validity.UNKNOWN, c.check(h).validity());
        assertEquals(
                Validity.UNKNOWN,
                new LivenessChecker(List.of(), 1).check(new History()).validity());
    }

    @Test
    void healthySecondsWithNoOpsAtAllAreInvalid() {
        LivenessChecker c = new LivenessChecker(List.of(new long[] {T0, T0 + 2 * S}), 1);
        CheckResult r = c.check(new History());
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(2, r.violations().size());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> new LivenessChecker(List.of(new long[] {5, 4}), 1));
        assertThrows(IllegalArgumentException.class, () -> new LivenessChecker(List.of(new long[] {1}), 1));
        assertThrows(IllegalArgumentException.class, () -> new LivenessChecker(List.of(), -1));
        assertThrows(IllegalArgumentException.class, () -> new LivenessChecker(List.of(), Double.NaN));
    }
}
