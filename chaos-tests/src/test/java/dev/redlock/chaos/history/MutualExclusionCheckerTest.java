/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.at;
import static dev.redlock.chaos.history.Ops.busy;
import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import org.junit.jupiter.api.Test;

class MutualExclusionCheckerTest {

    private final MutualExclusionChecker checker = new MutualExclusionChecker();

    @Test
    void disjointAndTouchingWindowsAreValid() {
        History h = history(
                ok(1, "a", 0, 100).build(),
                ok(2, "a", 100, 200).build(), // touches the first: end == start is fine
                ok(3, "a", 250, 400).releaseNanos(at(300)).build(),
                ok(4, "a", 300, 500).build(), // starts exactly when client 3 began releasing
                busy(5, "a", 50).build());
        CheckResult r = checker.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.violations().isEmpty());
        assertTrue(r.summary().contains("4 holding windows"), r.summary());
    }

    @Test
    void overlapOnDifferentLocksIsValid() {
        History h = history(ok(1, "a", 0, 100).build(), ok(2, "b", 50, 150).build());
        assertEquals(Validity.VALID, checker.check(h).validity());
    }

    @Test
    void overlappingWindowsAreInvalidAndNameBothOps() {
        Op first = ok(1, "a", 0, 100).build();
        Op second = ok(2, "a", 90, 200).build();
        CheckResult r = checker.check(history(second, first));
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(1, r.violations().size());
        String v = r.violations().get(0);
        assertTrue(v.contains(first.toString()), v);
        assertTrue(v.contains(second.toString()), v);
        assertTrue(v.contains("10.000 ms"), v);
    }

    @Test
    void nestedWindowIsInvalid() {
        Op outer = ok(1, "a", 0, 1000).build();
        Op inner = ok(2, "a", 200, 300).build();
        Op after = ok(3, "a", 500, 600).build(); // also inside outer, though not inside inner
        CheckResult r = checker.check(history(outer, inner, after));
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(2, r.violations().size(), r.violations().toString());
        assertTrue(r.violations().get(0).contains(outer.toString()));
        assertTrue(r.violations().get(0).contains(inner.toString()));
        assertTrue(r.violations().get(1).contains(after.toString()));
    }

    @Test
    void windowEndsAtLossOrReleaseBeforeDeadline() {
        // Client 1's deadline is far away but the library reported the lease lost at 100.
        Op lost = ok(1, "a", 0, 1000).lostNanos(at(100)).build();
        Op next = ok(2, "a", 100, 300).build();
        assertEquals(Validity.VALID, checker.check(history(lost, next)).validity());

        Op lostLate = ok(1, "a", 0, 1000).lostNanos(at(150)).build();
        assertEquals(Validity.INVALID, checker.check(history(lostLate, next)).validity());
    }

    @Test
    void emptyWindowsAreIgnoredButCounted() {
        // Released at the very moment acquire returned: the window is empty.
        Op empty = ok(1, "a", 50, 100).releaseNanos(at(50)).build();
        Op other = ok(2, "a", 0, 200).build();
        CheckResult r = checker.check(history(empty, other));
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("1 empty windows ignored"), r.summary());
    }

    @Test
    void okOpWithNoEndIsAssumedToHoldForever() {
        Op forever = ok(1, "a", 0, 0).deadlineNanos(Op.NONE).build();
        Op later = ok(2, "a", 10_000, 10_100).build();
        assertEquals(Long.MAX_VALUE, forever.windowEnd());
        assertEquals(Validity.INVALID, checker.check(history(forever, later)).validity());
    }

    @Test
    void noAcquisitionsIsValid() {
        assertEquals(
                Validity.VALID, checker.check(history(busy(1, "a", 5).build())).validity());
    }
}
