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
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Inspection (the quorum view, holders and TTLs per node) and the administrator's forced unlock. */
class InspectionTest extends RedisBackedTest {

    /**
     * A client that waits up to 2 s for each node's answer: these tests expect every node's answer in one call, which
     * the tests' usual 200 ms may miss on a loaded machine (the node is then shown as pending, as it should be).
     */
    private RedlockClient inspector() {
        return client(b -> b.perNodeTimeout(Duration.ofSeconds(2)));
    }

    @Test
    void aFreeLockIsNotLocked() {
        LockInfo info = inspector().inspect(uniqueName("free"));
        assertFalse(info.locked(), info::toString);
        assertTrue(info.holder().isEmpty() && info.remaining().isEmpty());
        assertEquals(0, info.holdingNodes());
        for (NodeOutcome o : info.nodes()) {
            assertEquals(NodeStatus.ALREADY_EXPIRED, o.status(), o::toString);
        }
    }

    @Test
    void aHeldLockShowsItsHolderOnEveryNodeWithTheTimeLeft() throws Exception {
        RedlockClient c = client();
        RedlockClient inspector = inspector();
        String name = uniqueName("held");
        Lease lease = c.redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        LockInfo info = inspector.inspect(name);
        assertTrue(info.locked() && inspector.isLocked(name), info::toString);
        assertEquals(Optional.of(lease.token().substring(0, 8)), info.holder());
        assertEquals(5, info.holdingNodes());
        long left = info.remaining().orElseThrow().toMillis();
        assertTrue(left > 9_000 && left <= 10_000, info::toString);
        for (int i = 0; i < 5; i++) {
            assertEquals(NodeStatus.TAKEN, info.nodes().get(i).status());
            assertTrue(info.nodes().get(i).holderTtl().orElseThrow().toMillis() <= 10_000);
            assertEquals(info.holder(), info.holders().get(i));
        }
        assertFalse(info.toString().contains(lease.token()), "the whole token must not be shown: " + info);
        lease.release();
        assertFalse(c.isLocked(name));
    }

    @Test
    void withTwoNodesDownTheMajorityStillShows() throws Exception {
        String name = uniqueName("down");
        client().redLock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        node(0).kill();
        node(1).kill();
        LockInfo info = client().inspect(name);
        assertTrue(info.locked(), info::toString);
        assertEquals(3, info.holdingNodes());
        assertTrue(
                info.nodes().get(0).status().isUnavailable()
                        || info.nodes().get(0).status() == NodeStatus.PENDING,
                info::toString);
    }

    /** A holder that will not let go: forced out, its watchdog finds the keys gone and declares the lease lost. */
    @Test
    void aForcedUnlockFreesTheLockAndTheHolderLearnsItLostIt() throws Exception {
        RedlockClient holder = client(b -> b.leaseTime(Duration.ofSeconds(1)));
        String name = uniqueName("force");
        QuorumLock lock = holder.redLock(name).fenced();
        Lease lease = lock.tryAcquire(Duration.ZERO).orElseThrow(); // auto-extended
        long token = lease.fencingToken().getAsLong();
        RedlockClient admin = inspector();
        List<NodeOutcome> deleted = admin.forceUnlock(name);
        assertEquals(
                5,
                deleted.stream().filter(o -> o.status() == NodeStatus.RELEASED).count(),
                deleted::toString);
        assertEquals(0, nodesWithKey(lock.key()));
        assertFalse(admin.isLocked(name));
        await().atMost(Duration.ofSeconds(5)).until(() -> lease.lossCause().isPresent());
        // The fencing counter was left alone: the next holder's token is still larger.
        Lease next = admin.redLock(name)
                .fenced()
                .tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(10))
                .orElseThrow();
        assertTrue(next.fencingToken().getAsLong() > token);
        next.release();
        // Nothing held: nothing deleted.
        assertTrue(admin.forceUnlock(name).stream().allMatch(o -> o.status() == NodeStatus.ALREADY_EXPIRED));
    }

    /** The forced delete is token-checked by what the inspection saw: a holder that came since is left alone. */
    @Test
    void aForcedUnlockLeavesAHolderThatCameAfterTheInspection() {
        String key = client().keyOf(uniqueName("since"));
        String source = dev.redlock.internal.script.LuaScript.FORCE.source();
        try (redis.clients.jedis.Jedis j = node(0).client()) {
            j.set(key, "newholder-token");
            assertEquals(-1L, j.eval(source, List.of(key), List.of("oldholde")));
            assertEquals("newholder-token", j.get(key));
            assertEquals(1L, j.eval(source, List.of(key), List.of("newholde")));
            assertFalse(j.exists(key));
            assertEquals(0L, j.eval(source, List.of(key), List.of("newholde")));
        }
    }

    @Test
    void badNamesFailNamingTheField() {
        RedlockClient c = client();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.inspect(""));
        assertTrue(e.getMessage().startsWith("name:"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.forceUnlock("a\uD800"));
        assertThrows(NullPointerException.class, () -> c.isLocked(null));
    }
}
