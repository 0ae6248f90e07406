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
import dev.redlock.internal.engine.Round;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The node contract for the non-blocking client every plain-TCP node uses. */
class NioNodeClientTest extends NodeClientContractTest {

    private NioLoop loop;

    @Override
    NodeClient newNode(NodeSpec spec, RedlockConfig config) {
        loop = new NioLoop("redlock-test-io", 10);
        NioNodeClient n = new NioNodeClient(spec, config, loop, new Quarantine(config));
        loop.start();
        n.start();
        return n;
    }

    @Override
    void afterClose() {
        loop.stop(5_000);
    }

    @Test
    void pipelinedRepliesCompleteTheirOwnCommands() {
        // Many commands in flight on one connection at once: each reply must reach its own command.
        long t1 = ticker.nanoTime();
        List<Round> rounds = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            Round round = new Round(NodeOp.Kind.ACQUIRE, List.of(node.name()), 1, t1, ticker);
            // Every third key is taken already, so the replies differ (OK vs nil) and a shift would show.
            if (i % 3 == 0) {
                server().set("k" + i, "someone");
            }
            node.submit(round.op(0, "k" + i, "t" + i, 10_000, t1 + TIMEOUT_NANOS * 10));
            round.endSubmit();
            rounds.add(round);
        }
        for (int i = 0; i < rounds.size(); i++) {
            Round r = rounds.get(i);
            r.allAnswered().join();
            NodeStatus expected = i % 3 == 0 ? NodeStatus.TAKEN : NodeStatus.GRANTED;
            assertEquals(expected, r.outcomesNow().get(0).status(), "command " + i);
        }
        assertEquals("t1", server().get("k1"));
        assertEquals("someone", server().get("k0"));
        assertTrue(((NioNodeClient) node).circuitState().toString().equals("CLOSED"));
        NodeOutcome released = call(NodeOp.Kind.RELEASE, "k1", "t1", 0);
        assertEquals(NodeStatus.RELEASED, released.status(), released::toString);
    }
}
