/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import java.util.List;
import org.junit.jupiter.api.Test;

class MultiResourceCheckerTest {

    private static Op multi(int client, List<String> names, long fromMs, long toMs) {
        return ok(client, names.toString(), fromMs, toMs)
                .kind(Op.Kind.MULTI)
                .resources(names)
                .build();
    }

    private static Op plain(int client, String name, long fromMs, long toMs) {
        return ok(client, name, fromMs, toMs).build();
    }

    /** The clean control: disjoint sets and other names side by side, shared names one at a time. */
    @Test
    void disjointHoldersMayOverlap() {
        History h = history(
                multi(1, List.of("a", "b"), 0, 100),
                multi(2, List.of("c", "d"), 0, 100), // disjoint: side by side
                plain(3, "e", 10, 90), // a name nobody else holds
                plain(4, "b", 100, 150), // touches the first lease's end
                multi(5, List.of("a", "c"), 100, 200));
        CheckResult r = new MultiResourceChecker().check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("5 holding windows (3 multi-resource) on 5 resources"), r.summary());
        assertTrue(r.summary().contains("at most 2 multi-resource leases at once"), r.summary());
    }

    /** The negative control: two multi-resource leases that share one name overlap on it. */
    @Test
    void sharedNameHeldTwiceIsAViolation() {
        History h = history(multi(1, List.of("a", "b"), 0, 100), multi(2, List.of("b", "c"), 60, 160));
        CheckResult r = new MultiResourceChecker().check(h);
        assertEquals(Validity.INVALID, r.validity(), r.toString());
        assertEquals(1, r.violations().size(), r.violations().toString());
        String v = r.violations().get(0);
        assertTrue(v.startsWith("resource \"b\" held twice for 40.000 ms"), v);
        assertTrue(v.contains("client 1") && v.contains("client 2"), v);
    }

    @Test
    void aPlainLeaseOfAMemberNameConflicts() {
        // The plain lease on "b" starts just before the multi-resource lease ends: a lease holds all
        // of its names for its whole window, so the last millisecond counts as much as the first.
        History h = history(multi(1, List.of("a", "b"), 0, 100), plain(2, "b", 99, 120));
        CheckResult r = new MultiResourceChecker().check(h);
        assertEquals(Validity.INVALID, r.validity(), r.toString());
        assertTrue(
                r.violations().get(0).contains("held twice for 1.000 ms"),
                r.violations().get(0));
        // Nested the other way round: the multi-resource lease inside a plain lease of one member.
        History nested = history(plain(1, "a", 0, 500), multi(2, List.of("a", "z"), 100, 200));
        assertEquals(Validity.INVALID, new MultiResourceChecker().check(nested).validity());
    }

    @Test
    void sameSetTwiceIsReportedOncePerSharedName() {
        History h = history(multi(1, List.of("a", "b"), 0, 100), multi(2, List.of("a", "b"), 50, 150));
        CheckResult r = new MultiResourceChecker().check(h);
        assertEquals(2, r.violations().size(), r.violations().toString());
        assertTrue(
                r.violations().get(0).startsWith("resource \"a\""),
                r.violations().get(0));
        assertTrue(
                r.violations().get(1).startsWith("resource \"b\""),
                r.violations().get(1));
    }

    @Test
    void failedAndReleasedAtOnceOpsHoldNothing() {
        History h = history(
                multi(1, List.of("a", "b"), 0, 100),
                Ops.busy(2, "[a, b]", 50)
                        .kind(Op.Kind.MULTI)
                        .resources(List.of("a", "b"))
                        .build(),
                ok(3, "a", 60, 90).releaseNanos(Ops.at(60)).build());
        assertEquals(Validity.VALID, new MultiResourceChecker().check(h).validity());
    }
}
