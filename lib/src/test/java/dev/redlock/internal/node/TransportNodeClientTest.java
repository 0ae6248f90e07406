/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.internal.engine.Round;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The node contract for a node reached through a user's transport, plus its own queueing rule. */
class TransportNodeClientTest extends NodeClientContractTest {

    private TestTransport transport;

    @Override
    NodeClient newNode(NodeSpec spec, RedlockConfig config) {
        // The per-node timeout as the transport's socket timeout, as the library's documentation asks.
        transport = new TestTransport(spec.host(), spec.port(), 200);
        NodeSpec mine = NodeSpec.ofTransport("nodes[0]", spec.name(), transport);
        TransportNodeClient n = new TransportNodeClient(mine, config, "redlock-test-node", new Quarantine(config));
        n.start();
        return n;
    }

    @Override
    void afterClose() {
        transport.close();
    }

    @Test
    void opsQueuedPastTheirDeadlineAreNotSent() {
        server().pause();
        long t1 = ticker.nanoTime();
        // k1 goes out at once and blocks the I/O thread in a read for up to the 200 ms socket timeout.
        Round first = new Round(NodeOp.Kind.ACQUIRE, List.of(node.name()), 1, t1, ticker);
        node.submit(first.op(0, "k1", "t1", 10_000, t1 + TIMEOUT_NANOS));
        first.endSubmit();
        await().atMost(Duration.ofSeconds(5)).until(() -> ((TransportNodeClient) node).queued() == 0);
        // k2 queues behind it with a 20 ms deadline, which passes long before the I/O thread is free again.
        long t2 = ticker.nanoTime();
        long shortDeadline = t2 + Duration.ofMillis(20).toNanos();
        CompletableFuture<Round> decided = new CompletableFuture<>();
        Round second = new Round(NodeOp.Kind.ACQUIRE, List.of(node.name()), 1, t2, ticker)
                .dueAt(shortDeadline)
                .listener(decided::complete);
        CompletableFuture<Round> answered = second.allAnswered();
        node.submit(second.op(0, "k2", "t2", 10_000, shortDeadline));
        second.endSubmit();
        second.join(decided);
        assertEquals(NodeStatus.TIMEOUT, second.outcomesAtDecision().get(0).status());

        // The I/O thread answers k2 itself once it gets to it: not sent.
        NodeOutcome dropped = answered.join().outcomesNow().get(0);
        assertEquals(NodeStatus.TIMEOUT, dropped.status());
        assertTrue(dropped.error().orElseThrow().getMessage().startsWith("not sent"), dropped::toString);
        server().resume();
        assertEquals(
                NodeStatus.GRANTED,
                call(NodeOp.Kind.ACQUIRE, "k3", "t3", 10_000).status());
        assertEquals(null, server().get("k2"), "a late acquire is dropped, not sent");
    }
}
