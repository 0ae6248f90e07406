/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.micrometer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisNodesExtension;
import dev.redlock.testkit.RedisServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The meters over five real Redis masters, read from a {@link SimpleMeterRegistry}. */
class RedlockMetricsTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private static RedlockConfig.Builder config(RedlockMetrics metrics) {
        return RedlockConfig.builder()
                .nodes(REDIS.uris())
                .restartQuarantine(false)
                .checkTopology(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(3))
                .retryDelay(Duration.ofMillis(5))
                .listener(metrics);
    }

    private static double count(SimpleMeterRegistry registry, String name, String... tags) {
        return registry.find(name).tags(tags).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Test
    void acquisitionsNodeOutcomesAndGauges() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RedlockMetrics metrics = new RedlockMetrics(registry);
        try (RedlockClient client = RedlockClient.create(config(metrics).build())) {
            metrics.bindTo(client);
            QuorumLock lock = client.redLock("metered");
            Lease lease = lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow(); // auto-extended
            assertFalse(lock.attempt(Duration.ZERO, Duration.ofSeconds(10)).acquired());
            client.fairLock("metered-fair")
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                    .orElseThrow()
                    .release();

            assertEquals(
                    1,
                    registry.get(RedlockMetrics.ACQUIRE)
                            .tags("kind", "redlock", "outcome", "acquired")
                            .timer()
                            .count());
            assertTrue(registry.get(RedlockMetrics.ACQUIRE)
                            .tags("kind", "redlock", "outcome", "acquired")
                            .timer()
                            .totalTime(java.util.concurrent.TimeUnit.NANOSECONDS)
                    > 0);
            assertEquals(
                    1,
                    registry.get(RedlockMetrics.ACQUIRE)
                            .tags("kind", "redlock", "outcome", "busy")
                            .timer()
                            .count());
            assertEquals(
                    1,
                    registry.get(RedlockMetrics.ACQUIRE)
                            .tags("kind", "fair", "outcome", "acquired")
                            .timer()
                            .count());
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> count(registry, RedlockMetrics.NODE_OUTCOMES, "status", "granted") >= 6
                            && count(registry, RedlockMetrics.NODE_OUTCOMES, "status", "taken") >= 1);
            for (String node : client.nodeNames()) {
                assertTrue(count(registry, RedlockMetrics.NODE_OUTCOMES, "node", node) >= 1, node);
            }
            assertEquals(1.0, registry.get(RedlockMetrics.ACTIVE).gauge().value());
            assertEquals(1.0, registry.get(RedlockMetrics.WATCHED).gauge().value());
            for (Meter m : registry.getMeters()) {
                assertTrue(
                        m.getId().getTag("lock") == null
                                && m.getId().getTags().stream()
                                        .noneMatch(t -> t.getValue().startsWith("metered")),
                        () -> "a lock name in " + m.getId());
            }

            client.forceUnlock("metered"); // the watchdog's next extension fails and the lease is lost
            await().atMost(Duration.ofSeconds(30)).until(() -> count(registry, RedlockMetrics.LOST) == 1);
            assertTrue(count(registry, RedlockMetrics.EXTENSIONS_FAILED) >= 1);
            assertNotNull(registry.find(RedlockMetrics.LOST).counter().getId().getTag("reason"));
            assertFalse(lease.isValid());
            assertEquals(0.0, registry.get(RedlockMetrics.ACTIVE).gauge().value());
        }
    }

    @Test
    void aDeadNodeIsCountedPerNode() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RedlockMetrics metrics = new RedlockMetrics(registry);
        try (RedlockClient client = RedlockClient.create(config(metrics).build())) {
            REDIS.node(4).kill();
            String dead = client.nodeNames().get(4);
            for (int i = 0; i < 5; i++) {
                client.redLock("dead-" + i)
                        .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                        .orElseThrow()
                        .release();
            }
            // Every round counts the dead node once: an error, an open circuit, or still pending when the four others
            // decided it.
            double answers = count(registry, RedlockMetrics.NODE_OUTCOMES, "node", dead);
            assertTrue(answers >= 5.0, () -> "outcomes counted for the dead node: " + answers);
            assertEquals(0.0, count(registry, RedlockMetrics.NODE_OUTCOMES, "node", dead, "status", "granted"));
        }
    }

    private static double gauge(SimpleMeterRegistry registry, String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    /** One MultiLock round, which waits for every node: the client connects to each and reads its uptime. */
    private static void oneRound(RedlockClient client, Duration lease) throws InterruptedException {
        AcquireResult r = client.multiLock("restart-protection-probe").attempt(Duration.ZERO, lease);
        r.lease().ifPresent(Lease::release);
    }

    /**
     * Masters started moments ago with a 30 s lease: restart protection keeps each out for about 31 s, which the
     * gauges show per node, tagged with the node's name and never its password.
     */
    @Test
    void restartProtectionOfFreshMastersIsGaugedPerNode() throws Exception {
        String secret = "gauge-s3cret";
        try (RedisNodes fresh = RedisNodes.start(3, List.of("--requirepass", secret))) {
            List<String> uris = fresh.servers().stream()
                    .map(s -> "redis://default:" + secret + "@" + s.host() + ":" + s.port())
                    .toList();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            RedlockMetrics metrics = new RedlockMetrics(registry);
            Duration lease = Duration.ofSeconds(30);
            try (RedlockClient client = RedlockClient.create(RedlockConfig.builder()
                    .nodes(uris)
                    .restartQuarantine(true)
                    .checkTopology(false)
                    .perNodeTimeout(Duration.ofMillis(200))
                    .leaseTime(lease)
                    .listener(metrics)
                    .build())) {
                metrics.bindTo(client);
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            oneRound(client, lease);
                            return gauge(registry, RedlockMetrics.RESTART_PROTECTED_NODES) == 3.0;
                        });
                for (String node : client.nodeNames()) {
                    assertFalse(node.contains(secret) || node.contains("@"), node);
                    double left = gauge(registry, RedlockMetrics.RESTART_PROTECTION_REMAINING, "node", node);
                    assertTrue(left > 0 && left <= 31, () -> node + ": " + left + " s left");
                }
                assertEquals(
                        3,
                        registry.find(RedlockMetrics.RESTART_PROTECTION_REMAINING)
                                .gauges()
                                .size());
                for (Meter m : registry.getMeters()) {
                    for (Tag t : m.getId().getTags()) {
                        assertFalse(t.getValue().contains(secret), () -> "a password in " + m.getId());
                    }
                }
            }
        }
    }

    /**
     * A node that restarts empty sits out for about a lease (here 5 s) after the client sees it again: the count and
     * that node's seconds go up, the other nodes stay at 0, and both drop back to 0 once its votes count.
     */
    @Test
    void theRestartProtectionGaugesFollowARestart() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RedlockMetrics metrics = new RedlockMetrics(registry);
        Duration lease = Duration.ofSeconds(5);
        try (RedlockClient client = RedlockClient.create(
                config(metrics).restartQuarantine(true).leaseTime(lease).build())) {
            metrics.bindTo(client);
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        oneRound(client, lease);
                        return client.restartProtection().isEmpty()
                                && gauge(registry, RedlockMetrics.RESTART_PROTECTED_NODES) == 0.0;
                    });
            for (String node : client.nodeNames()) {
                assertEquals(0.0, gauge(registry, RedlockMetrics.RESTART_PROTECTION_REMAINING, "node", node));
            }

            RedisServer restarted = REDIS.node(0);
            restarted.kill();
            restarted.restart();
            String name = client.nodeNames().get(0);
            await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        oneRound(client, lease);
                        return gauge(registry, RedlockMetrics.RESTART_PROTECTED_NODES) == 1.0;
                    });
            double left = gauge(registry, RedlockMetrics.RESTART_PROTECTION_REMAINING, "node", name);
            assertTrue(left > 0 && left <= 6, () -> name + ": " + left + " s left");
            for (String other : client.nodeNames().subList(1, 5)) {
                assertEquals(0.0, gauge(registry, RedlockMetrics.RESTART_PROTECTION_REMAINING, "node", other));
            }

            await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        oneRound(client, lease);
                        return gauge(registry, RedlockMetrics.RESTART_PROTECTED_NODES) == 0.0;
                    });
            assertEquals(0.0, gauge(registry, RedlockMetrics.RESTART_PROTECTION_REMAINING, "node", name));
        }
    }

    @Test
    void secondsLeftAreReadFromTheSentence() {
        assertEquals(0.0, RedlockMetrics.secondsLeft(null));
        assertEquals(
                12.0,
                RedlockMetrics.secondsLeft("restart protection: its votes count again in about 12 s (it has been up"
                        + " 19000 ms, less than the longest lease in use plus drift (30700 ms))"));
        assertTrue(Double.isNaN(RedlockMetrics.secondsLeft("identity unknown")));
    }
}
