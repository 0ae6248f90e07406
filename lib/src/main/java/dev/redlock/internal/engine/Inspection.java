/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.internal.node.NodeOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Reads of a lock key on every node, and the admin's forced delete of what a read saw. Thread-safe. */
public final class Inspection extends EnginePart {

    Inspection(QuorumEngine engine) {
        super(engine);
    }

    /**
     * What one node said of a lock key: its outcome (TAKEN with the TTL, or ALREADY_EXPIRED), who holds it, and the
     * holder's client entry there ({host, pid, name, lease}, see {@code inspect.lua}; null when the node has none).
     */
    public record NodeView(NodeOutcome outcome, String holderPrefix, String[] holderEntry) {}

    /**
     * Reads a lock key on every node in parallel, waiting at most one per-node timeout; nodes that did not answer by
     * then are {@link NodeStatus#PENDING}.
     */
    public List<NodeView> inspect(String key) {
        return onEveryNode(NodeOp.Kind.INSPECT, key, null);
    }

    /**
     * Deletes a lock key on each node where it still holds the token starting with {@code holders.get(i)} (what an
     * inspection saw there); nodes with a null prefix are not asked. Waits at most one per-node timeout.
     */
    public List<NodeView> forceRelease(String key, List<String> holders) {
        return onEveryNode(NodeOp.Kind.FORCE_RELEASE, key, holders);
    }

    List<NodeView> onEveryNode(NodeOp.Kind kind, String key, List<String> holders) {
        engine.ensureOpen();
        long t1 = ticker.nanoTime();
        Placement.Nodes at = placement.of(key);
        Round round = new Round(kind, at, at.size(), t1, ticker);
        CompletableFuture<Round> all = round.allAnswered();
        long sendBy = t1 + perNodeTimeoutNanos;
        engine.fanOut(round, i -> {
            // An inspection carries the key prefix of clients' entries; a forced delete, the holder seen on that node.
            String holder = holders == null ? engine.holders.entryPrefix() : holders.get(i);
            if (holder == null) {
                round.onReply(i, NodeStatus.ALREADY_EXPIRED, null, null); // nothing seen there: nothing to delete
                return null;
            }
            return round.op(i, key, holder, 0, sendBy);
        });
        try {
            all.get(perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Reported per node below.
        }
        List<NodeOutcome> outcomes = round.outcomesNow();
        List<NodeView> views = new ArrayList<>(outcomes.size());
        for (int i = 0; i < outcomes.size(); i++) {
            NodeOp op = round.opOf(i);
            views.add(new NodeView(
                    outcomes.get(i), op == null ? null : op.holderPrefix(), op == null ? null : op.holderEntry()));
        }
        return views;
    }
}
