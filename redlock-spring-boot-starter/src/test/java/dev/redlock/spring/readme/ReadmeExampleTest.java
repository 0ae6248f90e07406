/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.redlock.RedlockClient;
import dev.redlock.spring.integration.RedlockLockRegistry;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Runs the README's example as a whole Spring Boot application (every auto-configuration on the classpath, the
 * starter's found through its {@code AutoConfiguration.imports}) with the README's {@code application.yml}, over five
 * real Redis masters. Only the node URIs, restart quarantine (the nodes were just started) and the per-node timeout
 * (a loaded test box) are overridden.
 */
class ReadmeExampleTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    @Test
    void theExampleRuns() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ReadmeExampleApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(
                        "--spring.config.location=classpath:readme-example/application.yml",
                        "--redlock.nodes=" + String.join(",", REDIS.uris()),
                        "--redlock.restart-quarantine=false",
                        "--redlock.per-node-timeout=200ms")) {
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(RedlockLockRegistry.class);
            assertThat(((RedlockLockRegistry) context.getBean(LockRegistry.class)).getLeaseTime())
                    .isEqualTo(Duration.ofSeconds(10));
            assertThat(context.getBean(RedlockClient.class).config().leaseTime())
                    .isEqualTo(Duration.ofSeconds(30));

            OrderService orders = context.getBean(OrderService.class);
            assertThat(orders.ship("42")).isTrue();
            assertThat(orders.rebuildCatalog()).isEqualTo("rebuilt");

            Leadership leadership = context.getBean(Leadership.class);
            await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
            assertThat(context.getBean(RedlockClient.class).isLocked("report-scheduler"))
                    .isTrue();

            var health = context.getBean(HealthEndpoint.class).healthForPath("redlock");
            assertThat(health.getStatus()).isEqualTo(Status.UP);
        }
    }
}
