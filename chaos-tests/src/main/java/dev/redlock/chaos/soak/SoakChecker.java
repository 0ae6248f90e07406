/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import dev.redlock.chaos.history.CheckResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.function.ToIntFunction;

/**
 * Judges a soak run's samples: nothing the clients hold may grow with time.
 *
 * <ul>
 *   <li><b>heap</b>: heap used after a full collection stays flat ({@link #HEAP}: the last third's maximum within
 *       10% plus 4 MB of the first third's);
 *   <li><b>threads</b>: live threads stay flat ({@link #THREADS}: at most 2 more at the end than at the start);
 *   <li><b>connections</b>: on every node, at most one command and one subscriber connection per client, and flat
 *       ({@link #CONNECTIONS}: at most 1 more);
 *   <li><b>subscriptions</b>: on every node, no pattern subscription, and at most the channels of the locks that can
 *       have waiters: a waiting client listens on the lock's own channel and on the lock's channel for that client,
 *       so each shared lock's channel and one per client, and two for the fresh lock each fresh-lock thread is
 *       taking;
 *   <li><b>keys</b>: on every node, at most one fencing counter per shared lock; fresh locks' keys at most
 *       {@value #KEYS_PER_LOCK} per fresh-lock thread (the lock key and its three queue keys of the one lock it is
 *       taking); all keys at most {@link #maxKeys()} (those, each shared lock's keys and fencing counter, and the
 *       node's incarnation marker); and the count flat ({@link #KEYS}).
 * </ul>
 *
 * <p>And <b>progress</b>: between every two samples (and before the first) both shared and fresh locks were acquired.
 *
 * <p>Samples a node could not answer (it was down or stopped) are left out of that node's series.
 */
public final class SoakChecker {

    /** The heap check's name in its result. */
    public static final String HEAP_CHECK = "soak-heap";

    /** The threads check's name. */
    public static final String THREADS_CHECK = "soak-threads";

    /** The connections check's name. */
    public static final String CONNECTIONS_CHECK = "soak-connections";

    /** The subscriptions check's name. */
    public static final String SUBSCRIPTIONS_CHECK = "soak-subscriptions";

    /** The keys check's name. */
    public static final String KEYS_CHECK = "soak-keys";

    /** The progress check's name. */
    public static final String PROGRESS_CHECK = "soak-progress";

    /** Heap after GC, in MB: the last third's maximum within 10% plus 4 MB of the first third's. */
    public static final Flatness HEAP = new Flatness(0.10, 4);

    /** Live threads: at most 2 more (the JDK's own helpers, such as the process reaper, come and go). */
    public static final Flatness THREADS = new Flatness(0, 2);

    /** Connections on a node: at most 1 more (a client re-opening its connection as the sample is taken). */
    public static final Flatness CONNECTIONS = new Flatness(0, 1);

    /** Keys on a node: the last third's maximum within 25% plus 4 keys of the first third's. */
    public static final Flatness KEYS = new Flatness(0.25, 4);

    /** A lock's keys on a node: the lock key and its hand-over queue's three ({@code :q}, {@code :qe}, {@code :qh}). */
    public static final int KEYS_PER_LOCK = 4;

    private final int clients;
    private final int sharedLocks;
    private final int freshThreads;

    /**
     * Creates the judge for a workload's shape.
     *
     * @param clients how many clients (each its own {@code RedlockClient})
     * @param sharedLocks how many shared (fenced, contended) locks
     * @param freshThreads how many threads in all take fresh (unfenced, uncontended) locks
     */
    public SoakChecker(int clients, int sharedLocks, int freshThreads) {
        this.clients = clients;
        this.sharedLocks = sharedLocks;
        this.freshThreads = freshThreads;
    }

    /**
     * The most connections a node may have: a command and a subscriber connection per client.
     *
     * @return the bound
     */
    public int maxConnections() {
        return 2 * clients;
    }

    /**
     * The most channels a node may have subscribers on: each shared lock's own channel and its channel for each
     * client, and the two channels of the fresh lock each fresh-lock thread is taking.
     *
     * @return the bound
     */
    public int maxChannels() {
        return sharedLocks * (1 + clients) + 2 * freshThreads;
    }

    /**
     * The most keys a node may hold: each shared lock's keys and fencing counter, each fresh-lock thread's current
     * lock's keys, and the incarnation marker.
     *
     * @return the bound
     */
    public long maxKeys() {
        return (long) sharedLocks * (KEYS_PER_LOCK + 1) + (long) freshThreads * KEYS_PER_LOCK + 1;
    }

    /**
     * Judges the samples.
     *
     * @param samples the run's samples in time order, taken while the workload ran
     * @return one result per check: {@link #PROGRESS_CHECK}, {@link #HEAP_CHECK}, {@link #THREADS_CHECK}, {@link
     *     #CONNECTIONS_CHECK}, {@link #SUBSCRIPTIONS_CHECK}, {@link #KEYS_CHECK}; UNKNOWN for a series with too few
     *     samples to judge
     */
    public List<CheckResult> check(List<SoakSample> samples) {
        List<CheckResult> results = new ArrayList<>();
        results.add(progress(samples));
        results.add(flat(
                HEAP_CHECK,
                List.of(HEAP.judge(
                        "heap used after GC (MB)", series(samples, s -> s.heapUsedAfterGc() / (1024.0 * 1024.0))))));
        results.add(flat(
                THREADS_CHECK, List.of(THREADS.judge("live threads", series(samples, SoakSample::liveThreads)))));
        int nodes = samples.isEmpty() ? 0 : samples.get(0).nodes().size();

        List<Flatness.Judgement> connections = new ArrayList<>();
        List<String> over = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            double[] c = nodeSeries(samples, n, SoakSample.NodeSample::connections);
            connections.add(CONNECTIONS.judge("node " + n + " connections", c));
            bound(over, samples, n, "connections", SoakSample.NodeSample::connections, maxConnections(), true);
        }
        results.add(withBounds(CONNECTIONS_CHECK, connections, over));

