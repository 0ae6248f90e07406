/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import org.junit.jupiter.api.Test;

class PermitCheckerTest {

    private final History threeAtOnce = history(
            ok(1, "s", 0, 100).build(),
            ok(2, "s", 50, 150).build(),
            ok(3, "s", 90, 120).build(), // three open over [90, 100)
            ok(4, "s", 150, 200).build(), // touches client 2's end
            ok(5, "other", 0, 200).build());

    @Test
    void asManyHoldersAsPermitsIsValid() {
        CheckResult r = new PermitChecker(3).check(threeAtOnce);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("at most 3 held at once"), r.summary());
    }

    /** The negative control: one permit fewer, and the same history is a violation naming the holders. */
    @Test
    void oneHolderMoreThanPermitsIsInvalid() {
        CheckResult r = new PermitChecker(2).check(threeAtOnce);
        assertEquals(Validity.INVALID, r.validity());
        assertEquals(1, r.violations().size());
        String v = r.violations().get(0);
        assertTrue(v.contains("held 3 times at once") && v.contains("client 1") && v.contains("client 3"), v);
    }

    @Test
    void touchingWindowsDoNotOverlap() {
        History h = history(ok(1, "s", 0, 100).build(), ok(2, "s", 100, 200).build());
        assertEquals(Validity.VALID, new PermitChecker(1).check(h).validity());
    }

    @Test
    void permitsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new PermitChecker(0));
    }
}
