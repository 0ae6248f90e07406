/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's Micrometer example, as written there. */
class ReadmeExampleTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(3);

    @Test
    void theExampleBindsTheMeters() {
        MeterRegistry meterRegistry = new SimpleMeterRegistry();
        List<String> uris = REDIS.uris();

        RedlockMetrics metrics = new RedlockMetrics(meterRegistry);
        RedlockClient client = RedlockClient.create(
                RedlockConfig.builder().nodes(uris).listener(metrics).build());
        metrics.bindTo(client);

        try (client) {
            assertEquals(0.0, meterRegistry.get(RedlockMetrics.ACTIVE).gauge().value());
        }
    }
}
