package dev.redlock.micrometer;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
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
}
