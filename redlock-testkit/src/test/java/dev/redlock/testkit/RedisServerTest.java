/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

class RedisServerTest {

    @Test
    void killPauseResumeRestartClose() {
        long lastPid;
        try (RedisServer server = RedisServer.start()) {
            assertTrue(server.isRunning());
            assertEquals("redis://127.0.0.1:" + server.port(), server.uri());
            server.set("k", "v");
            assertEquals("v", server.get("k"));
            assertEquals(Set.of("k"), server.keys("*"));

            server.pause();
            assertTrue(server.isPaused());
            assertTrue(server.isRunning(), "a stopped process is still alive");
            try (Jedis client = server.client(Duration.ofMillis(200))) {
                JedisConnectionException e = assertThrows(JedisConnectionException.class, () -> client.get("k"));
                assertTrue(hasCause(e, SocketTimeoutException.class), () -> "expected a timeout: " + e);
            }

            server.resume();
            assertFalse(server.isPaused());
            assertEquals("v", server.get("k"));

            long firstPid = server.pid();
            server.kill();
            assertFalse(server.isRunning());
            JedisConnectionException refused = assertThrows(JedisConnectionException.class, () -> server.get("k"));
            assertTrue(hasCause(refused, ConnectException.class), () -> "expected refusal: " + refused);
            server.kill(); // idempotent

            int port = server.port();
            server.restart();
            assertTrue(server.isRunning());
            assertEquals(port, server.port());
            assertNotEquals(firstPid, server.pid());
            assertFalse(server.exists("k"), "no persistence by default");
            assertNull(server.get("k"));

            server.pause(); // close() must also clean up a paused server
            lastPid = server.pid();
        }
        assertFalse(ProcessHandle.of(lastPid).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void restartKeepsDataWithAppendOnlyFile() {
        try (RedisServer server = RedisServer.start(List.of("--appendonly", "yes", "--appendfsync", "always"))) {
            server.set("durable", "yes");
            server.kill();
            server.restart();
            assertEquals("yes", server.get("durable"));
        }
    }

    @Test
    void closeIsIdempotent() {
        RedisServer server = RedisServer.start();
        server.close();
        server.close();
        assertFalse(server.isRunning());
        assertThrows(IllegalStateException.class, server::restart);
    }

    /** Searches causes and suppressed exceptions: Jedis reports refused connects as suppressed. */
    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        if (t == null) {
            return false;
        }
        if (type.isInstance(t) || hasCause(t.getCause(), type)) {
            return true;
        }
        for (Throwable s : t.getSuppressed()) {
            if (hasCause(s, type)) {
                return true;
            }
        }
        return false;
    }
}
