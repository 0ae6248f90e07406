/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.internal.node.Subscriptions;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An asynchronous acquisition cancelled at the moment its refused round joins the wait room must leave it: otherwise
 * the key keeps a waiter forever (its subscription is never dropped, and every later waiter queues behind it).
 */
class AsyncWaiterLeakTest {

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void cancelledWhileJoiningTheWaitRoomLeavesIt() throws Exception {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            // Never answers by itself: the test completes the ops, so that it controls the thread.
            nodes.add(new FakeNode("n" + i, op -> null, () -> {}));
        }
        RedlockConfig config = RedlockConfig.builder()
                .nodes("redis://fake:1", "redis://fake:2", "redis://fake:3", "redis://fake:4", "redis://fake:5")
                .perNodeTimeout(Duration.ofMillis(200))
                .retryDelay(Duration.ofMillis(50))
                .build();
        QuorumEngine engine = new QuorumEngine(config, nodes, scheduler);
        AtomicReference<CompletableFuture<AcquireResult>> future = new AtomicReference<>();
        List<String> subs = new ArrayList<>();
        // Stands in for the caller's thread cancelling at this moment: after decided() checked future.isDone(),
        // before it stored the waiter it just joined. (The hook runs inside joinAsync, at the key's first waiter.)
        java.lang.reflect.Field f = QuorumEngine.class.getDeclaredField("subscriptions");
        f.setAccessible(true);
        f.set(engine, new Subscriptions() {
            @Override
            public void subscribe(String key) {
                subs.add("+" + key);
                future.get().cancel(true);
            }

            @Override
            public void unsubscribe(String key) {
                subs.add("-" + key);
            }
        });
        LockRef ref = new LockRef("l", "redlock:{l}", QuorumPolicy.MAJORITY);
        future.set(engine.acquireAsync(ref, 1_000, QuorumEngine.FOREVER, false));
        for (FakeNode n : nodes) {
            n.received.get(0).complete(NodeStatus.TAKEN, null); // BUSY round: decided() joins the wait room
        }
        assertTrue(future.get().isCancelled());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> engine.waitingKeys() == 0);
        // The key's own channel and its channel for this client: each subscribed once, then unsubscribed.
        assertEquals(
                List.of("+redlock:{l}", "-redlock:{l}"),
                subs.stream().filter(c -> c.endsWith("}")).toList());
        assertEquals(4, subs.size(), subs.toString());
    }
}
