/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import java.time.Duration;

/** The JMH benchmarks' fixture: {@code n} real redis-server masters and one client over them. */
final class BenchCluster implements AutoCloseable {

    /** Fixed lease time of every benchmark acquisition, so the watchdog never runs. */
    static final Duration LEASE = Duration.ofSeconds(10);

    private final RedisNodes nodes;
    private final RedlockClient client;

    private BenchCluster(RedisNodes nodes, RedlockClient client) {
        this.nodes = nodes;
        this.client = client;
    }

    /** Starts {@code n} masters and a client with default settings over them. */
    static BenchCluster start(int n) {
        RedisNodes nodes = RedisNodes.start(n);
        try {
            return new BenchCluster(
                    nodes,
                    RedlockClient.create(RedlockConfig.builder()
                            .nodes(nodes.uris())
                            .restartQuarantine(false)
                            .build()));
        } catch (RuntimeException e) {
            nodes.close(); // do not leak the servers when the client cannot be built
            throw e;
        }
    }

    /** Maps the {@code kind} benchmark parameter to a quorum policy. */
    static QuorumPolicy policy(String kind) {
        return switch (kind) {
            case "RedLock" -> QuorumPolicy.MAJORITY;
            case "MultiLock" -> QuorumPolicy.ALL;
            default -> throw new IllegalArgumentException("kind must be RedLock or MultiLock, got " + kind);
        };
    }

    /** The client over every master. */
    RedlockClient client() {
        return client;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            nodes.close();
        }
    }
}
