/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.net;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultProxyTest {

    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration AWAIT = Duration.ofSeconds(5);

    private static RedisServer redis;
    private FaultProxy proxy;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void startProxy() {
        redis.flushAll();
        proxy = FaultProxy.start(redis.port());
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    @Test
    void forwardsCommandsBothWays() {
        assertEquals("redis://127.0.0.1:" + proxy.port(), proxy.uri());
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("OK", jedis.set("k", "v"));
            assertEquals("v", jedis.get("k"));
            assertEquals(1, proxy.openConnections());
        }
        assertEquals("v", redis.get("k"), "the write reached the real node");
        assertTrue(proxy.bytesForwarded() > 0);
        await().atMost(AWAIT).until(() -> proxy.openConnections() == 0);
    }

    @Test
    void latencyDelaysEachDirection() {
        try (Jedis jedis = client(Duration.ofSeconds(5))) {
            jedis.ping(); // connected before the delay is measured
            proxy.latency(Duration.ofMillis(100));
            long start = System.nanoTime();
            assertEquals("PONG", jedis.ping());
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(elapsedMillis >= 200, () -> "round trip took only " + elapsedMillis + " ms");

            // Pipelined commands still come back in order.
            var pipeline = jedis.pipelined();
            var responses = List.of(pipeline.set("a", "1"), pipeline.incr("a"), pipeline.get("a"));
            pipeline.sync();
            assertEquals("OK", responses.get(0).get());
            assertEquals(2L, responses.get(1).get());
            assertEquals("2", responses.get(2).get());

            proxy.latency(Duration.ZERO);
            assertEquals("PONG", jedis.ping());
        }
    }

    @Test
    void largeValuesSurviveLatency() {
        // Larger than socket buffers: exercises partial writes and waiting for OP_WRITE.
        String big = "x".repeat(4 * 1024 * 1024);
        try (Jedis jedis = client(Duration.ofSeconds(10))) {
            proxy.latency(Duration.ofMillis(20));
            assertEquals("OK", jedis.set("big", big));
            assertEquals(big, jedis.get("big"));
        }
        assertTrue(proxy.bytesForwarded() > 2L * big.length());
    }

    @Test
    void freezeStallsTrafficAndUnfreezeResumesIt() {
        redis.set("k", "v");
        try (Jedis jedis = client(Duration.ofMillis(300))) {
            assertEquals("v", jedis.get("k"));
            proxy.freeze();
            JedisConnectionException e = assertThrows(JedisConnectionException.class, () -> jedis.get("k"));
            assertTrue(hasCause(e, SocketTimeoutException.class), () -> "expected a timeout: " + e);
        }
        // A connection made while frozen is accepted but frozen too.
        try (Jedis jedis = client(Duration.ofMillis(300))) {
            JedisConnectionException e = assertThrows(JedisConnectionException.class, jedis::ping);
            assertTrue(hasCause(e, SocketTimeoutException.class), () -> "expected a timeout: " + e);
        }
        proxy.unfreeze();
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("v", jedis.get("k"));
        }
    }

    @Test
    void unfreezeDeliversWhatWasBuffered() throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", proxy.port()), 2_000);
            socket.setSoTimeout(300);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            proxy.freeze();
            out.write("PING\r\nECHO hello\r\n".getBytes(US_ASCII));
            out.flush();
            assertThrows(SocketTimeoutException.class, in::read, "nothing gets through while frozen");

            proxy.unfreeze();
            socket.setSoTimeout(2_000);
            assertEquals("+PONG\r\n$5\r\nhello\r\n", readAscii(in, 18));
        }
    }

    @Test
    void dropConnectionsResetsCurrentConnectionsOnly() {
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("PONG", jedis.ping());
            proxy.dropConnections();
            assertEquals(0, proxy.openConnections());
            assertThrows(JedisConnectionException.class, jedis::ping);
        }
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("PONG", jedis.ping());
        }
    }

    @Test
    void refuseConnectionsFailsFastUntilLifted() {
        try (Jedis existing = client(CLIENT_TIMEOUT)) {
            assertEquals("PONG", existing.ping());
            proxy.refuseConnections(true);
            assertEquals(0, proxy.openConnections());
            assertThrows(JedisConnectionException.class, existing::ping, "current connections dropped");
        }
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertNewConnectionFails(proxy);
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // Well under the 2 s client timeout: refused, not left hanging.
            assertTrue(elapsedMillis < 1_000, () -> "refusal took " + elapsedMillis + " ms");
        }
        int port = proxy.port();
        proxy.refuseConnections(false);
        assertEquals(port, proxy.port());
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("PONG", jedis.ping());
        }

        // heal() lifts every fault at once.
        proxy.latency(Duration.ofSeconds(30));
        proxy.freeze();
        proxy.refuseConnections(true);
        proxy.heal();
        try (Jedis jedis = client(CLIENT_TIMEOUT)) {
            assertEquals("PONG", jedis.ping());
        }
    }

    @Test
    void retargetSendsNewConnectionsToAnotherNode() {
        try (RedisServer other = RedisServer.start();
                Jedis before = client(CLIENT_TIMEOUT)) {
            other.set("where", "other");
            redis.set("where", "first");
            assertEquals("first", before.get("where"));

            proxy.retarget(other.port());
            assertThrows(JedisConnectionException.class, () -> before.get("where"));
            try (Jedis after = client(CLIENT_TIMEOUT)) {
                assertEquals("other", after.get("where"));
            }
        }
    }

    @Test
    void targetGoingAwayClosesTheClientButNotTheProxy() {
        try (RedisServer doomed = RedisServer.start()) {
            proxy.retarget(doomed.port());
            try (Jedis jedis = client(CLIENT_TIMEOUT)) {
                assertEquals("PONG", jedis.ping());
                doomed.kill();
                await().atMost(AWAIT).until(() -> proxy.openConnections() == 0);
                assertThrows(JedisConnectionException.class, jedis::ping);
            }
            // The target is down: the proxy accepts, fails to connect and resets the client.
            assertNewConnectionFails(proxy);
            doomed.restart();
            try (Jedis jedis = client(CLIENT_TIMEOUT)) {
                assertEquals("PONG", jedis.ping());
            }
        }
    }

    @Test
    void closeStopsTheThreadAndIsIdempotent() {
        FaultProxy other = FaultProxy.start(redis.port());
        Jedis jedis = client(other, CLIENT_TIMEOUT);
        try {
            assertEquals("PONG", jedis.ping());
            other.latency(Duration.ofMillis(50));
            other.freeze();
            other.close();
            other.close();
            proxy.close();
            List<String> alive = Thread.getAllStackTraces().keySet().stream()
                    .filter(Thread::isAlive)
                    .map(Thread::getName)
                    .filter(name -> name.startsWith("fault-proxy-"))
                    .collect(Collectors.toList());
            assertEquals(List.of(), alive);
            assertEquals(0, other.openConnections());
            assertThrows(JedisConnectionException.class, jedis::ping);
            assertThrows(IllegalStateException.class, other::freeze);
            assertNewConnectionFails(other);
        } finally {
            jedis.close();
        }
    }

    @Test
    void rejectsInvalidArguments() {
        assertThrows(IllegalArgumentException.class, () -> FaultProxy.start(0));
        assertThrows(IllegalArgumentException.class, () -> proxy.retarget(70_000));
        assertThrows(IllegalArgumentException.class, () -> proxy.latency(Duration.ofMillis(-1)));
    }

    /** Connecting or the first command must fail (Jedis connects in its constructor). */
    private static void assertNewConnectionFails(FaultProxy target) {
        assertThrows(JedisConnectionException.class, () -> {
            try (Jedis jedis = client(target, CLIENT_TIMEOUT)) {
                jedis.ping();
            }
        });
    }

    private Jedis client(Duration timeout) {
        return client(proxy, timeout);
    }

    private static Jedis client(FaultProxy target, Duration timeout) {
        int millis = Math.toIntExact(timeout.toMillis());
        // Same settings as RedisServer.client(): plain RESP2, no handshake commands on connect.
        return new ProxyClient(
                target.port(),
                DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(millis)
                        .socketTimeoutMillis(millis)
                        .autoNegotiateProtocol(false)
                        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                        .build());
    }

    /** A Jedis whose close() does not fail on a connection the proxy has broken on purpose. */
    private static final class ProxyClient extends Jedis {

        ProxyClient(int port, DefaultJedisClientConfig config) {
            super("127.0.0.1", port, config);
        }

        @Override
        public void close() {
            if (!getConnection().isBroken()) {
                super.close();
                return;
            }
            // Jedis.close() flushes the unsent command first, which throws on a reset socket.
            try {
                getConnection().forceDisconnect();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String readAscii(InputStream in, int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        return new String(bytes, US_ASCII);
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }
}
