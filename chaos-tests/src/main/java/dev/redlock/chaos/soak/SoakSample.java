/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * One sample of a soak run: the JVM's heap and threads, the workload's progress, and each node's connections,
 * subscriptions and keys.
 *
 * @param at when it was taken, since the start of the run
 * @param heapUsedAfterGc bytes of heap in use right after a full collection
 * @param liveThreads the JVM's live threads
 * @param acquiredShared leases of the shared (contended) locks so far
 * @param acquiredFresh leases of fresh (uncontended) locks so far
 * @param nodes each node's figures, by node index
 */
public record SoakSample(
        Duration at,
        long heapUsedAfterGc,
        int liveThreads,
        long acquiredShared,
        long acquiredFresh,
        List<NodeSample> nodes) {

    /**
     * Copies the node list.
     *
     * @param at when it was taken
     * @param heapUsedAfterGc heap bytes after a full collection
     * @param liveThreads live threads
     * @param acquiredShared shared leases so far
     * @param acquiredFresh fresh leases so far
     * @param nodes each node's figures
     */
    public SoakSample {
        nodes = List.copyOf(nodes);
    }

    /**
     * One node's figures; all -1 when the node could not be asked (down, stopped, or it did not answer in time).
     *
     * @param node the node's index
     * @param reachable whether the node answered
     * @param connections client connections, the sampler's own not counted ({@code INFO clients
     *     connected_clients - 1})
     * @param channels channels with at least one subscriber ({@code INFO stats pubsub_channels})
     * @param patterns pattern subscriptions ({@code INFO stats pubsub_patterns})
     * @param keys keys in the database ({@code DBSIZE})
     * @param freshKeys keys of fresh locks among them (lock keys and their queue keys)
     * @param fenceCounters fencing counters among them ({@code ...:fence})
     */
    public record NodeSample(
            int node,
            boolean reachable,
            int connections,
            int channels,
            int patterns,
            long keys,
            int freshKeys,
            int fenceCounters) {

        /**
         * The figures of a node that could not be asked.
         *
         * @param node the node's index
         * @return a sample with every figure -1
         */
        public static NodeSample unreachable(int node) {
            return new NodeSample(node, false, -1, -1, -1, -1, -1, -1);
        }
    }

    /**
     * Formats samples as a table, one line each, the nodes' figures separated by slashes in node order ({@code -} for
     * a node that could not be asked).
     *
     * @param samples the samples in time order
     * @return the table, with a header line
     */
    public static String table(List<SoakSample> samples) {
        StringBuilder t = new StringBuilder();
        t.append(String.format(
                Locale.ROOT,
                "%6s %8s %7s %9s %9s  %-20s %-14s %-10s %-24s %-14s %-10s%n",
                "at",
                "heap MB",
                "threads",
                "shared/m",
                "fresh/m",
                "connections",
                "channels",
                "patterns",
                "keys",
                "fresh keys",
                "fencing"));
        SoakSample previous = null;
        for (SoakSample s : samples) {
            long sharedRate = previous == null ? s.acquiredShared : s.acquiredShared - previous.acquiredShared;
            long freshRate = previous == null ? s.acquiredFresh : s.acquiredFresh - previous.acquiredFresh;
            double minutes = previous == null
                    ? s.at.toMillis() / 60_000.0
                    : (s.at.toMillis() - previous.at.toMillis()) / 60_000.0;
            t.append(String.format(
                    Locale.ROOT,
                    "%6s %8.1f %7d %9s %9s  %-20s %-14s %-10s %-24s %-14s %-10s%n",
                    clock(s.at),
                    s.heapUsedAfterGc / (1024.0 * 1024.0),
                    s.liveThreads,
                    minutes > 0 ? Long.toString(Math.round(sharedRate / minutes)) : "-",
                    minutes > 0 ? Long.toString(Math.round(freshRate / minutes)) : "-",
                    perNode(s, NodeSample::connections),
                    perNode(s, NodeSample::channels),
                    perNode(s, NodeSample::patterns),
                    perNode(s, NodeSample::keys),
                    perNode(s, NodeSample::freshKeys),
                    perNode(s, NodeSample::fenceCounters)));
            previous = s;
        }
        return t.toString();
    }

    private static String clock(Duration at) {
        long seconds = at.toSeconds();
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }

    private static String perNode(SoakSample s, ToLongFunction<NodeSample> figure) {
        StringBuilder out = new StringBuilder();
        for (NodeSample n : s.nodes) {
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(n.reachable() ? Long.toString(figure.applyAsLong(n)) : "-");
        }
        return out.toString();
    }
}
