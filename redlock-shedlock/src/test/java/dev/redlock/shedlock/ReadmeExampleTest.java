/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * The code of the README's ShedLock section, compiled and run: {@link #nightlyReport} (plain ShedLock) and
 * {@link SchedulerLockConfig} (Spring), each exactly as the README shows it.
 *
 * <p>The Spring test checks the wiring only: its client has the default settings, so restart protection keeps the
 * votes of nodes started moments ago out of every quorum (for the longest lease in use), and a lock taken through it
 * here would fail with {@code LockException}, as it should.
 */
class ReadmeExampleTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(Nodes.SIZE);

    /** The README's plain ShedLock example. */
    static void nightlyReport(RedlockClient client, Runnable report) {
        LockProvider lockProvider = new RedlockLockProvider(client); // never closes the client
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(lockProvider);

        executor.executeWithLock(
                report,
                new LockConfiguration(
                        ClockProvider.now(),
                        "nightly-report",
                        Duration.ofMinutes(10), // lockAtMostFor: the keys' TTL, should this instance die mid-run
                        Duration.ofSeconds(30))); // lockAtLeastFor: other instances skip the job for 30 s at least
    }

    /** The README's Spring example. */
    @Configuration
    static class SchedulerLockConfig {

        @Bean(destroyMethod = "close")
        RedlockClient redlockClient(@Value("${redlock.nodes}") String[] nodes) {
            return RedlockClient.create(RedlockConfig.builder().nodes(nodes).build());
        }

        @Bean
        LockProvider lockProvider(RedlockClient redlockClient) {
            return new RedlockLockProvider(redlockClient);
        }
    }

    @Test
    void thePlainExampleRunsTheJobOnceAcrossInstancesAndKeepsItForLockAtLeastFor() {
        AtomicInteger runs = new AtomicInteger();
        try (RedlockClient one = RedlockClient.create(
                        Nodes.config(REDIS, Duration.ofMillis(500)).build());
                RedlockClient two = RedlockClient.create(
                        Nodes.config(REDIS, Duration.ofMillis(500)).build())) {
            nightlyReport(one, runs::incrementAndGet);
            nightlyReport(two, runs::incrementAndGet);
            nightlyReport(one, runs::incrementAndGet);
            assertEquals(1, runs.get(), "lockAtLeastFor keeps the others out after the run");
            assertTrue(one.isLocked("shedlock:nightly-report"));
            assertFalse(one.isClosed());
        }
    }

    @Test
    void theSpringExampleExposesTheProviderAndClosesTheClientWithTheContext() {
        RedlockClient client;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource("test", Map.of("redlock.nodes", String.join(",", REDIS.uris()))));
            context.register(SchedulerLockConfig.class);
            context.refresh();

            assertInstanceOf(RedlockLockProvider.class, context.getBean(LockProvider.class));
            client = context.getBean(RedlockClient.class);
            assertEquals(REDIS.uris().size(), client.nodeNames().size());
            assertFalse(client.isClosed());
        }
        assertTrue(client.isClosed(), "Spring closed the client; the provider did not need to");
    }
}