        List<String> subscriptions = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            bound(
                    subscriptions,
                    samples,
                    n,
                    "subscribed channels",
                    SoakSample.NodeSample::channels,
                    maxChannels(),
                    true);
            // The client never subscribes to a pattern: one is a defect at once.
            bound(subscriptions, samples, n, "pattern subscriptions", SoakSample.NodeSample::patterns, 0, false);
        }
        results.add(CheckResult.of(
                SUBSCRIPTIONS_CHECK,
                subscriptions,
                String.format(
                        Locale.ROOT,
                        "channels at most %d per node (largest seen %d), no pattern subscriptions (largest seen %d)",
                        maxChannels(),
                        largest(samples, SoakSample.NodeSample::channels),
                        largest(samples, SoakSample.NodeSample::patterns))));

        List<Flatness.Judgement> keys = new ArrayList<>();
        List<String> tooMany = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            keys.add(KEYS.judge("node " + n + " keys", nodeSeries(samples, n, s -> s.keys())));
            bound(tooMany, samples, n, "keys", s -> (int) Math.min(Integer.MAX_VALUE, s.keys()), maxKeys(), true);
            bound(
                    tooMany,
                    samples,
                    n,
                    "fresh locks' keys",
                    SoakSample.NodeSample::freshKeys,
                    (long) freshThreads * KEYS_PER_LOCK,
                    true);
            // Fencing counters are kept for good: one more than the shared locks is a defect at once.
            bound(tooMany, samples, n, "fencing counters", SoakSample.NodeSample::fenceCounters, sharedLocks, false);
        }
        results.add(withBounds(KEYS_CHECK, keys, tooMany));
        return results;
    }

    private static CheckResult progress(List<SoakSample> samples) {
        List<String> stalled = new ArrayList<>();
        long shared = 0;
        long fresh = 0;
        for (SoakSample s : samples) {
            if (s.acquiredShared() <= shared || s.acquiredFresh() <= fresh) {
                stalled.add("between the samples before " + s.at() + " and at it: " + (s.acquiredShared() - shared)
                        + " shared and " + (s.acquiredFresh() - fresh) + " fresh leases");
            }
            shared = s.acquiredShared();
            fresh = s.acquiredFresh();
        }
        String summary = samples.size() + " intervals, " + shared + " shared and " + fresh + " fresh leases in all";
        return samples.isEmpty()
                ? CheckResult.unknown(PROGRESS_CHECK, "no samples")
                : CheckResult.of(PROGRESS_CHECK, stalled, summary);
    }

    private static CheckResult flat(String name, List<Flatness.Judgement> judgements) {
        return withBounds(name, judgements, List.of());
    }

    /** INVALID when a series grew or a bound was passed; UNKNOWN when a series could not be judged; else VALID. */
    private static CheckResult withBounds(String name, List<Flatness.Judgement> judgements, List<String> over) {
        List<String> violations = new ArrayList<>(over);
        boolean unjudged = false;
        for (Flatness.Judgement j : judgements) {
            if (!j.judged()) {
                unjudged = true;
            } else if (!j.flat()) {
                violations.add(j.toString());
            }
        }
        String summary = String.join(
                "; ", judgements.stream().map(Flatness.Judgement::toString).toList());
        if (violations.isEmpty() && (unjudged || judgements.isEmpty())) {
            return CheckResult.unknown(name, summary.isEmpty() ? "no samples" : summary);
        }
        return CheckResult.of(name, violations, summary);
    }

    /**
     * Adds a violation when node {@code node}'s figure passes {@code max}: in any one sample, or, when
     * {@code sustained}, in two samples in a row. A figure that swings with faults (the connections a client opens
     * while it reconnects or repairs fencing counters after a restart, the keys of acquisitions in flight when a node
     * returns) may pass a bound for one sample, a minute apart; a leak stays above it.
     */
    private static void bound(
            List<String> violations,
            List<SoakSample> samples,
            int node,
            String what,
            ToIntFunction<SoakSample.NodeSample> figure,
            long max,
            boolean sustained) {
        SoakSample previous = null;
        for (SoakSample s : samples) {
            SoakSample.NodeSample n = s.nodes().get(node);
            boolean over = n.reachable() && figure.applyAsInt(n) > max;
            if (over && (!sustained || previous != null)) {
                violations.add("node " + node + " had " + figure.applyAsInt(n) + " " + what + " at " + s.at()
                        + (sustained ? " and in the sample before" : "") + ", more than the " + max
                        + " the workload can need");
                return;
            }
            previous = over ? s : null;
        }
    }

    private static int largest(List<SoakSample> samples, ToIntFunction<SoakSample.NodeSample> figure) {
        return samples.stream()
                .flatMap(s -> s.nodes().stream())
                .filter(SoakSample.NodeSample::reachable)
                .mapToInt(figure)
                .max()
                .orElse(-1);
    }

    private static double[] series(List<SoakSample> samples, ToDoubleFunction<SoakSample> figure) {
        return samples.stream().mapToDouble(figure).toArray();
    }

    private static double[] nodeSeries(
            List<SoakSample> samples, int node, ToDoubleFunction<SoakSample.NodeSample> figure) {
        return samples.stream()
                .mapToDouble(s -> s.nodes().get(node).reachable()
                        ? figure.applyAsDouble(s.nodes().get(node))
                        : Double.NaN)
                .toArray();
    }
}
