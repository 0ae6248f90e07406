/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisBinary;
import dev.redlock.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The servers the tests start are the Redis this run asks for: {@code redlock.redis.version} where the build sets it
 * (the Redis 6.2 run), else the test kit's bundled {@value RedisBinary#VERSION} unless an explicit binary was named.
 * A run that meant to test another Redis but started the usual one fails here, whatever the test kit did.
 */
class RedisVersionTest {

    @Test
    void theServersAreTheRedisThisRunAsksFor() {
        String asked = System.getProperty(RedisBinary.VERSION_PROPERTY);
        boolean explicit =
                isSet(System.getenv(RedisBinary.ENV_VAR)) || isSet(System.getProperty(RedisBinary.SYSTEM_PROPERTY));
        String expected = isSet(asked) ? asked : explicit ? null : RedisBinary.VERSION;
        String actual;
        try (RedisServer server = RedisServer.start();
                Jedis jedis = server.client()) {
            actual = versionIn(jedis.info("server"));
        }
        System.out.println("redis-server " + actual + " (" + RedisBinary.resolve() + ")");
        if (expected != null) {
            assertTrue(
                    actual.equals(expected) || actual.startsWith(expected + "."),
                    () -> "this run asks for Redis " + expected + " but the test kit started " + actual);
        }
    }

    private static String versionIn(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        throw new AssertionError("INFO server has no redis_version: " + info);
    }

    private static boolean isSet(String s) {
        return s != null && !s.isBlank();
    }
}
