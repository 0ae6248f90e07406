/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Restart quarantine: a node that restarted recently does not count toward any quorum for the longest TTL. */
class RestartQuarantineTest extends RedisBackedTest {

    private static final Duration TTL = Duration.ofSeconds(1);

    private RedlockClient quarantining() {
        return client(b -> b.restartQuarantine(true).leaseTime(TTL).perNodeTimeout(Duration.ofMillis(100)));
    }

    private static RoundOutcome attempt(QuorumLock lock) throws InterruptedException {
        AcquireResult r = lock.attempt(Duration.ZERO, TTL);
        r.lease().ifPresent(Lease::release);
        return r.lastRound();
    }

    /** Waits until every node has been up longer than the TTL, so none is quarantined. */
    private static void awaitAllCounted(QuorumLock lock) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            AcquireResult r = lock.attempt(Duration.ZERO, TTL);
            r.lease().ifPresent(l -> l.release().completion().join());
            return r.acquired() && r.lastRound().nodes().stream().noneMatch(o -> o.status() == NodeStatus.QUARANTINED);
        });
    }

    @Test
    void restartedNodeDoesNotCountUntilItHasBeenUpForTheTtl() throws Exception {
        QuorumLock lock = quarantining().redLock(uniqueName("quarantine"));
        awaitAllCounted(lock);

        node(0).restart(); // no persistence: it forgot every key
        await().atMost(Duration.ofSeconds(5))
                .until(() -> attempt(lock).nodes().get(0).status() == NodeStatus.QUARANTINED);
        // A round decided by the other four may not have heard node 0 yet (PENDING): take one that did.
        RoundOutcome during = await().atMost(Duration.ofSeconds(5))
                .until(() -> attempt(lock), r -> r.nodes().get(0).status() != NodeStatus.PENDING);
        assertTrue(during.succeeded(), "the other four still form a quorum: " + during);
        assertEquals(NodeStatus.QUARANTINED, during.nodes().get(0).status());
        assertTrue(during.nodes().get(0).status().isUnavailable(), "a quarantined vote counts as no vote");

        // Once it has been up longer than the TTL, its votes count again.
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> attempt(lock).nodes().get(0).status() == NodeStatus.GRANTED);
    }

    @Test
    void quarantinePreventsTheSecondHolderOfABareQuorumRestart() throws Exception {
        String name = uniqueName("bare-quorum");
        RedlockClient a = quarantining();
        RedlockClient b = quarantining();
        awaitAllCounted(a.redLock(name));
        awaitAllCounted(b.redLock(name));

        // A holds the lock on exactly nodes 0, 1, 2.
        QuorumLock lockA = a.redLock(name);
        node(3).set(lockA.key(), "blocker");
        node(4).set(lockA.key(), "blocker");
        Lease held = lockA.tryAcquire(Duration.ZERO, TTL).orElseThrow();
        node(3).client().del(lockA.key());
        node(4).client().del(lockA.key());

        node(0).restart(); // forgets A's key
        // B would win nodes 0, 3, 4 without quarantine; with it, node 0's vote does not count.
        AcquireResult r = b.redLock(name).attempt(Duration.ofMillis(300), TTL);
        assertFalse(r.acquired() && held.isValid(), () -> "a second holder while A's lease is valid: " + r);
        held.release();
    }

    @Test
    void longerLeasesLengthenTheQuarantine() throws Exception {
        RedlockClient c = quarantining();
        QuorumLock lock = c.redLock(uniqueName("longest-ttl"));
        lock.attempt(Duration.ZERO, Duration.ofSeconds(3)).lease().ifPresent(Lease::release); // longest TTL: 3 s
        awaitAllCounted(lock); // every node now up for more than 3 s
        node(1).restart();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> attempt(lock).nodes().get(1).status() == NodeStatus.QUARANTINED);
        long restartedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> attempt(lock).nodes().get(1).status() == NodeStatus.GRANTED);
        assertTrue(
                System.nanoTime() - restartedAt > Duration.ofMillis(1_500).toNanos(),
                "quarantined for the 3 s lease, not the 1 s default");
    }
}
