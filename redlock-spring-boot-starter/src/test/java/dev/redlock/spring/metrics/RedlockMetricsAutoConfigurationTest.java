/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.redlock.RedlockClient;
import dev.redlock.micrometer.RedlockMetrics;
import dev.redlock.spring.RedlockAutoConfiguration;
import dev.redlock.spring.TestNodes;
import dev.redlock.testkit.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Meters in a real context over five real Redis masters, and their absence without a registry or Micrometer. */
class RedlockMetricsAutoConfigurationTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(RedlockAutoConfiguration.class, RedlockMetricsAutoConfiguration.class))
            .withPropertyValues(TestNodes.properties(REDIS.uris()));

    @Test
    void theClientIsMeteredWhenTheApplicationHasARegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(RedlockMetrics.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            RedlockClient client = context.getBean(RedlockClient.class);
            client.redLock("metered").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(registry.get(RedlockMetrics.ACQUIRE)
                            .tags("kind", "redlock", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(RedlockMetrics.ACTIVE).gauge().value()).isEqualTo(1.0);
            assertThat(registry.get(RedlockMetrics.WATCHED).gauge().value()).isEqualTo(1.0);
        });
    }

    @Test
    void noMetersWithoutARegistryOrWithoutMicrometer() {
        runner.run(context -> assertThat(context).doesNotHaveBean(RedlockMetrics.class));
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withClassLoader(new FilteredClassLoader(RedlockMetrics.class))
                .run(context -> assertThat(context).doesNotHaveBean(RedlockMetrics.class));
    }
}
