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

class FencingCheckerTest {

    private final FencingChecker checker = new FencingChecker();

    @Test
    void increasingTokensAreValid() {
        History h = history(
                ok(3, "a", 200, 300).fencingToken(7).build(),
                ok(1, "a", 0, 100).fencingToken(3).build(),
                ok(2, "a", 100, 200).fencingToken(5).build(),
                ok(4, "b", 0, 100).fencingToken(1).build(), // tokens are per lock
                ok(5, "a", 150, 160).build(), // no token: not considered
                busy(6, "a", 10).fencingToken(1).build()); // not acquired: not considered
        CheckResult r = checker.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
    }

    @Test
    void inversionIsInvalidAndNamesBothOps() {
        Op first = ok(1, "a", 0, 100).fencingToken(10).build();
        Op second = ok(2, "a", 100, 200).fencingToken(9).build();
        Op third = ok(3, "a", 200, 300).fencingToken(8).build();
        CheckResult r = checker.check(history(first, second, third));
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(1, r.violations().size(), "only the first inversion per lock is listed");
        String v = r.violations().get(0);
        assertTrue(v.contains("from 10 to 9"), v);
        assertTrue(v.contains(first.toString()), v);
        assertTrue(v.contains(second.toString()), v);
        assertTrue(r.summary().contains("2 non-increasing steps"), r.summary());
    }

    @Test
    void repeatedTokenIsInvalid() {
        History h = history(
                ok(1, "a", 0, 100).fencingToken(4).build(),
                ok(2, "a", 100, 200).fencingToken(4).build());
        assertEquals(Validity.INVALID, checker.check(h).validity());
    }

    @Test
    void noTokensIsUnknown() {
        History h = history(ok(1, "a", 0, 100).build());
        assertEquals(Validity.UNKNOWN, checker.check(h).validity());
    }
}
