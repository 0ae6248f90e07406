/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisNodesExtensionTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(3);

    @Test
    @Order(1)
    void injectFaults() {
        assertEquals(3, REDIS.nodes().size());
        assertEquals(3, REDIS.uris().stream().distinct().count());
        REDIS.nodes().servers().forEach(s -> s.set("leftover", "x"));
        REDIS.node(0).kill();
        REDIS.node(1).pause();
    }

    @Test
    @Order(2)
    void nextTestStartsHealedAndEmpty() {
        for (RedisServer server : REDIS.nodes().servers()) {
            assertTrue(server.isRunning(), server::toString);
            assertFalse(server.isPaused(), server::toString);
            assertFalse(server.exists("leftover"), server::toString);
        }
    }
}
