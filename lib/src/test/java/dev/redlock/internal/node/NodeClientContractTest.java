/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.internal.engine.Round;
import dev.redlock.internal.script.LuaScript;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One node's I/O path against a real redis-server: timeouts, stale replies, NOSCRIPT. Run for both clients. */
abstract class NodeClientContractTest {

    private static RedisServer server;
    NodeClient node;
    final Ticker ticker = Ticker.system();
    static final long TIMEOUT_NANOS = Duration.ofMillis(200).toNanos();

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void connect() {
        if (server.isPaused()) {
            server.resume();
        }
        server.flushAll();
        RedlockConfig config = RedlockConfig.builder()
                .nodes(server.uri())
                .perNodeTimeout(Duration.ofMillis(200))
                .restartQuarantine(false)
                .build();
        node = newNode(NodeSpec.parse("nodes[0]", server.uri()), config);
    }

    @AfterEach
    void close() {
        node.close();
        afterClose();
    }

    /** A started node client for {@code spec}. */
    abstract NodeClient newNode(NodeSpec spec, RedlockConfig config);

    void afterClose() {}

    static RedisServer server() {
        return server;
    }

    /** Sends one op and waits for its answer or the per-node timeout, as a round would. */
    NodeOutcome call(NodeOp.Kind kind, String key, String token, long ttlMillis) {
        long t1 = ticker.nanoTime();
        CompletableFuture<Round> decided = new CompletableFuture<>();
        Round round = new Round(kind, List.of(node.name()), 1, t1, ticker)
                .dueAt(t1 + TIMEOUT_NANOS)
                .listener(decided::complete);
        node.submit(round.op(0, key, token, ttlMillis, t1 + TIMEOUT_NANOS));
        round.endSubmit();
        round.join(decided);
        return round.outcomesAtDecision().get(0);
    }

    @Test
    void timedOutConnectionIsNeverReused() {
        server.set("foreign", "someone-else");
        server.pause();
        // The release script on "foreign" would answer -1 once the node runs again; it must never be read as the
        // answer to a later command.
        assertEquals(
                NodeStatus.TIMEOUT,
                call(NodeOp.Kind.RELEASE, "foreign", "t0", 0).status());
        server.resume();

        NodeOutcome acquired = call(NodeOp.Kind.ACQUIRE, "fresh", "t1", 10_000);
        assertEquals(NodeStatus.GRANTED, acquired.status(), acquired::toString);
        assertEquals("t1", server.get("fresh"));
        NodeOutcome released = call(NodeOp.Kind.RELEASE, "fresh", "t1", 0);
        assertEquals(NodeStatus.RELEASED, released.status(), released::toString);
        assertEquals("someone-else", server.get("foreign"));
    }

    @Test
    void scriptsRunBySha1WithEvalFallback() {
        assertEquals(
                NodeStatus.GRANTED, call(NodeOp.Kind.ACQUIRE, "k", "t", 10_000).status());
        server.scriptFlush();
        assertEquals(
                NodeStatus.GRANTED, call(NodeOp.Kind.EXTEND, "k", "t", 20_000).status());
        try (var jedis = server.client()) {
            assertTrue(jedis.pttl("k") > 10_000);
            assertTrue(jedis.scriptExists(LuaScript.EXTEND.sha1()), "EVAL cached the script again");
        }
        assertEquals(
                NodeStatus.OWNED_BY_ANOTHER,
                call(NodeOp.Kind.RELEASE, "k", "other", 0).status());
        assertEquals(NodeStatus.RELEASED, call(NodeOp.Kind.RELEASE, "k", "t", 0).status());
        assertEquals(
                NodeStatus.ALREADY_EXPIRED,
                call(NodeOp.Kind.RELEASE, "k", "t", 0).status());
        assertEquals(
                NodeStatus.ALREADY_EXPIRED,
                call(NodeOp.Kind.EXTEND, "k", "t", 20_000).status());
        assertEquals(null, server.get("k"), "extend never recreates a key");
    }

    @Test
    void unreachableNodeAnswersWithItsCause() {
        server.pause();
        NodeOutcome o = call(NodeOp.Kind.ACQUIRE, "k", "t", 10_000);
        assertEquals(NodeStatus.TIMEOUT, o.status());
        assertTrue(o.error().isPresent());
        server.resume();
    }
}
