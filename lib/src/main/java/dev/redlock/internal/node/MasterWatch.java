/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import java.util.concurrent.CompletableFuture;

/**
 * Which server a node is now, for nodes whose server others choose: a Sentinel-managed master ({@link SentinelWatch})
 * or the owner of a Redis Cluster hash slot ({@link ClusterWatch}). The node's connections connect to
 * {@link #current()} and reconnect when it changes; a vote counts only while {@link #unconfirmed} has nothing against
 * its server. Implementations are thread-safe.
 */
interface MasterWatch {

    /** The node's server as last named, or null if nothing was named yet. */
    NodeSpec current();

    /** Completes after the first attempt to learn the server, answered or not. */
    CompletableFuture<Void> firstAnswer();

    /** Runs {@code listener} (on the watch's thread; it must not block) whenever the node's server changes. */
    void onChange(Runnable listener);

    /** Asks again soon (within a second): the node's server turned out a replica, or redirected a command. */
    void askAgain();

    /** How long after its last confirmation a server's votes still count. */
    long staleLimitNanos();

    /** What every client adds to the quarantine after the node's server changed (a failover, a slot move). */
    long extraQuarantineNanos();

    /** Why a vote of the server at {@code target} must not count now; null if it counts. */
    String unconfirmed(NodeSpec target);

    /** Why a connection cannot be made now: no server was named yet. */
    String noMasterYet();

    /** Starts following, in the background. */
    void start();

    /** Stops following and closes the watch's connections. */
    void close();

    /**
     * Where a followed node's server is, asked once in the caller's thread (for the short-lived connections of checks
     * and repairs, off the hot path: what they read is not a vote).
     *
     * @throws java.io.UncheckedIOException naming the node and why nothing answered
     */
    static NodeSpec resolve(NodeSpec spec, RedlockConfig config) {
        return spec.isClusterSlot() ? ClusterWatch.resolve(spec, config) : SentinelWatch.resolve(spec, config);
    }

    /** Whether two specs name the same address. */
    static boolean sameAddress(NodeSpec a, NodeSpec b) {
        return a.host().equalsIgnoreCase(b.host()) && a.port() == b.port();
    }
}
