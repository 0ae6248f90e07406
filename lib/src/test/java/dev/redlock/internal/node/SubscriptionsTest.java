/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * A client's subscriptions on three real nodes, as its wait room counts them: each node that confirmed a channel on
 * its current subscriber connection counts once; a connection that is cut no longer counts until the node confirms
 * again on the next one, and then once, not twice; a channel subscribed on some nodes is confirmed by those alone.
 */
class SubscriptionsTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(3);

    private NodeClients clients;
    private Subscriptions subscriptions;
    /** How many times the engine was told that a node's confirmed subscriptions went with its connection. */
    private final java.util.concurrent.atomic.AtomicInteger losses = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeEach
    void start() {
        // A short circuit-open time caps the reconnect back-off at 50 ms: the flapping test below runs at the worst.
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(REDIS.uris())
                .restartQuarantine(false)
                .circuitOpenDuration(Duration.ofMillis(50));
        dev.redlock.testkit.TlsCertificates tls = RedisNodesExtension.certificates();
        if (tls != null) {
            b.tlsTrustStore(tls.trustStore(), tls.storePassword());
        }
        RedlockConfig config = b.build();
        clients = new NodeClients(config, "subscriptions-test-", new Quarantine(config));
        subscriptions = clients.listen((channel, payload) -> {
            if (channel == null) {
                losses.incrementAndGet();
            }
        });
        clients.start();
    }

    @AfterEach
    void stop() {
        clients.close();
    }

    @Test
    void aNodeWhoseConnectionWasCutCountsAgainOnceItConfirmsOnTheNextOne() {
        subscriptions.subscribe("{k}");
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 3);
        for (int round = 0; round < 3; round++) {
            long killed;
            try (Jedis j = REDIS.node(0).client()) {
                killed = (Long) j.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
            }
            assertEquals(1, killed, "node 0 had one subscriber connection");
            int lost = round + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> losses.get() >= lost); // the engine hears of it
            // Node 0 confirms again on its next connection; it never counts twice, and the others stay counted.
            await().atMost(Duration.ofSeconds(10)).until(() -> numsub(0, "{k}") == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 3);
        }
        assertEquals(3, subscriptions.confirmed("{k}"));
        subscriptions.unsubscribe("{k}");
        // From the moment each node's UNSUBSCRIBE goes out, whatever confirmation is still on its way.
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 0);
    }

    @Test
    void aNodeThatIsGoneNoLongerCountsUntilItConfirmsAgain() {
        subscriptions.subscribe("{k}");
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 3);
        REDIS.node(1).kill();
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 2);
        assertEquals(2, subscriptions.listening());
        REDIS.node(1).restart();
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 3);
        assertEquals(1, numsub(1, "{k}"));
    }

    @Test
    void aChannelSubscribedOnSomeNodesIsConfirmedByThemAlone() {
        List<String> names = clients.nodes().stream().map(NodeClient::name).toList();
        subscriptions.subscribe("{k}", Set.of(names.get(0), names.get(2)));
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 2);
        assertEquals(List.of(1L, 0L, 1L), List.of(numsub(0, "{k}"), numsub(1, "{k}"), numsub(2, "{k}")));
        assertEquals(2, subscriptions.listening(Set.of(names.get(0), names.get(2))));
        assertEquals(1, subscriptions.listening(Set.of(names.get(1), names.get(2))), "node 1 has nothing subscribed");
    }

    /**
     * A node that drops the subscriber connection as soon as it confirmed (a pub/sub output buffer limit, a hostile
     * node) is reconnected with a growing back-off, up to a second whatever the back-off's cap (50 ms here): each drop
     * tells the engine, whose waiters then poll and check again, so reconnecting every few milliseconds would turn
     * into rounds every few milliseconds. Seen failing before: the back-off started over at each confirmation, and the
     * connection came back 10 ms after each drop (174 connections in 3 s); then, with the back-off growing, at its
     * 50 ms cap.
     */
    @Test
    void aConnectionDroppedAtEachConfirmationComesBackEverMoreSlowly() {
        subscriptions.subscribe("{k}");
        await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions.confirmed("{k}") == 3);
        int drops = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        try (Jedis j = REDIS.node(0).client()) {
            while (System.nanoTime() < end) {
                if (j.pubsubNumSub("{k}").getOrDefault("{k}", 0L) == 1) {
                    j.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
                    drops++;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(
                        TimeUnit.MILLISECONDS.toNanos(1)); // a poll, not a sync
            }
        }
        // 10, 20, 40 ... ms, at most 1 s: about 8 connections in 3 s (and about 200 with the back-off starting over).
        int dropped = drops;
        assertTrue(dropped <= 15, () -> dropped + " connections in 3 s");
        assertTrue(losses.get() >= dropped - 1, "each drop of a confirmed connection is told");
    }

    /**
     * Which error replies on the subscriber connection pass (asked again with the back-off) and which last (asked
     * again after a minute, with one line in the log): a node at its client limit answers a new connection with an
     * error, which was taken for an ACL refusal and kept notifications off for a minute.
     */
    @Test
    void errorRepliesThatPassAreToldFromThoseThatLast() {
        assertTrue(ReleaseSubscriber.passing("ERR max number of clients reached"));
        assertTrue(ReleaseSubscriber.passing("LOADING Redis is loading the dataset in memory"));
        assertTrue(ReleaseSubscriber.passing("BUSY Redis is busy running a script."));
        assertTrue(ReleaseSubscriber.passing(
                "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."));
        assertFalse(ReleaseSubscriber.passing("NOPERM No permissions to access a channel"));
        assertFalse(ReleaseSubscriber.passing("NOAUTH Authentication required."));
        assertFalse(ReleaseSubscriber.passing("ERR unknown command 'SUBSCRIBE', with args beginning with: "));
    }

    private static long numsub(int node, String channel) {
        try (Jedis j = REDIS.node(node).client()) {
            return j.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }
}
