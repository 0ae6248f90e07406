/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import java.time.Duration;
import java.util.List;

/**
 * Settings shared by the tests that run against real redis-server processes: generous timeouts for a loaded box,
 * short retry delays so contended tests run fast, and restart quarantine off because the nodes were started moments
 * ago.
 */
public final class TestNodes {

    private TestNodes() {}

    /**
     * The test settings as {@code redlock.*} properties, for a context runner or an application.
     *
     * @param uris the node URIs
     * @return {@code key=value} pairs
     */
    public static String[] properties(List<String> uris) {
        return new String[] {
            "redlock.nodes=" + String.join(",", uris),
            "redlock.restart-quarantine=false",
            "redlock.per-node-timeout=200ms",
            "redlock.retry-delay=5ms",
            "redlock.lease-time=10s",
            "redlock.wait-budget=10s",
        };
    }

    /**
     * The test settings as a builder.
     *
     * @param uris the node URIs
     * @return a builder
     */
    public static RedlockConfig.Builder config(List<String> uris) {
        return RedlockConfig.builder()
                .nodes(uris)
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .retryDelay(Duration.ofMillis(5))
                .leaseTime(Duration.ofSeconds(10))
                .waitBudget(Duration.ofSeconds(10));
    }

    /**
     * A client with the test settings.
     *
     * @param uris the node URIs
     * @return a new client; the caller closes it
     */
    public static RedlockClient client(List<String> uris) {
        return RedlockClient.create(config(uris).build());
    }
}
