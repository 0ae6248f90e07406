/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a release did on each node.
 *
 * <p>A release is sent to every configured node in parallel. The caller waits only until the outcome is decided: a
 * quorum of nodes confirmed the key is gone (a majority for a RedLock, every node for a MultiLock), or every node
 * has answered or timed out. Nodes that had not answered by
 * then are reported as {@link NodeStatus#PENDING}; their releases complete in the background, and
 * {@link #completion()} gives the final result once every node has answered.
 *
 * <p>Releasing a lease that has merely expired is not an error: such nodes report
 * {@link NodeStatus#ALREADY_EXPIRED}. Immutable and thread-safe.
 */
public final class ReleaseResult {

    private final String lockName;
    private final List<NodeOutcome> nodes;
    private final CompletableFuture<ReleaseResult> completion;
    private final Executor executor;

    /**
     * Creates a result. Normally built by the library.
     *
     * @param lockName the lock's name
     * @param nodes one outcome per configured node, in configuration order
     * @param completion completes with the final result once every node answered, or {@code null} when this is the
     *        final result
     * @param executor where dependents of {@link #completion()} run
     */
    public ReleaseResult(
            String lockName, List<NodeOutcome> nodes, CompletableFuture<ReleaseResult> completion, Executor executor) {
        this.lockName = lockName;
        this.nodes = List.copyOf(nodes);
        this.completion = completion == null ? CompletableFuture.completedFuture(this) : completion;
        this.executor = executor;
    }

    /**
     * Returns the name of the released lock.
     *
     * @return the lock name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * Returns one outcome per configured node, in configuration order.
     *
     * @return an unmodifiable list
     */
    public List<NodeOutcome> nodes() {
        return nodes;
    }

    /**
     * Returns how many nodes deleted a key that held this lease's token.
     *
     * @return the number of {@link NodeStatus#RELEASED} outcomes
     */
    public int released() {
        return count(NodeStatus.RELEASED);
    }

    /**
     * Returns how many nodes no longer had the key.
     *
     * @return the number of {@link NodeStatus#ALREADY_EXPIRED} outcomes
     */
    public int alreadyExpired() {
        return count(NodeStatus.ALREADY_EXPIRED);
    }

    /**
     * Returns how many nodes had the key under another owner's token (left untouched).
     *
     * @return the number of {@link NodeStatus#OWNED_BY_ANOTHER} outcomes
     */
    public int ownedByAnother() {
        return count(NodeStatus.OWNED_BY_ANOTHER);
    }

    /**
     * Returns how many nodes failed or did not answer within the per-node timeout.
     *
     * @return the number of {@link NodeStatus#ERROR}, {@link NodeStatus#TIMEOUT} and {@link NodeStatus#CIRCUIT_OPEN}
     *         outcomes
     */
    public int failed() {
        int n = 0;
        for (NodeOutcome o : nodes) {
            if (o.status().isUnavailable()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Returns whether the lease had already expired before the release: no node still held its token, and a majority
     * of the nodes confirmed the key was gone or owned by someone else. Nodes still {@link NodeStatus#PENDING} are
     * not counted; {@link #completion()} has every node's answer.
     *
     * @return true when nothing was released and a majority reported {@link NodeStatus#ALREADY_EXPIRED} or
     *         {@link NodeStatus#OWNED_BY_ANOTHER}
     */
    public boolean wasExpired() {
        return released() == 0 && alreadyExpired() + ownedByAnother() >= nodes.size() / 2 + 1;
    }

    /**
     * Returns a future that completes with the final result, once every node has answered or timed out. Already
     * complete when no node was {@link NodeStatus#PENDING}. The future never completes exceptionally, and its
     * dependents run on the client's async executor.
     *
     * @return the final result's future
     */
    public CompletableFuture<ReleaseResult> completion() {
        if (completion.isDone()) {
            return CompletableFuture.completedFuture(completion.join());
        }
        // A new stage per call, completed on the async executor, so callbacks never run on a node's I/O thread.
        return completion.thenApplyAsync(r -> r, executor);
    }

    private int count(NodeStatus status) {
        int n = 0;
        for (NodeOutcome o : nodes) {
            if (o.status() == status) {
                n++;
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return "ReleaseResult{lock=" + lockName + ", released=" + released() + ", alreadyExpired=" + alreadyExpired()
                + ", ownedByAnother=" + ownedByAnother() + ", failed=" + failed() + ", nodes=" + nodes + '}';
    }
}
