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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/** One bad node (stalled, hostile, dead, refusing) never harms the rest: a failed minority is ridden through. */
class NodeIsolationTest extends RedisBackedTest {

    /** Four real nodes and {@code bad} in place of the fifth. */
    private RedlockClient withBadNode(String bad) {
        List<String> uris = new ArrayList<>(REDIS.uris().subList(0, 4));
        uris.add(bad);
        return client(uris, b -> b.perNodeTimeout(Duration.ofMillis(100)));
    }

    /**
     * One node of five is stopped (SIGSTOP) while two threads acquire and release fresh keys for 8 s: long enough for
     * the stopped node's connection to be dropped and opened again, and for commands to pile up in its socket.
     */
    @Test
    void aStalledNodeNeverDelaysTheOthers() throws Exception {
        RedlockClient c = client(b -> b.perNodeTimeout(Duration.ofMillis(50)).leaseTime(Duration.ofSeconds(10)));
        node(4).pause();
        java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger cycles = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<String> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        Runnable work = () -> {
            while (System.nanoTime() - until < 0) {
                try {
                    AcquireResult r =
                            c.redLock(uniqueName("stall")).attempt(Duration.ofSeconds(1), Duration.ofSeconds(10));
                    cycles.incrementAndGet();
                    if (r.acquired()) {
                        r.lease().orElseThrow().release();
                    } else {
                        failed.incrementAndGet();
                        failure.set(r.lastRound().toString());
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        };
        Thread other = new Thread(work, "stall-worker");
        other.start();
        work.run();
        other.join();
        node(4).resume();
        assertEquals(0, failed.get(), () -> "acquires failed with only one node of five stalled; last: " + failure);
        assertTrue(cycles.get() > 100, "cycles: " + cycles);
    }

    @ParameterizedTest
    @EnumSource(
            value = HostileNode.Mode.class,
            names = {"HUGE_ARRAY", "HUGE_BULK", "DEEP_NESTING", "WRONG_SHAPE"})
    void aHostileNodeFailsAloneAndTheClientGoesOn(HostileNode.Mode mode) throws Exception {
        try (HostileNode hostile = new HostileNode(mode)) {
            RedlockClient c = withBadNode(hostile.uri()); // the topology check at creation must not throw
            for (int i = 0; i < 20; i++) {
                Lease lease = c.redLock(uniqueName("hostile"))
                        .tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(10))
                        .orElseThrow();
                NodeOutcome bad = lease.acquisition().nodes().get(4);
                assertTrue(bad.status() != NodeStatus.GRANTED, bad::toString);
                // Every node answers the release, the hostile one with its error, so the result completes.
                lease.release().completion().get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aNodeThatKeepsDroppingConnectionsIsRedialledWithBackOff() throws Exception {
        try (HostileNode slam = new HostileNode(HostileNode.Mode.SLAM)) {
            RedlockClient c = withBadNode(slam.uri());
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            int rounds = 0;
            while (System.nanoTime() - until < 0) {
                c.redLock(uniqueName("slam"))
                        .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                        .ifPresent(Lease::release);
                rounds++;
            }
            // Back-off from 10 ms, doubling to at most 500 ms: a handful of attempts in 2 s, not one per round.
            assertTrue(slam.accepted() <= 20, slam.accepted() + " connects in 2 s over " + rounds + " rounds");
        }
    }

    /**
     * A node that refuses the client's credentials says why: each round's outcome for it carries the server's own
     * refusal, whether the round met the failed handshake or the reconnect back-off after it, and never the password.
     * (A MultiLock over a good node and the refusing one, so that every round waits for its answer.)
     */
    @Test
    void aNodeThatRefusesTheCredentialsSaysWhyInEveryRound() throws Exception {
        String user = "redlock-locked-out";
        try (Jedis admin = node(4).client()) {
            admin.aclSetUser(user, "reset", "on", ">right-secret", "~*", "&*", "+@all");
        }
        try {
            List<String> uris = List.of(node(0).uri(), node(4).uri().replace("://", "://" + user + ":Wrong-S3cret@"));
            RedlockClient c = client(uris, b -> b.perNodeTimeout(Duration.ofMillis(100)));
            for (int i = 0; i < 5; i++) {
                AcquireResult r = c.multiLock(uniqueName("auth")).attempt(Duration.ZERO, Duration.ofSeconds(10));
                String bad = r.lastRound().nodes().get(1).toString();
                assertFalse(r.acquired(), r::toString);
                assertTrue(bad.contains("WRONGPASS"), () -> "round " + r + " does not say why the node failed: " + bad);
                assertFalse(bad.contains("Wrong-S3cret"), bad);
            }
        } finally {
            try (Jedis admin = node(4).client()) {
                admin.aclDelUser(user);
            }
        }
    }

    @Test
    void anOpenBreakerKeepsTheNodesOwnErrorText() throws Exception {
        String user = "redlock-noscript";
        try (Jedis admin = node(0).client()) {
            admin.aclSetUser(user, "reset", "on", ">pw", "~*", "&*", "+@all", "-set", "-evalsha", "-eval");
        }
        try {
            List<String> uris = new ArrayList<>(REDIS.uris());
            uris.set(0, node(0).uri().replace("://", "://" + user + ":pw@"));
            RedlockClient c = client(uris, b -> b.checkTopology(false));
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                AcquireResult r = c.multiLock(uniqueName("breaker")).attempt(Duration.ZERO, Duration.ofSeconds(10));
                r.lease().ifPresent(Lease::release);
                NodeOutcome o = r.lastRound().nodes().get(0);
                return o.status() == NodeStatus.CIRCUIT_OPEN;
            });
            AcquireResult r = c.multiLock(uniqueName("breaker")).attempt(Duration.ZERO, Duration.ofSeconds(10));
            NodeOutcome o = r.lastRound().nodes().get(0);
            assertEquals(NodeStatus.CIRCUIT_OPEN, o.status());
            Throwable cause = o.error().orElseThrow();
            String text = cause + " / " + cause.getCause();
            assertTrue(text.contains("NOPERM"), () -> "the node's own error is the cause: " + text);
        } finally {
            try (Jedis admin = node(0).client()) {
                admin.aclDelUser(user);
            }
        }
    }

    /**
     * A node stops while a lease is held and is dropped as stalled; the release then goes out on a new connection. When
     * the node resumes it runs both connections' commands in any order: the key must not stay behind.
     */
    @Test
    void aReleaseANodeMissedIsRetriedOnceItAnswersAgain() throws Exception {
        RedlockClient c = client(b -> b.perNodeTimeout(Duration.ofMillis(50)));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            QuorumLock lock = c.redLock(uniqueName("retry-release"));
            node(4).pause();
            Lease lease = lock.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(30))
                    .orElseThrow();
            // Held past the stall detection: the connection that carried the acquire is gone.
            await().pollDelay(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);
            lease.release();
            await().pollDelay(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);
            node(4).resume();
            keys.add(lock.key());
        }
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> keys.stream().noneMatch(k -> node(4).exists(k)));
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(3))
                .until(() -> keys.stream().noneMatch(k -> node(4).exists(k)));
    }

    /**
     * Once a stalled node's breaker is open, acquires are not sent to it; their releases have nothing to undo there,
     * so they are answered at once instead of queueing (and being retried) behind the stalled node for the key's TTL.
     */
    @Test
    void aReleaseSendsNothingToANodeItsAcquireNeverReached() throws Exception {
        // The tests' usual per-node timeout: with a shorter one, a live node's late answer on a loaded machine shows
        // as a release that did not complete there (and could open its breaker too).
        RedlockClient c = client(b -> b.circuitOpenDuration(Duration.ofMinutes(1)));
        node(4).pause();
        try {
            // An acquire's outcomes are those at its decision, which may come before the fifth node was even tried.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Lease l = c.redLock(uniqueName("open"))
                        .tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(10))
                        .orElseThrow();
                l.release();
                return l.acquisition().nodes().get(4).status() == NodeStatus.CIRCUIT_OPEN;
            });
            int skipped = 0;
            for (int i = 0; i < 50; i++) {
                Lease lease = c.redLock(uniqueName("open"))
                        .tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(10))
                        .orElseThrow();
                boolean refused = lease.acquisition().nodes().get(4).status() == NodeStatus.CIRCUIT_OPEN;
                ReleaseResult all = lease.release().completion().get(1, TimeUnit.SECONDS);
                assertEquals(4, all.released(), all::toString);
                if (all.nodes().get(4).status() == NodeStatus.ALREADY_EXPIRED) {
                    skipped++;
                } else {
                    assertTrue(!refused, () -> "the acquire never reached node 4, yet its release was sent: " + all);
                }
            }
            assertTrue(skipped >= 45, skipped + " of 50 releases skipped the node their acquire never reached");
        } finally {
            node(4).resume();
        }
    }

    @Test
    void closingIsQuickForHealthyNodesAndBoundedForDeadOnes() throws Exception {
        // The library's own defaults (50 ms per-node timeout), not the test settings.
        RedlockClient healthy = RedlockClient.create(RedlockConfig.builder()
                .nodes(REDIS.uris())
                .restartQuarantine(false)
                .build());
        healthy.redLock(uniqueName("close"))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .ifPresent(Lease::release);
        long t0 = System.nanoTime();
        healthy.close();
        long healthyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(healthyMs < 500, "closing five healthy nodes took " + healthyMs + " ms");

        RedlockClient c = RedlockClient.create(
                config().connectTimeout(Duration.ofMillis(300)).build());
        c.redLock(uniqueName("close"))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .ifPresent(Lease::release);
        node(3).pause();
        node(4).pause();
        c.redLock(uniqueName("close"))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .ifPresent(Lease::release);
        t0 = System.nanoTime();
        c.close();
        long stalledMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        node(3).resume();
        node(4).resume();
        assertTrue(stalledMs < 1_500, "closing with two stalled nodes took " + stalledMs + " ms");
    }

    @Test
    void aCommandLargerThanTheWriteBufferGoesOutInPieces() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.redLock("n".repeat(4_000) + uniqueName("long"));
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(lease.key(), lease.token()) == 5);
        assertEquals(5, lease.release().completion().get(5, TimeUnit.SECONDS).released());
    }
}
