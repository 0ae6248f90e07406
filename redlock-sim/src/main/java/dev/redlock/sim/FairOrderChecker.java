/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.chaos.history.CheckResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Grant order of a fair lock: a waiter whose place is on a quorum of nodes is not overtaken.
 *
 * <p>Precisely: let B be an acquisition granted by a round that started at S and was decided by T, and A another
 * acquisition of the same lock with an earlier place (its order, ties broken by the waiter ids' bytes) that was still
 * acquiring at T (neither granted nor given up). Count the nodes on which A's place stood throughout [S, T]: a node
 * that ran one of A's attempts before S, that since then neither lost its data nor ran A's leaving, and on whose
 * clock the place never expired until T. Each attempt a node runs sets when the place expires there: the queue window
 * later if the node refused the attempt, the shorter of the window and A's TTL if it granted it (a waiter granted
 * there keeps its place only as long as its key, even if the round failed). If that count reaches the lock's quorum,
 * B's grant is a violation: every node of B's granting quorum ran B's attempt inside [S, T], and one of them had A
 * ahead of B.
 *
 * <p>This holds under every simulated fault, because what the faults can take from A is spelled out: a data loss or
 * A's own leave removes its place on that node, an attempt that never ran adds none, and a place not refreshed
 * expires. What it does not claim is first-come-first-served by the time acquisitions began: a place is a client's
 * wall clock reading, and a waiter whose place reached too few nodes (cut off, nodes down, a loss since) may be
 * overtaken, as the library documents.
 *
 * <p>A place a client's message carried for a newer waiter of its own (a waiter's round, a lease's release or a leave
 * that takes the places of the client's waiters that ran no round to queue) counts as an attempt of that waiter the
 * node refused. Before its place is carried, such a waiter stands behind an older one of its client, whose place the
 * check sees; that the client carries it before that place goes is checked by the library's own tests, not here.
 *
 * <p>The summary also counts the grants that overtook a waiter only because a granted attempt had shortened its
 * place to its TTL: with every place lasting the queue window after each attempt, as {@code RedlockClient.fairLock}
 * describes it, the waiter would have stood on a quorum. Those are not violations of what the scripts do; they show
 * where the two descriptions part.
 */
public final class FairOrderChecker {

    /** This checker's name in its results. */
    public static final String NAME = "fair-order";

    private FairOrderChecker() {}

    /**
     * One acquisition of the fair lock.
     *
     * @param client the client that made it
     * @param order its place (the client's wall clock, in microseconds, when it began)
     * @param invoke world time it began
     * @param complete world time it ended (granted, failed, cancelled), or {@link Long#MAX_VALUE} if never
     * @param roundStart granted only: world time its winning round started; -1 otherwise
     * @param grantedAt granted only: world time its winning round was decided (no later than the grant's delivery);
     *     -1 otherwise
     * @param ttlMillis the TTL it asked for
     */
    public record Acquisition(
            int client, long order, long invoke, long complete, long roundStart, long grantedAt, long ttlMillis) {

        boolean granted() {
            return grantedAt >= 0;
        }
    }

    /**
     * A node ran one attempt of an acquisition: its place is on that node from then on (or was already).
     *
     * @param client the client whose attempt it was
     * @param node the node
     * @param order the attempt's place
     * @param waiter the acquisition's waiter id
     * @param at world time the node ran it
     * @param granted whether the node granted the attempt (then the place lasts no longer than the TTL)
     */
    public record Placement(int client, int node, long order, String waiter, long at, boolean granted) {}

    /**
     * A node ran a release that took a waiter's place out of its queue.
     *
     * @param node the node
     * @param waiter the waiter id whose place went
     * @param at world time the node ran it
     */
    public record Leave(int node, String waiter, long at) {}

