/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.TopologyReport;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * Nodes from the application's own pooled Jedis clients, against five real masters: locks are exclusive, granted,
 * extended and released through them, a flushed script cache falls back to EVAL, and the topology check reads them.
 * The build runs this with the parent's Jedis and again with Jedis 6.0.0 (what Spring Boot 3.5 manages).
 */
class JedisNodeTransportTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private final List<AutoCloseable> owned = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
        owned.clear();
    }

    /** A pooled client, built the way both Jedis 6 and 8 allow. */
    private UnifiedJedis pooled(int i) {
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(200)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .build();
        UnifiedJedis jedis = new UnifiedJedis(
                new PooledConnectionProvider(
                        new HostAndPort(REDIS.node(i).host(), REDIS.node(i).port()), config),
                1,
                Duration.ofSeconds(1));
        owned.add(jedis);
        return jedis;
    }

    private RedlockClient client() {
        RedlockConfig.Builder b = RedlockConfig.builder()
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .retryDelay(Duration.ofMillis(5))
                .leaseTime(Duration.ofSeconds(10));
        for (int i = 0; i < 5; i++) {
            b.node("jedis-" + i, JedisNodeTransport.of(pooled(i)));
        }
        RedlockClient c = RedlockClient.create(b.build());
        owned.add(0, c); // closed before the clients it uses
        return c;
    }

    @Test
    void theJedisOnTheClassPathIsTheOneThisRunMeansToTest() {
        String expected = System.getProperty("redlock.jedis.jar");
        if (expected != null) {
            String actual = String.valueOf(
                    UnifiedJedis.class.getProtectionDomain().getCodeSource().getLocation());
            assertTrue(actual.endsWith(expected), "this run tests " + expected + ", but Jedis comes from " + actual);
        }
    }

    @Test
    void locksAreGrantedExtendedAndReleasedThroughTheApplicationsClients() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.multiLock("jedis-basic"); // every node's answer is waited for
        Lease lease =
                lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        assertEquals(5, lease.acquisition().granted(), lease.acquisition()::toString);
        for (int i = 0; i < 5; i++) {
            assertEquals(lease.token(), REDIS.node(i).get(lock.key()));
        }
        AcquireResult busy = c.multiLock("jedis-basic").attempt(Duration.ZERO, Duration.ofSeconds(10));
        assertFalse(busy.acquired());
        assertTrue(busy.lastRound().nodes().stream().anyMatch(n -> n.status() == NodeStatus.TAKEN), busy::toString);
        assertTrue(lease.extend(Duration.ofSeconds(20)).succeeded());
        assertEquals(5, lease.release().completion().join().released());
    }

    @Test
    void aFlushedScriptCacheFallsBackToEval() throws Exception {
        RedlockClient c = client();
        Lease first = c.multiLock("jedis-noscript")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .orElseThrow();
        first.release();
        for (int i = 0; i < 5; i++) {
            REDIS.node(i).scriptFlush();
        }
        Lease again = c.multiLock("jedis-noscript")
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        assertEquals(5, again.acquisition().granted(), again.acquisition()::toString);
        again.release();
    }

    @Test
    void threadsOfSeveralClientsExcludeEachOther() throws Exception {
        List<RedlockClient> clients = List.of(client(), client());
        long[] counter = {0};
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                QuorumLock lock = clients.get(t % 2).redLock("jedis-mutex");
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        assertTrue(lock.tryLock(20, TimeUnit.SECONDS));
                        try {
                            long v = counter[0];
                            Thread.yield();
                            counter[0] = v + 1;
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(100, counter[0]);
    }

    @Test
    void theTopologyCheckReadsTheNodesThroughTheApplicationsClients() {
        TopologyReport report = client().check();
        assertTrue(report.failures().isEmpty(), report::toString);
        assertTrue(report.warnings().stream().noneMatch(w -> w.contains("not reachable")), report::toString);
    }
}
