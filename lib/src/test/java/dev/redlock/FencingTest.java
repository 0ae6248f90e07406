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
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Fencing tokens: strictly increasing across holders, clients, threads and node failures. */
class FencingTest extends RedisBackedTest {

    private static long token(Lease lease) {
        return lease.fencingToken().orElseThrow();
    }

    @Test
    void successiveHoldersGetStrictlyIncreasingTokens() throws Exception {
        String name = uniqueName("fenced");
        List<QuorumLock> locks = List.of(
                client().redLock(name).fenced(),
                client().redLock(name).fenced(),
                client().multiLock(name).fenced());
        long last = 0;
        for (int i = 0; i < 30; i++) {
            try (Lease lease = locks.get(i % 3)
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                    .orElseThrow()) {
                long t = token(lease);
                assertTrue(t > last, "token " + t + " after " + last);
                last = t;
            }
        }
        QuorumLock plain = client().redLock(name);
        assertFalse(plain.isFenced());
        try (Lease lease =
                plain.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow()) {
            assertTrue(lease.fencingToken().isEmpty(), "plain locks stay one round and carry no token");
        }
        // The counter lives next to the key, under the same hash tag.
        String counter = locks.get(0).key() + ":fence";
        try (var admin = node(0).client()) {
            assertEquals(Long.toString(last), admin.hget(counter, "v"));
        }
    }

    @Test
    void tokensIncreaseInAcquisitionOrderUnderContention() throws Exception {
        String name = uniqueName("fenced-contended");
        List<long[]> grants = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                QuorumLock lock = client().redLock(name).fenced();
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        Lease lease = lock.tryAcquire(Duration.ofSeconds(30), Duration.ofSeconds(10))
                                .orElseThrow();
                        grants.add(new long[] {System.nanoTime(), token(lease)});
                        lease.release();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        grants.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < grants.size(); i++) {
            assertTrue(grants.get(i)[1] > grants.get(i - 1)[1], "inversion at " + i);
        }
        assertEquals(160, grants.size());
    }

    @Test
    void tokensKeepIncreasingAcrossMinorityNodeLossAndRestart() throws Exception {
        QuorumLock lock = client(b -> b.perNodeTimeout(Duration.ofMillis(100)))
                .redLock(uniqueName("fenced-kill"))
                .fenced();
        long last = 0;
        for (int phase = 0; phase < 3; phase++) {
            if (phase == 1) {
                node(0).kill();
                node(3).kill();
            } else if (phase == 2) {
                node(0).restart(); // without persistence: their counters are gone,
                node(3).restart(); // but every quorum still includes a node that kept its counter
            }
            for (int i = 0; i < 10; i++) {
                try (Lease lease = lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                        .orElseThrow()) {
                    long t = token(lease);
                    assertTrue(t > last, "phase " + phase + ": token " + t + " after " + last);
                    last = t;
                }
            }
        }
    }

    /**
     * A fenced grant reaches nodes 0, 1, 2 only (3 and 4 are down, and come back empty); node 0 then restarts empty
     * and 1, 2 stop answering. A grant through 0, 3, 4 must not reuse or undercut the token: node 0's counter is
     * gone, and 3 and 4 never saw it. Only node 0 lost data between the two grants.
     */
    @Test
    void nodeThatLostItsCounterDoesNotCountInAFencingRead() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        RedlockClient c = client(b -> b.restartQuarantine(true).leaseTime(ttl).perNodeTimeout(Duration.ofMillis(100)));
        QuorumLock lock = c.redLock(uniqueName("fenced-loss")).fenced();
        RestartProtectionTest.awaitTrusted(c);
        try (Lease first = lock.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            assertTrue(token(first) > 0);
        }
        node(3).kill();
        node(4).kill();
        long issued;
        try (Lease second = lock.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            issued = token(second); // counters raised on nodes 0, 1, 2 only
        }
        node(0).kill();
        node(0).restart(); // its counter is gone
        node(3).restart();
        node(4).restart();
        node(1).pause();
        node(2).pause();
        // Wait out node 0's restart quarantine with another lock, so this lock's counters are not touched.
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    AcquireResult r = c.redLock(uniqueName("probe")).attempt(Duration.ZERO, ttl);
                    r.lease().ifPresent(Lease::release);
                    return r.lastRound().nodes().get(0).status() == NodeStatus.GRANTED;
                });
        AcquireResult third = lock.attempt(Duration.ZERO, ttl);
        third.lease().ifPresent(Lease::release);
        assertTrue(
                !third.acquired() || token(third.lease().orElseThrow()) > issued,
                () -> "token went back: " + issued + " then "
                        + third.lease().orElseThrow().fencingToken());
        node(1).resume();
        node(2).resume();
        try (Lease fourth = lock.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            assertTrue(token(fourth) > issued, "once the nodes that kept the counter answer, tokens go on");
        }
    }

    private static String intact(int node) {
        try (var admin = node(node).client()) {
            return admin.hget("redlock:node-incarnation", "intact");
        }
    }

    /**
     * A new cluster's counters start once every node has answered a fenced read; from then on fenced locks, new ones
     * too, need only a quorum. A node that restarts empty is repaired in the background from the others, and then
     * counts again, so the next grant through it and a minority still goes up.
     */
    @Test
    void countersStartOnANewClusterAndARestartedNodeIsRepaired() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        RedlockClient c = client(b -> b.restartQuarantine(true).leaseTime(ttl).perNodeTimeout(Duration.ofMillis(100)));
        RestartProtectionTest.awaitTrusted(c);
        QuorumLock first = c.redLock(uniqueName("repair-first")).fenced();
        long t1;
        try (Lease lease = first.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            t1 = token(lease);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            for (int i = 0; i < 5; i++) {
                if (!"1".equals(intact(i))) {
                    return false;
                }
            }
            return true;
        });
        node(3).kill();
        node(4).kill();
        try (Lease lease = c.redLock(uniqueName("repair-new"))
                .fenced()
                .tryAcquire(Duration.ofSeconds(5), ttl)
                .orElseThrow()) {
            assertEquals(1, token(lease), "a new lock gets its first token with two nodes down");
        }
        node(3).restart();
        node(4).restart();
        node(0).kill();
        node(0).restart(); // empty: its counters are gone, and it is not intact any more
        RestartProtectionTest.awaitTrusted(c);
        assertEquals("0", intact(0));
        long t2;
        try (Lease lease = first.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            t2 = token(lease); // every node answers: the read covers, and the repair starts
        }
        assertTrue(t2 > t1);
        await().atMost(Duration.ofSeconds(10)).until(() -> "1".equals(intact(0)));
        node(1).kill();
        node(2).kill();
        try (Lease lease = first.tryAcquire(Duration.ofSeconds(5), ttl).orElseThrow()) {
            assertTrue(token(lease) > t2, "through the repaired node and two others that never lost data");
        }
    }

    @Test
    void withLockCanFence() throws Exception {
        RedlockClient c = client();
        String name = uniqueName("fenced-with");
        Lease before = c.redLock(name)
                .fenced()
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        long t0 = token(before);
        before.release();
        assertTrue(c.withLock(name, LockOptions.defaults().fenced(true), () -> {}));
        Lease after = c.redLock(name)
                .fenced()
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        assertEquals(t0 + 2, token(after), "withLock's fenced lease took the token in between");
        after.release();
    }
}
