/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.List;

/**
 * Safety at the resource: a holder never acts on the protected resource at or after its lease's
 * validity deadline, i.e. every op has {@code actNanos == NONE || actNanos < deadlineNanos}.
 *
 * <p>The rule is checked for every op that acted, whatever its outcome: an OK holder past its
 * deadline, a holder whose lease the library reported lost, and also an op that acted without
 * ever having a deadline (which could only be a client acting without holding the lock). Ops that
 * reported a loss are counted separately in the summary because they are where the rule is most
 * likely to break.
 */
public final class LostLeaseChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "lost-lease";

    /** Creates the checker; it has no settings. */
    public LostLeaseChecker() {}

    /**
     * Checks every op that acted against its deadline.
     *
     * @param history the run
     * @return VALID if no op acted at or after its deadline, INVALID listing each that did
     */
    @Override
    public CheckResult check(History history) {
        List<String> violations = new ArrayList<>();
        int acted = 0;
        int lost = 0;
        int lostAndActed = 0;
        for (Op op : history.ops()) {
            if (op.lostNanos() != Op.NONE) {
                lost++;
            }
            if (op.actNanos() == Op.NONE) {
                continue;
            }
            acted++;
            if (op.lostNanos() != Op.NONE) {
                lostAndActed++;
            }
            if (op.deadlineNanos() == Op.NONE) {
                violations.add("client " + op.client() + " acted with no validity deadline at all: " + op);
            } else if (op.actNanos() >= op.deadlineNanos()) {
                violations.add("client "
                        + op.client()
                        + " acted "
                        + Nanos.ms(op.actNanos() - op.deadlineNanos())
                        + " at or after its deadline"
                        + (op.lostNanos() != Op.NONE
                                ? " (lease reported lost "
                                        + Nanos.ms(op.actNanos() - op.lostNanos())
                                        + " before acting)"
                                : "")
                        + ": "
                        + op);
            }
        }
        String summary = acted
                + " ops acted ("
                + lostAndActed
                + " of them on a lease reported lost; "
                + lost
                + " losses reported in all), "
                + violations.size()
                + " acted without validity";
        return CheckResult.of(NAME, violations, summary);
    }
}
