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

class LostLeaseCheckerTest {

    private final LostLeaseChecker checker = new LostLeaseChecker();

    @Test
    void actingBeforeTheDeadlineIsValid() {
        History h = history(
                ok(1, "a", 0, 100).actNanos(at(99)).wrote(true).build(),
                // Lost, but it stopped acting before the deadline: fine.
                ok(2, "a", 100, 200).lostNanos(at(150)).actNanos(at(120)).build(),
                ok(3, "a", 200, 300).build(), // never acted
                busy(4, "a", 50).build());
        CheckResult r = checker.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().startsWith("2 ops acted (1 of them"), r.summary());
    }

    @Test
    void actingAfterTheDeadlineIsInvalid() {
        Op late = ok(1, "a", 0, 100).actNanos(at(112)).build();
        CheckResult r = checker.check(history(late));
        assertEquals(Validity.INVALID, r.validity());
        String v = r.violations().get(0);
        assertTrue(v.contains("12.000 ms"), v);
        assertTrue(v.contains(late.toString()), v);
    }

    @Test
    void actingExactlyAtTheDeadlineIsInvalid() {
        CheckResult r =
                checker.check(history(ok(1, "a", 0, 100).actNanos(at(100)).build()));
        assertEquals(Validity.INVALID, r.validity());
    }

    @Test
    void actingAfterAReportedLossAndPastTheDeadlineIsInvalid() {
        Op lost = ok(1, "a", 0, 100).lostNanos(at(80)).actNanos(at(105)).build();
        CheckResult r = checker.check(history(lost));
        assertEquals(Validity.INVALID, r.validity());
        assertTrue(r.violations().get(0).contains("reported lost 25.000 ms before acting"));
    }

    @Test
    void actingWithoutAnyDeadlineIsInvalid() {
        Op op = busy(1, "a", 10).actNanos(at(11)).build();
        CheckResult r = checker.check(history(op));
        assertEquals(Validity.INVALID, r.validity());
        assertTrue(r.violations().get(0).contains("no validity deadline"));
    }
}
