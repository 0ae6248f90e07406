/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.at;
import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.queued;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import dev.redlock.chaos.history.Op.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FairnessCheckerTest {

    private static final FairnessChecker CHECKER = new FairnessChecker(Duration.ofMillis(5), Duration.ofMillis(200));

    /** The clean control: three waiters of one client granted in the order they began. */
    @Test
    void grantsInStartOrderAreValid() {
        History h = history(
                queued(1, "f", 0, 10, Outcome.OK).build(), // holds [10, 60)
                queued(1, "f", 20, 400, Outcome.OK).build(), // waits behind the first
                queued(1, "f", 30, 700, Outcome.OK).build(),
                queued(1, "f", 40, 600, Outcome.FAIL).build(), // gave up before its turn
                queued(1, "f", 800, 810, Outcome.OK).build());
        CheckResult r = CHECKER.check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        // Every acquisition begun before a grant had been granted or had given up by then.
        assertTrue(r.summary().startsWith("4 grants on 1 locks checked (per client clock), 0 times"), r.summary());
    }

    /** The negative control: a later acquisition granted while an earlier one kept waiting. */
    @Test
    void overtakingAnEarlierWaiterIsAViolation() {
        History h = history(
                queued(1, "f", 0, 900, Outcome.OK).build(), // began first, granted last
                queued(1, "f", 100, 500, Outcome.OK).build(), // overtook it at 500
                queued(1, "f", 150, 1000, Outcome.FAIL).build());
        CheckResult r = CHECKER.check(h);
        assertEquals(Validity.INVALID, r.validity(), r.toString());
        assertEquals(1, r.violations().size(), r.violations().toString());
        String v = r.violations().get(0);
        String grantee = "Op{client=1, lock=\"f\", outcome=OK, invoke=" + at(100) + ",";
        assertTrue(v.startsWith("lock \"f\" granted to client 1 " + grantee), v);
        assertTrue(v.contains("which began 100.000 ms earlier, was still waiting"), v);
        assertTrue(r.summary().contains("1 had finished its first round (overtaken)"), r.summary());
    }

    @Test
    void anOvertakingGiveUpCountsToo() {
        // The earlier waiter gave up, but only after the later one was granted.
        History h = history(
                queued(1, "f", 0, 900, Outcome.FAIL).build(),
                queued(1, "f", 100, 500, Outcome.OK).build());
        assertEquals(Validity.INVALID, CHECKER.check(h).validity());
    }

    @Test
    void aStartWithinTheToleranceIsNotAhead() {
        History h = history(
                queued(1, "f", 0, 900, Outcome.OK).build(),
                queued(1, "f", 4, 500, Outcome.OK).build()); // 4 ms later: within 5 ms
        assertEquals(Validity.VALID, CHECKER.check(h).validity());
    }

    @Test
    void aWaiterStillInItsFirstRoundIsNotJudged() {
        // Granted in a round that began at 198: the waiter begun at 0 may not have been queued yet.
        History young = history(
                queued(1, "f", 0, 900, Outcome.OK).build(),
                queued(1, "f", 100, 200, Outcome.OK).build());
        CheckResult r = CHECKER.check(young);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("0 had finished its first round (overtaken), 1 had not"), r.summary());
        // The same grant in a round that began at 205 (0 + 200 <= 205 - 5) is judged.
        History judged = history(
                queued(1, "f", 0, 900, Outcome.OK).build(),
                queued(1, "f", 100, 207, Outcome.OK).build());
        assertEquals(Validity.INVALID, CHECKER.check(judged).validity());
    }

    @Test
    void aWaiterThatEndedByTheGrantIsNotOvertaken() {
        History h = history(
                queued(1, "f", 0, 503, Outcome.FAIL).build(), // gave up within 5 ms of the grant
                queued(1, "f", 100, 500, Outcome.OK).build());
        assertEquals(Validity.VALID, CHECKER.check(h).validity());
    }

    @Test
    void clientsAreComparedOnlyWhenTheyShareAClock() {
        History h = history(
                queued(1, "f", 0, 900, Outcome.OK).build(),
                queued(2, "f", 100, 500, Outcome.OK).build(),
                queued(1, "g", 0, 900, Outcome.OK).build());
        assertEquals(Validity.VALID, CHECKER.check(h).validity());
        CheckResult across = CHECKER.acrossClients().check(h);
        assertEquals(Validity.INVALID, across.validity(), across.toString());
        assertTrue(across.summary().contains("one clock for all clients"), across.summary());
    }

    @Test
    void unknownOutcomesAreLeftOut() {
        Op unknown = queued(1, "f", 0, 900, Outcome.FAIL)
                .outcome(Outcome.UNKNOWN)
                .failure("boom")
                .build();
        History h = history(unknown, queued(1, "f", 100, 500, Outcome.OK).build());
        assertEquals(Validity.VALID, CHECKER.check(h).validity());
    }

    @Test
    void withoutQueueAndRoundTimesTheInvocationIsUsed() {
        // Starts fall back to invokeNanos; the granting round to the grantee's invokeNanos, the
        // earliest it can have begun (so a grant right after its own start is never judged).
        Op a = queued(1, "f", 0, 900, Outcome.OK)
                .queuedNanos(Op.NONE)
                .roundNanos(Op.NONE)
                .build();
        Op late = queued(1, "f", 300, 500, Outcome.OK)
                .queuedNanos(Op.NONE)
                .roundNanos(Op.NONE)
                .build();
        assertEquals(Validity.INVALID, CHECKER.check(history(a, late)).validity());
        Op early = queued(1, "f", 100, 500, Outcome.OK)
                .queuedNanos(Op.NONE)
                .roundNanos(Op.NONE)
                .build();
        assertEquals(Validity.VALID, CHECKER.check(history(a, early)).validity());
    }

    @Test
    void durationsMustNotBeNegative() {
        assertThrows(IllegalArgumentException.class, () -> new FairnessChecker(Duration.ofMillis(-1), Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new FairnessChecker(Duration.ZERO, Duration.ofMillis(-1)));
    }
}
