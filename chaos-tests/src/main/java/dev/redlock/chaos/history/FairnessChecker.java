/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Fairness of a fair lock: grants follow the order in which acquisitions began, as far as the
 * acquisitions' clock can tell.
 *
 * <p>An acquisition's <em>start</em> is its {@link Op#queuedNanos()} (when the library read the
 * client's wall clock for its queue place), or its {@link Op#invokeNanos()} when that is absent.
 * The <em>granting round</em> of an OK op begins at its {@link Op#roundNanos()}, or at its {@link
 * Op#invokeNanos()} (the earliest it can have begun) when that is absent. Ops whose outcome is
 * {@link Op.Outcome#UNKNOWN UNKNOWN} are left out: nothing says they kept waiting. With {@code
 * tolerance} {@code t} and {@code firstRound} {@code r}, the exact rule is:
 *
 * <p>an OK op B <b>overtook</b> an op A of the same lock and the same clock (A not B) when all of
 *
 * <ol>
 *   <li>{@code start(A) + t < start(B)}: A began clearly earlier, so its queue place is ahead of
 *       B's;
 *   <li>{@code A.completeNanos > B.completeNanos + t}: at B's grant A was still waiting, neither
 *       granted nor given up (a waiter that gives up sends its place's removal just before its
 *       acquire returns, so here only after B was granted);
 *   <li>{@code start(A) + r <= grantRound(B) - t}: A's first round was over before B's granting
 *       round began, so A's place was already on the nodes B's round asked ({@code r} must bound
 *       how long after its start an acquisition's first round has surely put its place on a
 *       majority of nodes);
 * </ol>
 *
 * <p>and each such pair is a violation, reported once per B, naming the earliest such A and
 * counting the others. Pairs that meet the first two conditions but not the third (A was still
 * waiting at B's grant, but had begun too recently to judge) are counted in the summary as not
 * judged.
 *
 * <p>"The same clock" means the same {@link Op#client()}: places are wall-clock readings of the
 * acquiring client, whose clock the others need not share, so the checker assumes {@code client}
 * names one client (one wall clock), however many threads use it. A run whose clients all read one
 * clock may compare across clients: see {@link #acrossClients()}.
 *
 * <p>Every op it is given counts as an acquisition of a fair lock, whatever its {@link Op#kind()}
 * (so the same rule can show that a lock which is not fair breaks it); a mixed run gives it only
 * its fair locks' ops, with {@link History#select}.
 */
public final class FairnessChecker implements Checker {

    /** This checker's name in its results. */
    public static final String NAME = "fairness";

    private final long toleranceNanos;
    private final long firstRoundNanos;
    private final boolean acrossClients;

    /**
     * Creates a checker that compares acquisitions of the same client only.
     *
     * @param tolerance how much earlier an acquisition must begin to count as ahead, and the slack
     *     allowed on the other two conditions, e.g. 5 ms
     * @param firstRound how long after its start an acquisition's first round has surely completed
     * @throws IllegalArgumentException if either duration is negative
     */
    public FairnessChecker(Duration tolerance, Duration firstRound) {
        this(nonNegative("tolerance", tolerance), nonNegative("firstRound", firstRound), false);
    }

    private FairnessChecker(long toleranceNanos, long firstRoundNanos, boolean acrossClients) {
        this.toleranceNanos = toleranceNanos;
        this.firstRoundNanos = firstRoundNanos;
        this.acrossClients = acrossClients;
    }

    /**
     * The same checker comparing acquisitions of every client with each other, for a run in which
     * every client reads one and the same wall clock (so places of different clients are ordered
     * as their starts are).
     *
     * @return a checker with the same settings that ignores {@link Op#client()}
     */
    public FairnessChecker acrossClients() {
        return new FairnessChecker(toleranceNanos, firstRoundNanos, true);
    }

    /**
     * Checks every lock's grants against the acquisitions that began before them.
     *
     * @param history the run
     * @return VALID when no grant overtook an earlier acquisition, INVALID listing each grant that
     *     did
     */
    @Override
    public CheckResult check(History history) {
        // Per lock, then per clock (one client, or everybody): only those places are comparable.
        Map<String, Map<Integer, List<Op>>> byClock = new TreeMap<>();
        for (Op op : history.ops()) {
            if (op.outcome() == Op.Outcome.UNKNOWN) {
                continue;
            }
            byClock.computeIfAbsent(op.lock(), k -> new TreeMap<>())
                    .computeIfAbsent(acrossClients ? 0 : op.client(), k -> new ArrayList<>())
                    .add(op);
        }

        List<String> violations = new ArrayList<>();
        int grants = 0;
        long waitedAcross = 0;
        long overtaken = 0;
        for (Map.Entry<String, Map<Integer, List<Op>>> lock : byClock.entrySet()) {
            for (List<Op> ops : lock.getValue().values()) {
                ops.sort(Comparator.comparingLong(FairnessChecker::start));
                for (Op b : ops) {
                    if (b.outcome() != Op.Outcome.OK) {
                        continue;
                    }
                    grants++;
                    Op first = null;
                    int count = 0;
                    for (Op a : ops) {
                        if (start(a) + toleranceNanos >= start(b)) {
                            break; // sorted by start: no later op began clearly before B
                        }
                        if (a.completeNanos() <= b.completeNanos() + toleranceNanos) {
                            continue; // granted or given up by B's grant
                        }
                        waitedAcross++;
                        if (start(a) + firstRoundNanos > grantRound(b) - toleranceNanos) {
                            continue; // its first round may not have been over: not judged
                        }
                        overtaken++;
                        count++;
                        if (first == null) {
                            first = a;
                        }
                    }
                    if (first != null) {
                        violations.add("lock \""
                                + lock.getKey()
                                + "\" granted to client "
                                + b.client()
                                + " "
                                + b
                                + " while client "
                                + first.client()
                                + " "
                                + first
                                + ", which began "
                                + Nanos.ms(start(b) - start(first))
                                + " earlier, was still waiting"
                                + (count > 1 ? " (and " + (count - 1) + " more earlier waiters)" : ""));
                    }
                }
            }
        }

        String summary = grants
                + " grants on "
                + byClock.size()
                + " locks checked ("
                + (acrossClients ? "one clock for all clients" : "per client clock")
                + "), "
                + waitedAcross
                + " times an earlier acquisition was still waiting at a grant: "
                + overtaken
                + " had finished its first round (overtaken), "
                + (waitedAcross - overtaken)
                + " had not (not judged); "
                + violations.size()
                + " grants overtook";
        return CheckResult.of(NAME, violations, summary);
    }

    private static long start(Op op) {
        return op.queuedNanos() != Op.NONE ? op.queuedNanos() : op.invokeNanos();
    }

    private static long grantRound(Op op) {
        return op.roundNanos() != Op.NONE ? op.roundNanos() : op.invokeNanos();
    }

    private static long nonNegative(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative()) {
            throw new IllegalArgumentException(what + ": must not be negative, was " + d);
        }
        return d.toNanos();
    }
}
