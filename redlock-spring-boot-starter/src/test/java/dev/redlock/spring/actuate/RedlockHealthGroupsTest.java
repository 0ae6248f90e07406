/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.redlock.spring.TestNodes;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.CompositeHealth;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.HealthEndpointGroups;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's probe groups in a whole Spring Boot application over five real Redis masters: the {@code redlock}
 * indicator in the readiness group only, so losing the quorum takes the instance out of traffic but never fails its
 * liveness probe (which would restart it, and every other instance with it, without bringing a node back). The
 * groups are read through Actuator's {@link HealthEndpointGroups} and {@link HealthEndpoint} beans; no web server is
 * needed.
 */
class RedlockHealthGroupsTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    /** An application with nothing of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @Test
    void redlockIsInTheReadinessGroupAndNotInLiveness() {
        List<String> args = new ArrayList<>();
        for (String p : TestNodes.properties(REDIS.uris())) {
            args.add("--" + p);
        }
        args.add("--redlock.circuit-open-duration=200ms");
        args.add("--management.endpoint.health.probes.enabled=true");
        args.add("--management.endpoint.health.group.readiness.include=readinessState,redlock");
        args.add("--management.endpoint.health.group.liveness.include=livenessState");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .run(args.toArray(new String[0]))) {
            HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
            assertThat(groups.get("readiness").isMember("redlock")).isTrue();
            assertThat(groups.get("liveness").isMember("redlock")).isFalse();
            assertThat(groups.getPrimary().isMember("redlock")).isTrue();

            HealthEndpoint health = context.getBean(HealthEndpoint.class);
            HealthComponent readiness = health.healthForPath("readiness");
            assertThat(readiness.getStatus()).isEqualTo(Status.UP);
            assertThat(components(readiness)).containsExactlyInAnyOrder("readinessState", "redlock");
            HealthComponent liveness = health.healthForPath("liveness");
            assertThat(liveness.getStatus()).isEqualTo(Status.UP);
            assertThat(components(liveness)).containsExactly("livenessState");

            for (int i = 0; i < 3; i++) {
                REDIS.node(i).kill();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            Status.DOWN.equals(health.healthForPath("readiness").getStatus()));
            assertThat(health.healthForPath("readiness", "redlock").getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.healthForPath("liveness").getStatus()).isEqualTo(Status.UP);
        }
    }

    private static List<String> components(HealthComponent health) {
        assertThat(health).isInstanceOf(CompositeHealth.class);
        return new ArrayList<>(((CompositeHealth) health).getComponents().keySet());
    }
}
