/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.shedlock;

import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import redis.clients.jedis.Jedis;

/** Reads lock keys straight from the test's redis-server processes, bypassing the library. */
final class Nodes {

    /** Nodes per test class. */
    static final int SIZE = 5;
    /** A RedLock's quorum over {@link #SIZE} nodes. */
    static final int QUORUM = SIZE / 2 + 1;

    private Nodes() {}

    /**
     * Client settings for tests over nodes started moments ago: restart quarantine off (the library's own tests do
     * the same; its tests cover quarantine), the given per-node timeout, everything else at its default.
     */
    static RedlockConfig.Builder config(RedisNodesExtension redis, Duration perNodeTimeout) {
        return RedlockConfig.builder()
                .nodes(redis.uris())
                .restartQuarantine(false)
                .perNodeTimeout(perNodeTimeout);
    }

    /** The value of {@code key} on every running node that has it, by value: how many nodes hold each token. */
    static Map<String, Integer> holders(RedisNodesExtension redis, String key) {
        Map<String, Integer> byToken = new HashMap<>();
        for (int i = 0; i < SIZE; i++) {
            RedisServer node = redis.node(i);
            if (node.isRunning() && !node.isPaused()) {
                String value = node.get(key);
                if (value != null) {
                    byToken.merge(value, 1, Integer::sum);
                }
            }
        }
        return byToken;
    }

    /** The token held on a quorum of the nodes, if any: the lock's holder. */
    static Optional<String> quorumHolder(RedisNodesExtension redis, String key) {
        return holders(redis, key).entrySet().stream()
                .filter(e -> e.getValue() >= QUORUM)
                .map(Map.Entry::getKey)
                .findFirst();
    }

    /** How many running nodes have {@code key} at all. */
    static int nodesWithKey(RedisNodesExtension redis, String key) {
        return holders(redis, key).values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The remaining TTL of {@code key}, in milliseconds, on every running node that has it. */
    static List<Long> ttlsMillis(RedisNodesExtension redis, String key) {
        List<Long> ttls = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            RedisServer node = redis.node(i);
            if (node.isRunning() && !node.isPaused()) {
                try (Jedis jedis = node.client()) {
                    long ttl = jedis.pttl(key);
                    if (ttl >= 0) {
                        ttls.add(ttl);
                    }
                }
            }
        }
        return ttls;
    }
}
