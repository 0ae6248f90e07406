/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.redlock.RedlockClient;
import dev.redlock.spring.RedlockAutoConfiguration;
import dev.redlock.spring.TestNodes;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code redlock} health indicator in a real context over five real Redis masters: UP with per-node details,
 * DOWN once a majority of the masters is killed, topology warnings as details, and no indicator without Actuator or
 * when switched off.
 */
class RedlockHealthIndicatorTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
            .withPropertyValues(TestNodes.properties(REDIS.uris()));

    @Test
    void upWithEveryNodeThenDownWhenAMajorityIsKilled() {
        runner.withPropertyValues("redlock.circuit-open-duration=200ms").run(context -> {
            RedlockHealthIndicator indicator = context.getBean("redlockHealthIndicator", RedlockHealthIndicator.class);
            RedlockClient client = context.getBean(RedlockClient.class);

            // A node whose answer misses the 200 ms per-node timeout on a loaded machine shows as not reachable in
            // that one call: the next call sees it again.
            Health up = await().atMost(Duration.ofSeconds(5))
                    .until(
                            indicator::health,
                            h -> Integer.valueOf(5).equals(h.getDetails().get("reachable")));
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails())
                    .containsEntry("reachable", 5)
                    .containsEntry("voting", 5)
                    .containsEntry("quorum", 3)
                    .containsEntry("total", 5);
            assertThat(nodes(up))
                    .containsOnlyKeys(client.nodeNames())
                    .allSatisfy((name, node) -> assertThat(node).containsEntry("status", "UP"));

            for (int i = 0; i < 3; i++) {
                REDIS.node(i).kill();
            }
            Health down = await().atMost(Duration.ofSeconds(5))
                    .until(
                            indicator::health,
                            h -> Status.DOWN.equals(h.getStatus())
                                    && Integer.valueOf(2).equals(h.getDetails().get("reachable")));
            assertThat(down.getDetails()).containsEntry("reachable", 2).containsEntry("quorum", 3);
            for (int i = 0; i < 5; i++) {
                Map<String, Object> node = nodes(down).get(client.nodeNames().get(i));
                assertThat(node).containsEntry("status", i < 3 ? "DOWN" : "UP");
                if (i < 3) {
                    assertThat(node).containsKey("answer");
                }
            }
            // One call is bounded by the per-node timeout (200 ms), whatever the nodes do.
            long callStart = System.nanoTime();
            indicator.health();
            assertThat((System.nanoTime() - callStart) / 1_000_000).isLessThan(1_000);

            for (int i = 0; i < 3; i++) {
                REDIS.node(i).restart();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> Status.UP.equals(indicator.health().getStatus()));
        });
    }

    /**
     * Three nodes per lock: every node is probed (not only one lock's three), the quorum is a lock's (2), and the
     * status stays UP while every lock has one: one node down of five, not two.
     */
    @Test
    void withNodesPerLockEveryNodeIsProbedAndUpMeansEveryLockHasAQuorum() {
        runner.withPropertyValues("redlock.nodes-per-lock=3", "redlock.circuit-open-duration=200ms")
                .run(context -> {
                    RedlockHealthIndicator indicator =
                            context.getBean("redlockHealthIndicator", RedlockHealthIndicator.class);
                    RedlockClient client = context.getBean(RedlockClient.class);
                    Health up = await().atMost(Duration.ofSeconds(5))
                            .until(
                                    indicator::health,
                                    h -> Integer.valueOf(5)
                                            .equals(h.getDetails().get("reachable")));
                    assertThat(up.getStatus()).isEqualTo(Status.UP);
                    assertThat(up.getDetails()).containsEntry("quorum", 2).containsEntry("total", 5);
                    assertThat(nodes(up)).containsOnlyKeys(client.nodeNames());
                    try {
                        REDIS.node(0).kill();
                        Health four = await().atMost(Duration.ofSeconds(5))
                                .until(
                                        indicator::health,
                                        h -> Integer.valueOf(4)
                                                .equals(h.getDetails().get("reachable")));
                        assertThat(four.getStatus()).isEqualTo(Status.UP);
                        REDIS.node(1).kill();
                        Health down = await().atMost(Duration.ofSeconds(5))
                                .until(
                                        indicator::health,
                                        h -> Status.DOWN.equals(h.getStatus())
                                                && Integer.valueOf(3)
                                                        .equals(h.getDetails().get("reachable")));
                        assertThat(down.getDetails()).containsEntry("reachable", 3);
                    } finally {
                        REDIS.node(0).restart();
                        REDIS.node(1).restart();
                    }
                });
    }

    /**
     * Freshly started masters: restart protection keeps their votes out for about a lease. The status stays UP (they
     * vote by themselves soon), but each node says why and for how long, and {@code voting} says no lock can be had.
     */
    /** The client's name (from spring.application.name, or redlock.client-name) is how holders are shown. */
    @Test
    void detailsNameTheClientAsInspectionsShowItsHolders() {
        runner.withPropertyValues("spring.application.name=orders").run(context -> {
            RedlockHealthIndicator indicator = context.getBean("redlockHealthIndicator", RedlockHealthIndicator.class);
            RedlockClient client = context.getBean(RedlockClient.class);
            assertThat(indicator.health().getDetails())
                    .containsEntry("clientName", "orders")
                    .containsEntry("leasesHeld", 0);
            try (var lease =
                    client.redLock("health-held").tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(indicator.health().getDetails()).containsEntry("leasesHeld", 1);
                assertThat(client.inspect("health-held")
                                .holderIdentity()
                                .orElseThrow()
                                .clientName())
                        .isEqualTo("orders");
            }
        });
        runner.withPropertyValues("spring.application.name=orders", "redlock.client-name=orders-eu")
                .run(context -> assertThat(
                                context.getBean(RedlockClient.class).config().clientName())
                        .isEqualTo("orders-eu"));
    }

    @Test
    void restartProtectionShowsPerNodeAndInTheVotingCount() {
        try (dev.redlock.testkit.RedisNodes fresh = dev.redlock.testkit.RedisNodes.start(3)) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            RedlockAutoConfiguration.class, RedlockHealthContributorAutoConfiguration.class))
                    .withPropertyValues(TestNodes.properties(fresh.uris()))
                    .withPropertyValues("redlock.restart-quarantine=true", "redlock.lease-time=30s")
                    .run(context -> {
                        RedlockHealthIndicator indicator =
                                context.getBean("redlockHealthIndicator", RedlockHealthIndicator.class);
                        Health health = await().atMost(Duration.ofSeconds(5))
                                .until(
                                        indicator::health,
                                        h -> Integer.valueOf(3)
                                                .equals(h.getDetails().get("reachable")));
                        assertThat(health.getStatus()).isEqualTo(Status.UP);
                        assertThat(health.getDetails())
                                .containsEntry("reachable", 3)
                                .containsEntry("voting", 0)
                                .containsEntry("quorum", 2);
                        assertThat(nodes(health))
                                .allSatisfy((name, node) -> assertThat(String.valueOf(node.get("restartProtection")))
                                        .contains("restart protection: its votes count again in about"));
                    });
        }
    }

    @Test
    void topologyWarningsAreDetailsAndLeaveTheStatusAlone() {
        // Four nodes: an even N is a topology warning.
        runner.withPropertyValues(
                        "redlock.nodes=" + String.join(",", REDIS.uris().subList(0, 4)))
                .run(context -> {
                    HealthIndicator indicator = context.getBean("redlockHealthIndicator", HealthIndicator.class);
                    Health health = await().atMost(Duration.ofSeconds(10))
                            .until(indicator::health, h -> h.getDetails().get("topology") instanceof Map);
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    Map<?, ?> topology = (Map<?, ?>) health.getDetails().get("topology");
                    assertThat(topology.get("checkedAt")).isNotNull();
                    assertThat((List<?>) topology.get("warnings"))
                            .anySatisfy(w -> assertThat(w.toString()).containsIgnoringCase("even"));
                    assertThat((List<?>) topology.get("failures")).isEmpty();
                });
    }

    @Test
    void topologyCheckCanBeTurnedOff() {
        runner.withPropertyValues("redlock.health.topology-check-interval=0")
                .run(context -> assertThat(context.getBean(RedlockHealthIndicator.class)
                                .health()
                                .getDetails())
                        .doesNotContainKey("topology"));
    }

    @Test
    void downOnceTheClientIsClosed() {
        runner.run(context -> {
            RedlockHealthIndicator indicator = context.getBean(RedlockHealthIndicator.class);
            context.getBean(RedlockClient.class).close();
            assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        });
    }

    @Test
    void noIndicatorWithoutActuator() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(RedlockClient.class)
                        .doesNotHaveBean(RedlockHealthIndicator.class)
                        .doesNotHaveBean("redlockHealthIndicator"));
    }

    @Test
    void noIndicatorWhenSwitchedOffOrReplaced() {
        runner.withPropertyValues("management.health.redlock.enabled=false")
                .run(context -> assertThat(context)
                        .hasSingleBean(RedlockClient.class)
                        .doesNotHaveBean(RedlockHealthIndicator.class));
        runner.withBean(
                        "redlockHealthIndicator",
                        HealthIndicator.class,
                        () -> () -> Health.unknown().build())
                .run(context -> assertThat(context)
                        .doesNotHaveBean(RedlockHealthIndicator.class)
                        .hasSingleBean(HealthIndicator.class));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> nodes(Health health) {
        return (Map<String, Map<String, Object>>) health.getDetails().get("nodes");
    }
}
