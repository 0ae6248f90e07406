/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.redlock.AcquireResult;
import dev.redlock.LockKind;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import dev.redlock.spring.actuate.RedlockHealthContributorAutoConfiguration;
import dev.redlock.spring.actuate.RedlockHealthIndicator;
import dev.redlock.spring.integration.RedlockIntegrationAutoConfiguration;
import dev.redlock.spring.integration.RedlockLockRegistry;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The auto-configuration in real application contexts over five real Redis masters: the properties bind to every
 * builder setting, the client bean is built, customized and closed with the context, and each bean backs off when
 * the application brings its own or the feature's library is absent.
 */
class RedlockAutoConfigurationTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    RedlockAutoConfiguration.class,
                    RedlockHealthContributorAutoConfiguration.class,
                    RedlockIntegrationAutoConfiguration.class));

    private ApplicationContextRunner withNodes() {
        return runner.withPropertyValues(TestNodes.properties(REDIS.uris()));
    }

    @Test
    void aSentinelUriBindsAsOneNodeCommaSeparatedOrAsAList() {
        List<String> uris = REDIS.uris();
        String sentinel = "redis-sentinel://127.0.0.1:1,127.0.0.1:2/orders";
        List<String> expected = List.of(
                "orders(127.0.0.1:1)",
                uris.get(0).substring("redis://".length()),
                uris.get(1).substring("redis://".length()));
        runner.withPropertyValues(
                        "redlock.nodes=" + sentinel + "," + uris.get(0) + "," + uris.get(1),
                        "redlock.restart-quarantine=false")
                .run(context -> assertThat(context.getBean(RedlockClient.class).nodeNames())
                        .isEqualTo(expected));
        runner.withPropertyValues(
                        "redlock.nodes[0]=" + sentinel,
                        "redlock.nodes[1]=" + uris.get(0),
                        "redlock.nodes[2]=" + uris.get(1),
                        "redlock.restart-quarantine=false")
                .run(context -> assertThat(context.getBean(RedlockClient.class).nodeNames())
                        .isEqualTo(expected));
    }

    @Test
    void aClusterUriBindsAsTheWholeQuorumCommaSeparated() {
        try (dev.redlock.testkit.RedisClusterGroup cluster = dev.redlock.testkit.RedisClusterGroup.start(3, 0)) {
            String seeds = cluster.seedUri(); // redis-cluster://a:1,b:2,c:3/
            runner.withPropertyValues("redlock.nodes=" + seeds, "redlock.restart-quarantine=false")
                    .run(context -> assertThat(
                                    context.getBean(RedlockClient.class).nodeNames())
                            .hasSize(3)
                            .allMatch(n -> n.startsWith(
                                    "cluster(" + cluster.seedAddresses().get(0) + ")/slot-")));
        }
    }

    @Test
    void everyPropertyBindsToTheClientConfiguration() {
        List<String> uris = REDIS.uris();
        String firstNode = uris.get(0).substring("redis://".length());
        runner.withPropertyValues(
                        "redlock.nodes=" + String.join(",", uris),
                        "redlock.per-node-timeout=150ms",
                        "redlock.connect-timeout=2s",
                        "redlock.lease-time=20s",
                        "redlock.drift-factor=0.02",
                        "redlock.min-validity=5ms",
                        "redlock.wait-budget=3s",
                        "redlock.retry-delay=7ms",
                        "redlock.retry-jitter=0.25",
                        "redlock.circuit-open-duration=3s",
                        "redlock.key-prefix=app:",
                        "redlock.max-hold-time=1h",
                        "redlock.max-failed-extensions=4",
                        "redlock.restart-quarantine=false",
                        "redlock.trust-persistent-nodes=true",
                        "redlock.identity-check-interval=30s",
                        "redlock.max-reply-bytes=128KB",
                        "redlock.release-notifications=false",
                        "redlock.nodes-per-lock=3",
                        "redlock.check-topology=false",
                        "redlock.strict-topology=true",
                        "redlock.unverified-identity=" + firstNode,
                        "redlock.integration.lease-time=4s")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedlockClient.class);
                    RedlockConfig config = context.getBean(RedlockClient.class).config();
                    assertThat(config.nodeNames()).hasSize(5).first().isEqualTo(firstNode);
                    assertThat(config.perNodeTimeout()).isEqualTo(Duration.ofMillis(150));
                    assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(config.driftFactor()).isEqualTo(0.02);
                    assertThat(config.minValidity()).isEqualTo(Duration.ofMillis(5));
                    assertThat(config.waitBudget()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(config.retryDelay()).isEqualTo(Duration.ofMillis(7));
                    assertThat(config.retryJitter()).isEqualTo(0.25);
                    assertThat(config.circuitOpenDuration()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(config.keyPrefix()).isEqualTo("app:");
                    assertThat(config.maxHoldTime()).isEqualTo(Duration.ofHours(1));
                    assertThat(config.maxFailedExtensions()).isEqualTo(4);
                    assertThat(config.restartQuarantine()).isFalse();
                    assertThat(config.trustPersistentNodes()).isTrue();
                    assertThat(config.identityCheckInterval()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(config.maxReplyBytes()).isEqualTo(128 * 1024);
                    assertThat(config.releaseNotifications()).isFalse();
                    assertThat(config.nodesPerLock()).isEqualTo(3);
                    assertThat(context.getBean(RedlockClient.class).nodeNamesOf("orders"))
                            .hasSize(3);
                    assertThat(config.checkTopology()).isFalse();
                    assertThat(config.strictTopology()).isTrue();
                    assertThat(config.unverifiedIdentityNodes()).containsExactly(firstNode);
                    assertThat(context.getBean(RedlockLockRegistry.class).getLeaseTime())
                            .isEqualTo(Duration.ofSeconds(4));
                });
    }

    @Test
    void defaultsAreTheLibrarysDefaults() {
        RedlockConfig fromProperties =
                new RedlockProperties().toConfigBuilder().nodes(REDIS.uris()).build();
        RedlockConfig library = RedlockConfig.builder().nodes(REDIS.uris()).build();
        assertThat(fromProperties.perNodeTimeout()).isEqualTo(library.perNodeTimeout());
        assertThat(fromProperties.connectTimeout()).isEqualTo(library.connectTimeout());
        assertThat(fromProperties.leaseTime()).isEqualTo(library.leaseTime());
        assertThat(fromProperties.driftFactor()).isEqualTo(library.driftFactor());
        assertThat(fromProperties.minValidity()).isEqualTo(library.minValidity());
        assertThat(fromProperties.waitBudget()).isEqualTo(library.waitBudget());
        assertThat(fromProperties.retryDelay()).isEqualTo(library.retryDelay());
        assertThat(fromProperties.retryJitter()).isEqualTo(library.retryJitter());
        assertThat(fromProperties.circuitOpenDuration()).isEqualTo(library.circuitOpenDuration());
        assertThat(fromProperties.keyPrefix()).isEqualTo(library.keyPrefix());
        assertThat(fromProperties.maxHoldTime()).isEqualTo(library.maxHoldTime());
        assertThat(fromProperties.maxFailedExtensions()).isEqualTo(library.maxFailedExtensions());
        assertThat(fromProperties.restartQuarantine()).isEqualTo(library.restartQuarantine());
        assertThat(fromProperties.trustPersistentNodes()).isEqualTo(library.trustPersistentNodes());
        assertThat(fromProperties.identityCheckInterval()).isEqualTo(library.identityCheckInterval());
        assertThat(fromProperties.maxReplyBytes()).isEqualTo(library.maxReplyBytes());
        assertThat(fromProperties.releaseNotifications()).isEqualTo(library.releaseNotifications());
        assertThat(fromProperties.nodesPerLock()).isEqualTo(library.nodesPerLock());
        assertThat(fromProperties.checkTopology()).isEqualTo(library.checkTopology());
        assertThat(fromProperties.strictTopology()).isEqualTo(library.strictTopology());
        assertThat(fromProperties.unverifiedIdentityNodes()).isEqualTo(library.unverifiedIdentityNodes());
    }

    @Test
    void theClientLocksAndIsClosedWithTheContext() {
        AtomicReference<RedlockClient> client = new AtomicReference<>();
        withNodes().run(context -> {
            assertThat(context)
                    .hasSingleBean(RedlockClient.class)
                    .hasSingleBean(RedlockLockRegistry.class)
                    .hasSingleBean(RedlockHealthIndicator.class);
            client.set(context.getBean(RedlockClient.class));
            assertThat(client.get().redLock("auto-config-smoke").tryAcquire(Duration.ofSeconds(2)))
                    .hasValueSatisfying(
                            lease -> assertThat(lease.release().released()).isGreaterThanOrEqualTo(3));
            assertThat(client.get().isClosed()).isFalse();
        });
        assertThat(client.get().isClosed()).isTrue();
    }

    @Test
    void listenerBeansAndCustomizersShapeTheClient() {
        withNodes().withUserConfiguration(CustomizingConfiguration.class).run(context -> {
            RedlockClient client = context.getBean(RedlockClient.class);
            CustomizingConfiguration user = context.getBean(CustomizingConfiguration.class);
            assertThat(client.config().keyPrefix()).isEqualTo("second:");
            assertThat(client.config().asyncExecutor()).isSameAs(CustomizingConfiguration.EXECUTOR);
            assertThat(client.config().listeners()).hasSize(1);
            assertThat(client.redLock("listened").tryAcquire(Duration.ofSeconds(2)))
                    .hasValueSatisfying(lease -> lease.release());
            assertThat(user.heard)
                    .singleElement()
                    .satisfies(result -> assertThat(result.acquired()).isTrue());
            assertThat(user.customizerOrder).containsExactly("first", "second");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesAClient() {
        withNodes().withUserConfiguration(UserClientConfiguration.class).run(context -> {
            assertThat(context).hasSingleBean(RedlockClient.class);
            RedlockClient client = context.getBean(RedlockClient.class);
            assertThat(client).isSameAs(context.getBean(UserClientConfiguration.class).client);
            assertThat(client.config().keyPrefix()).isEqualTo("user-bean:");
            // The registry and the health indicator use the application's client.
            assertThat(context.getBean(RedlockLockRegistry.class).getClient()).isSameAs(client);
            assertThat(context).hasSingleBean(RedlockHealthIndicator.class);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        withNodes()
                .withPropertyValues("redlock.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(RedlockClient.class)
                        .doesNotHaveBean(LockRegistry.class)
                        .doesNotHaveBean(RedlockHealthIndicator.class));
    }

    @Test
    void aBadSettingFailsTheContextNamingTheProperty() {
        withNodes()
                .withPropertyValues("redlock.per-node-timeout=20s", "redlock.lease-time=10s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalArgumentException.class);
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining(
                                    "invalid redlock configuration: redlock.per-node-timeout: must be below redlock.lease-time");
                });
        runner.withPropertyValues("redlock.nodes=redis://127.0.0.1:1,http://x")
                .run(context -> assertThat(context.getStartupFailure()).hasStackTraceContaining("redlock.nodes[1]: "));
        runner.run(context -> assertThat(context.getStartupFailure())
                .hasStackTraceContaining("redlock.nodes: at least 1 node is required"));
    }

    @Test
    void theRegistryBacksOffForTheApplicationsRegistryAndWithoutSpringIntegration() {
        withNodes()
                .withBean("userRegistry", LockRegistry.class, DefaultLockRegistry::new)
                .run(context -> assertThat(context)
                        .hasSingleBean(LockRegistry.class)
                        .doesNotHaveBean(RedlockLockRegistry.class));
        withNodes()
                .withPropertyValues("redlock.integration.enabled=false")
                .run(context ->
                        assertThat(context).hasSingleBean(RedlockClient.class).doesNotHaveBean(LockRegistry.class));
        withNodes()
                .withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(RedlockClient.class)
                        .doesNotHaveBean(RedlockLockRegistry.class));
    }

    @Test
    void theRegistryLeaseTimeDefaultsToTheClientsAndIsChecked() {
        withNodes()
                .run(context -> assertThat(
                                context.getBean(RedlockLockRegistry.class).getLeaseTime())
                        .isEqualTo(Duration.ofSeconds(10)));
        withNodes()
                .withPropertyValues("redlock.integration.lease-time=100ms")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("redlock.integration.lease-time: "));
    }

    @Test
    void everyAutoConfigurationIsRegistered() {
        Set<String> candidates = Set.copyOf(
                ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                        .getCandidates());
        assertThat(candidates)
                .contains(
                        RedlockAutoConfiguration.class.getName(),
                        RedlockHealthContributorAutoConfiguration.class.getName(),
                        RedlockIntegrationAutoConfiguration.class.getName());
    }

    /** Two customizers, in order, and a listener bean. */
    @Configuration(proxyBeanMethods = false)
    static class CustomizingConfiguration {

        static final Executor EXECUTOR = Runnable::run;

        final List<AcquireResult> heard = new CopyOnWriteArrayList<>();
        final List<String> customizerOrder = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        RedlockConfigCustomizer secondCustomizer() {
            return builder -> {
                customizerOrder.add("second");
                builder.keyPrefix("second:");
            };
        }

        @Bean
        @Order(1)
        RedlockConfigCustomizer firstCustomizer() {
            return builder -> {
                customizerOrder.add("first");
                builder.keyPrefix("first:").asyncExecutor(EXECUTOR);
            };
        }

        @Bean
        RedlockListener recordingListener() {
            return new RedlockListener() {
                @Override
                public void acquisitionEnded(LockKind kind, AcquireResult result, Duration elapsed) {
                    heard.add(result);
                }
            };
        }
    }

    /** The application's own client. */
    @Configuration(proxyBeanMethods = false)
    static class UserClientConfiguration {

        RedlockClient client;

        @Bean(destroyMethod = "close")
        RedlockClient userClient() {
            client = RedlockClient.create(
                    TestNodes.config(REDIS.uris()).keyPrefix("user-bean:").build());
            return client;
        }
    }
}
