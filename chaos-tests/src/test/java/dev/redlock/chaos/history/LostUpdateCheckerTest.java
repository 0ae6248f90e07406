/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.busy;
import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import org.junit.jupiter.api.Test;

class LostUpdateCheckerTest {

    private final History h = history(
            ok(1, "a", 0, 100).wrote(true).build(),
            ok(2, "a", 100, 200).wrote(true).build(),
            ok(3, "a", 200, 300).build(), // acquired but never completed its write
            busy(4, "a", 50).build());

    @Test
    void matchingCountIsValid() {
        CheckResult r = new LostUpdateChecker(2).check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
    }

    @Test
    void lostUpdateIsInvalidWithBothNumbers() {
        CheckResult r = new LostUpdateChecker(1).check(h);
        assertEquals(Validity.INVALID, r.validity());
        String v = r.violations().get(0);
        assertTrue(v.contains("final register value 1 != 2 completed writes"), v);
        assertTrue(v.contains("1 updates lost"), v);
    }

    @Test
    void extraIncrementIsInvalid() {
        CheckResult r = new LostUpdateChecker(3).check(h);
        assertEquals(Validity.INVALID, r.validity());
        assertTrue(r.violations().get(0).contains("1 more increments"));
    }
}
