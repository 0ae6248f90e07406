/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** RedLock's quorum behaviour with nodes killed, paused or held by a foreign owner. */
class RedLockQuorumTest extends RedisBackedTest {

    @Test
    void acquiresWithTwoOfFiveNodesKilled() throws Exception {
        node(1).kill();
        node(3).kill();
        QuorumLock lock = client().redLock(uniqueName("minority-down"));
        Lease lease =
                lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        assertEquals(3, lease.acquisition().granted(), lease.acquisition()::toString);
        assertEquals(3, nodesHolding(lease.key(), lease.token()));
        ReleaseResult released = lease.release();
        assertTrue(released.released() >= 3
                || released.completion().get(5, TimeUnit.SECONDS).released() == 3);
    }

    @Test
    void failsWithThreeOfFiveNodesKilledAndSaysSo() throws Exception {
        node(0).kill();
        node(2).kill();
        node(4).kill();
        Duration budget = Duration.ofMillis(500);
        Duration perNode = Duration.ofMillis(200);
        QuorumLock lock = client(b -> b.perNodeTimeout(perNode)).redLock(uniqueName("majority-down"));

        long start = System.nanoTime();
        NotEnoughNodesException e =
                assertThrows(NotEnoughNodesException.class, () -> lock.tryAcquire(budget, Duration.ofSeconds(10)));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // Bounded by the budget plus one round (a generous scheduling margin for a loaded machine).
        assertTrue(took.compareTo(budget.plus(perNode).plusMillis(500)) < 0, "took " + took);
        assertEquals(FailureReason.NOT_ENOUGH_NODES, e.lastRound().reason());
        assertEquals(3, e.lastRound().unavailable(), e.lastRound()::toString);
        assertTrue(e.getMessage().contains("not enough nodes"), e.getMessage());
        for (NodeOutcome o : e.lastRound().nodes()) {
            if (o.status().isUnavailable() && o.status() != NodeStatus.CIRCUIT_OPEN) {
                assertTrue(o.error().isPresent(), "the cause is kept for " + o);
            }
        }
        // Every round that failed was released on the survivors.
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lock.key()) == 0);

        AcquireResult r = lock.attempt(Duration.ZERO, Duration.ofSeconds(10));
        assertEquals(FailureReason.NOT_ENOUGH_NODES, r.reason(), "attempt() reports instead of throwing");

        // Rounds that fail at once (open circuits, refused connections) still honour the retry delay:
        // 500 ms of budget at 2.5-7.5 ms per delay allows at most about 200 rounds.
        AcquireResult spun = lock.attempt(Duration.ofMillis(500), Duration.ofSeconds(10));
        assertTrue(spun.rounds() <= 210, "rounds: " + spun.rounds());
    }

    @Test
    void stalledNodeDoesNotDelayAcquireOrRelease() throws Exception {
        RedlockClient client = client(b -> b.perNodeTimeout(Duration.ofMillis(200)));
        QuorumLock lock = client.redLock(uniqueName("stalled"));
        node(2).pause();

        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        RoundOutcome round = lease.acquisition();
        NodeStatus stalled = round.nodes().get(2).status();
        assertTrue(stalled == NodeStatus.PENDING || stalled == NodeStatus.TIMEOUT, round::toString);
        // Validity accounts for the elapsed time: ttl - elapsed - drift, and the deadline counts from t1.
        long ttl = Duration.ofSeconds(10).toNanos();
        long drift = client.config().driftNanos(ttl);
        assertEquals(ttl - round.elapsed().toNanos() - drift, round.validity().toNanos());
        assertTrue(lease.remainingValidity().compareTo(round.validity()) <= 0);

        // Release is decided by the four live nodes; the stalled one is left to finish in the background.
        ReleaseResult released = lease.release();
        assertEquals(NodeStatus.PENDING, released.nodes().get(2).status(), released::toString);
        assertTrue(released.released() >= 3, released::toString);
        assertFalse(released.completion().isDone(), "the stalled node has not answered yet");

        // A round that needs the stalled node's vote waits for it at most one per-node timeout.
        node(0).set(lock.key(), "foreign");
        node(1).set(lock.key(), "foreign");
        AcquireResult blocked = lock.attempt(Duration.ZERO, Duration.ofSeconds(10));
        assertFalse(blocked.acquired());
        assertEquals(NodeStatus.TIMEOUT, blocked.lastRound().nodes().get(2).status(), blocked::toString);
        Duration elapsed = blocked.lastRound().elapsed();
        assertTrue(elapsed.compareTo(Duration.ofMillis(200)) >= 0, "waited for the timeout: " + elapsed);
        assertTrue(elapsed.compareTo(Duration.ofMillis(200 + 300)) < 0, "but not beyond it: " + elapsed);

        node(2).resume();
        node(0).client().del(lock.key());
        node(1).client().del(lock.key());
        await().atMost(Duration.ofSeconds(5)).until(() -> released.completion().isDone());

        // After the node resumes, commands sent to it get their own replies: the timed-out connection was dropped.
        String fresh = uniqueName("after-resume");
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            Lease l = client.redLock(fresh)
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                    .orElseThrow();
            boolean own = l.acquisition().nodes().get(2).status() == NodeStatus.GRANTED
                    && l.token().equals(node(2).get(l.key()));
            ReleaseResult r = l.release().completion().get(5, TimeUnit.SECONDS);
            return own && r.nodes().get(2).status() == NodeStatus.RELEASED;
        });
    }

    @Test
    void quorumTableOverEverySubsetOfForeignHeldNodes() throws Exception {
        // A long per-node timeout: this test is about vote counting, not about slow nodes.
        RedlockClient client = client(b -> b.perNodeTimeout(Duration.ofSeconds(2)));
        for (int mask = 0; mask < 32; mask++) {
            QuorumLock lock = client.redLock(uniqueName("table"));
            String foreign = "foreign-" + mask;
            int free = 0;
            for (int i = 0; i < 5; i++) {
                if ((mask & (1 << i)) != 0) {
                    node(i).set(lock.key(), foreign);
                } else {
                    free++;
                }
            }
            AcquireResult r = lock.attempt(Duration.ZERO, Duration.ofSeconds(10));
            assertEquals(free >= 3, r.acquired(), "mask " + mask + ": " + r);
            if (r.acquired()) {
                Lease lease = r.lease().orElseThrow();
                assertTrue(nodesHolding(lock.key(), lease.token()) >= 3, "mask " + mask);
                lease.release().completion().get(5, TimeUnit.SECONDS);
            } else {
                assertEquals(FailureReason.BUSY, r.reason());
            }
            int m = mask;
            // Foreign keys are never touched, and nothing of ours is left behind.
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lock.key()) == Integer.bitCount(m));
            assertEquals(Integer.bitCount(mask), nodesHolding(lock.key(), foreign), "mask " + mask);
        }
    }

    @Test
    void brokenNodeTripsItsCircuitBreaker() throws Exception {
        node(4).kill();
        RedlockClient client = client(b -> b.circuitOpenDuration(Duration.ofSeconds(30)));
        QuorumLock lock = client.redLock(uniqueName("breaker"));
        // Each round's command to the dead node fails; after enough failures its breaker opens and the node
        // answers CIRCUIT_OPEN at once, without a connection attempt.
        RoundOutcome[] last = new RoundOutcome[1];
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
            last[0] = lease.acquisition();
            lease.release();
            return last[0].nodes().get(4).status() == NodeStatus.CIRCUIT_OPEN;
        });
        assertEquals(FailureReason.NONE, last[0].reason());
        assertTrue(last[0].nodes().get(4).latency().compareTo(last[0].elapsed()) <= 0, last[0]::toString);
    }
}
