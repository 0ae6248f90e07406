package dev.redlock.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One node's I/O path against a real redis-server: timeouts, stale replies, NOSCRIPT. */
class JedisNodeClientTest {

    private static RedisServer server;
    private JedisNodeClient node;
    private final Ticker ticker = Ticker.system();
    private static final long TIMEOUT_NANOS = Duration.ofMillis(200).toNanos();

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
        RedlockConfig config = RedlockConfig.builder().nodes(server.uri())
                .perNodeTimeout(Duration.ofMillis(200)).build();
        node = new JedisNodeClient(NodeSpec.parse("nodes[0]", server.uri()), config, "redlock-test-node");
        node.start();
    }

    @AfterEach
    void close() {
        node.close();
    }

    /** Sends one op and waits for its answer or the per-node timeout, as a round would. */
    private NodeOutcome call(NodeOp.Kind kind, String key, String token, long ttlMillis) {
        long t1 = ticker.nanoTime();
        Round round = new Round(kind, List.of(node.name()), 1, t1, ticker).waitingThread(Thread.currentThread());
        node.submit(round.op(0, key, token, ttlMillis, t1 + TIMEOUT_NANOS));
        round.endSubmit();
        round.await(t1 + TIMEOUT_NANOS);
        return round.outcomesAtDecision().get(0);
    }

    @Test
    void timedOutConnectionIsNeverReused() {
        server.set("foreign", "someone-else");
        server.pause();
        // The release script on "foreign" would answer -1 once the node runs again; it must never be read as the
        // answer to a later command.
        assertEquals(NodeStatus.TIMEOUT, call(NodeOp.Kind.RELEASE, "foreign", "t0", 0).status());
        server.resume();

        NodeOutcome acquired = call(NodeOp.Kind.ACQUIRE, "fresh", "t1", 10_000);
        assertEquals(NodeStatus.GRANTED, acquired.status(), acquired::toString);
        assertEquals("t1", server.get("fresh"));
        NodeOutcome released = call(NodeOp.Kind.RELEASE, "fresh", "t1", 0);
        assertEquals(NodeStatus.RELEASED, released.status(), released::toString);
        assertEquals("someone-else", server.get("foreign"));
    }

    @Test
    void opsQueuedPastTheirDeadlineAreNotSent() {
        server.pause();
        long t1 = ticker.nanoTime();
        // k1 goes out at once and blocks the I/O thread in a read for up to the 200 ms socket timeout.
        Round first = new Round(NodeOp.Kind.ACQUIRE, List.of(node.name()), 1, t1, ticker);
        node.submit(first.op(0, "k1", "t1", 10_000, t1 + TIMEOUT_NANOS));
        first.endSubmit();
        await().atMost(Duration.ofSeconds(5)).until(() -> node.queued() == 0);
        // k2 queues behind it with a 20 ms deadline, which passes long before the I/O thread is free again.
        long t2 = ticker.nanoTime();
        long shortDeadline = t2 + Duration.ofMillis(20).toNanos();
        Round second = new Round(NodeOp.Kind.ACQUIRE, List.of(node.name()), 1, t2, ticker)
                .waitingThread(Thread.currentThread());
        CompletableFuture<Round> answered = second.allAnswered();
        node.submit(second.op(0, "k2", "t2", 10_000, shortDeadline));
        second.endSubmit();
        second.await(shortDeadline);
        assertEquals(NodeStatus.TIMEOUT, second.outcomesAtDecision().get(0).status());

        // The I/O thread answers k2 itself once it gets to it: not sent.
        NodeOutcome dropped = answered.join().outcomesNow().get(0);
        assertEquals(NodeStatus.TIMEOUT, dropped.status());
        assertTrue(dropped.error().orElseThrow().getMessage().startsWith("not sent"), dropped::toString);
        server.resume();
        assertEquals(NodeStatus.GRANTED, call(NodeOp.Kind.ACQUIRE, "k3", "t3", 10_000).status());
        assertEquals(null, server.get("k2"), "a late acquire is dropped, not sent");
    }

    @Test
    void scriptsRunBySha1WithEvalFallback() {
        assertEquals(NodeStatus.GRANTED, call(NodeOp.Kind.ACQUIRE, "k", "t", 10_000).status());
        server.scriptFlush();
        assertEquals(NodeStatus.GRANTED, call(NodeOp.Kind.EXTEND, "k", "t", 20_000).status());
        try (var jedis = server.client()) {
            assertTrue(jedis.pttl("k") > 10_000);
            assertTrue(jedis.scriptExists(LuaScript.EXTEND.sha1()), "EVAL cached the script again");
        }
        assertEquals(NodeStatus.OWNED_BY_ANOTHER, call(NodeOp.Kind.RELEASE, "k", "other", 0).status());
        assertEquals(NodeStatus.RELEASED, call(NodeOp.Kind.RELEASE, "k", "t", 0).status());
        assertEquals(NodeStatus.ALREADY_EXPIRED, call(NodeOp.Kind.RELEASE, "k", "t", 0).status());
        assertEquals(NodeStatus.ALREADY_EXPIRED, call(NodeOp.Kind.EXTEND, "k", "t", 20_000).status());
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
