/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

class RedisSentinelGroupTest {

    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(20);

    @Test
    void killedMasterIsReplacedByAReplicaThatHasTheKey() {
        List<Long> pids = new ArrayList<>();
        try (RedisSentinelGroup group = RedisSentinelGroup.start("mymaster", 2, 3)) {
            group.dataNodes().forEach(n -> pids.add(n.pid()));
            group.sentinels().forEach(n -> pids.add(n.pid()));
            RedisServer master = group.master();
            assertEquals(group.dataNodes().get(0), master);
            assertEquals(2, group.replicas().size());
            assertEquals(
                    "redis-sentinel://" + String.join(",", group.sentinelAddresses()) + "/mymaster",
                    group.sentinelUri());
            assertEquals("master", role(master));
            group.replicas().forEach(r -> assertEquals("slave", role(r)));

            master.set("lock:a", "holder-1");
            group.awaitReplicasInSync(Duration.ofSeconds(5));

            RedisServer promoted = group.killMasterAndAwaitFailover(FAILOVER_TIMEOUT);
            assertNotEquals(master, promoted);
            assertFalse(master.isRunning());
            assertEquals(promoted, group.master());
            assertEquals("master", role(promoted));
            assertEquals("holder-1", promoted.get("lock:a"));
            promoted.set("lock:b", "holder-2"); // writable

            // The killed master comes back as a replica of the new one.
            group.restartAsReplica(master, Duration.ofSeconds(10));
            group.awaitReplicasInSync(Duration.ofSeconds(10));
            assertEquals("holder-2", master.get("lock:b"));
            pids.add(master.pid());
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " alive");
        }
    }

    @Test
    void gracefulFailoverTwiceInARow() {
        try (RedisSentinelGroup group = RedisSentinelGroup.builder("chaos")
                .replicas(2)
                .sentinels(3)
                .password("s3cret:pw")
                .start()) {
            assertEquals(
                    "redis-sentinel://:s3cret%3Apw@" + String.join(",", group.sentinelAddresses()) + "/chaos",
                    group.sentinelUri());
            RedisServer first = group.master();
            first.set("k", "1");
            RedisServer second = group.failover(FAILOVER_TIMEOUT);
            assertNotEquals(first, second);
            assertEquals("master", role(second));
            assertEquals("1", second.get("k"));
            second.set("k", "2");

            RedisServer third = group.failover(FAILOVER_TIMEOUT);
            assertNotEquals(second, third);
            assertEquals("master", role(third));
            assertEquals(third, group.master());
            // Written through the second master before the failover: replication carried it along.
            assertEquals("2", third.get("k"));
        }
    }

    @Test
    void tlsWithPasswordsOnDataNodesAndSentinels() {
        try (RedisSentinelGroup group = RedisSentinelGroup.builder("secure")
                .replicas(1)
                .sentinels(2)
                .quorum(1)
                .password("data-pw")
                .sentinelPassword("sentinel-pw")
                .tls(TlsCertificates.generate())
                .start()) {
            assertEquals(
                    "rediss-sentinel://:data-pw@" + String.join(",", group.sentinelAddresses()) + "/secure",
                    group.sentinelUri());
            RedisServer master = group.master();
            assertTrue(master.uri().startsWith("rediss://"));
            master.set("k", "v"); // the kit's connection speaks TLS and authenticates
            RedisServer sentinel = group.sentinels().get(0);
            try (Jedis anonymous = new Jedis(
                    sentinel.host(),
                    sentinel.port(),
                    DefaultJedisClientConfig.builder()
                            .ssl(true)
                            .sslSocketFactory(group.tls().clientContext().getSocketFactory())
                            .build())) {
                JedisDataException e =
                        assertThrows(JedisDataException.class, () -> anonymous.sentinelGetMasterAddrByName("secure"));
                assertTrue(e.getMessage().startsWith("NOAUTH"), e::getMessage);
            }
            group.awaitReplicasInSync(Duration.ofSeconds(5));
            RedisServer promoted = group.failover(FAILOVER_TIMEOUT);
            assertNotEquals(master, promoted);
            assertEquals("v", promoted.get("k"));
        }
    }

    private static String role(RedisServer server) {
        try (Jedis jedis = server.client()) {
            Map<String, String> info = GroupSupport.parseInfo(jedis.info("replication"));
            return info.get("role");
        }
    }
}