    /**
     * Checks every grant against every earlier-placed acquisition still waiting.
     *
     * @param acquisitions every acquisition of one fair lock
     * @param placements every attempt of those acquisitions that a node ran
     * @param leaves every release that took a place out of a queue
     * @param losses for each node, the world times at which it lost its data
     * @param nodeRates for each node, how fast its clock runs against world time
     * @param quorum how many nodes grant the lock
     * @param windowMillis how long a place lasts after an attempt (the queue window)
     * @return VALID when no grant overtook a waiter placed on a quorum, INVALID naming both acquisitions otherwise
     */
    @SuppressWarnings("ReferenceEquality") // the same grant, not an equal one
    public static CheckResult check(
            List<Acquisition> acquisitions,
            List<Placement> placements,
            List<Leave> leaves,
            List<List<Long>> losses,
            double[] nodeRates,
            int quorum,
            long windowMillis) {
        Map<String, List<Placement>> byAcquisition = new HashMap<>();
        for (Placement p : placements) {
            byAcquisition
                    .computeIfAbsent(p.client() + "/" + p.order(), k -> new ArrayList<>())
                    .add(p);
        }
        // Each acquisition's attempts on each node, oldest first: what every check of that pair walks.
        Map<String, List<List<Placement>>> byNode = new HashMap<>();
        for (Map.Entry<String, List<Placement>> e : byAcquisition.entrySet()) {
            List<List<Placement>> nodes = new ArrayList<>();
            for (int n = 0; n < nodeRates.length; n++) {
                nodes.add(new ArrayList<>());
            }
            for (Placement p : e.getValue()) {
                if (p.node() < nodes.size()) {
                    nodes.get(p.node()).add(p);
                }
            }
            for (List<Placement> here : nodes) {
                here.sort((x, y) -> Long.compare(x.at(), y.at()));
            }
            byNode.put(e.getKey(), nodes);
        }
        Map<String, List<Leave>> leavesOf = new HashMap<>();
        for (Leave l : leaves) {
            leavesOf.computeIfAbsent(l.waiter(), k -> new ArrayList<>()).add(l);
        }
        List<String> violations = new ArrayList<>();
        int grants = 0;
        int contended = 0;
        int overtaken = 0;
        int shortened = 0;
        for (Acquisition b : acquisitions) {
            if (!b.granted()) {
                continue;
            }
            grants++;
            String bWaiter = waiter(byAcquisition, b);
            boolean others = false;
            for (Acquisition a : acquisitions) {
                if (a == b || a.complete() <= b.grantedAt() || a.invoke() >= b.roundStart()) {
                    continue;
                }
                others = true;
                if (!ahead(a, waiter(byAcquisition, a), b, bWaiter)) {
                    continue;
                }
                List<List<Placement>> mine = byNode.get(a.client() + "/" + a.order());
                int standing = 0;
                int standingByWindow = 0;
                StringBuilder where = new StringBuilder();
                for (int n = 0; n < nodeRates.length; n++) {
                    List<Placement> here = mine == null ? List.of() : mine.get(n);
                    Placement since = standsThroughout(
                            here,
                            n,
                            b.roundStart(),
                            b.grantedAt(),
                            losses.get(n),
                            leavesOf,
                            nodeRates[n],
                            windowMillis,
                            a.ttlMillis());
                    if (since != null) {
                        standing++;
                        where.append(where.length() == 0 ? "" : ", ")
                                .append("n")
                                .append(n)
                                .append(" since ")
                                .append(ms(since.at()));
                    }
                    if (standsThroughout(
                                    here,
                                    n,
                                    b.roundStart(),
                                    b.grantedAt(),
                                    losses.get(n),
                                    leavesOf,
                                    nodeRates[n],
                                    windowMillis,
                                    windowMillis)
                            != null) {
                        standingByWindow++;
                    }
                }
                if (standing >= quorum) {
                    violations.add("fair lock: client " + b.client() + " (place " + b.order() + ", waiter "
                            + bWaiter + ") granted by a round from " + ms(b.roundStart()) + " to " + ms(b.grantedAt())
                            + " while client " + a.client() + " (place " + a.order() + ", waiter "
                            + waiter(byAcquisition, a) + ", waiting since " + ms(a.invoke()) + ") stood ahead on "
                            + standing + " nodes: " + where);
                } else {
                    overtaken++;
                    if (standingByWindow >= quorum) {
                        shortened++;
                    }
                }
            }
            if (others) {
                contended++;
            }
        }
        String summary = grants + " grants checked against " + acquisitions.size() + " acquisitions, " + contended
                + " while others waited; " + violations.size() + " overtook a waiter placed on a quorum, " + overtaken
                + " overtook a waiter placed on fewer nodes (" + shortened + " of them only because a granted attempt "
                + "had cut its place to its TTL)";
        return violations.isEmpty() ? CheckResult.valid(NAME, summary) : CheckResult.invalid(NAME, violations, summary);
    }

    /**
     * Whether a waiter's place stood on node {@code n} from {@code from} to {@code to}: returns the attempt before
     * {@code from} it stood since, or null. Each attempt the node ran resets the place's expiry (which a granted
     * attempt may shorten); a gap between an expiry and the next attempt, a data loss or a leave end it.
     *
     * @param here the waiter's attempts that node {@code n} ran, oldest first
     */
    private static Placement standsThroughout(
            List<Placement> here,
            int n,
            long from,
            long to,
            List<Long> losses,
            Map<String, List<Leave>> leavesOf,
            double rate,
            long windowMillis,
            long ttlMillis) {
        Placement since = null;
        long expires = Long.MIN_VALUE;
        for (Placement p : here) {
            if (p.at() > to) {
                break;
            }
            if (p.at() > from && (since == null || p.at() >= expires)) {
                break; // not there when the round started, or expired before this attempt renewed it
            }
            if (p.at() <= from) {
                since = p;
            }
            // The node reads its clock in whole ms: the place surely lasts 1 ms less than it was given.
            long lasts = p.granted() ? Math.min(windowMillis, ttlMillis) : windowMillis;
            expires = p.at() + (long) ((lasts - 1) * 1_000_000L / rate);
        }
        if (since == null
                || expires <= to
                || lostBetween(losses, since.at(), to)
                || leftBetween(leavesOf.getOrDefault(since.waiter(), List.of()), n, since.at(), to)) {
            return null;
        }
        return since;
    }

    private static String waiter(Map<String, List<Placement>> byAcquisition, Acquisition a) {
        List<Placement> p = byAcquisition.get(a.client() + "/" + a.order());
        return p == null ? null : p.get(0).waiter();
    }

    /** Whether {@code a}'s place comes before {@code b}'s: by order, then by waiter id as a node compares bytes. */
    private static boolean ahead(Acquisition a, String aWaiter, Acquisition b, String bWaiter) {
        if (a.order() != b.order()) {
            return a.order() < b.order();
        }
        if (aWaiter == null || bWaiter == null) {
            return false;
        }
        return Arrays.compareUnsigned(
                        aWaiter.getBytes(StandardCharsets.UTF_8), bWaiter.getBytes(StandardCharsets.UTF_8))
                < 0;
    }

    private static boolean lostBetween(List<Long> losses, long from, long to) {
        for (long t : losses) {
            if (t >= from && t <= to) {
                return true;
            }
        }
        return false;
    }

    private static boolean leftBetween(List<Leave> leaves, int node, long from, long to) {
        for (Leave l : leaves) {
            if (l.node() == node && l.at() >= from && l.at() <= to) {
                return true;
            }
        }
        return false;
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
}
