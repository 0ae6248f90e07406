/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** MultiLock needs every node: one node down or held elsewhere means no lock, and nothing left behind. */
class MultiLockQuorumTest extends RedisBackedTest {

    @Test
    void oneNodeKilledMeansNoLockAndNoKeyLeft() throws Exception {
        node(3).kill();
        QuorumLock lock = client().multiLock(uniqueName("multi-down"));
        NotEnoughNodesException e = assertThrows(
                NotEnoughNodesException.class, () -> lock.tryAcquire(Duration.ofMillis(300), Duration.ofSeconds(10)));
        assertEquals(
                4,
                e.lastRound().granted()
                        + e.lastRound().nodes().stream()
                                .filter(o -> o.status() == NodeStatus.PENDING)
                                .count(),
                e.lastRound()::toString);
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lock.key()) == 0);
    }

    @Test
    void quorumTableOverEverySubsetOfForeignHeldNodes() throws Exception {
        RedlockClient client = client(b -> b.perNodeTimeout(Duration.ofSeconds(2)));
        for (int mask = 0; mask < 32; mask++) {
            QuorumLock lock = client.multiLock(uniqueName("multi-table"));
            String foreign = "foreign-" + mask;
            for (int i = 0; i < 5; i++) {
                if ((mask & (1 << i)) != 0) {
                    node(i).set(lock.key(), foreign);
                }
            }
            AcquireResult r = lock.attempt(Duration.ZERO, Duration.ofSeconds(10));
            assertEquals(mask == 0, r.acquired(), "mask " + mask + ": " + r);
            if (r.acquired()) {
                Lease lease = r.lease().orElseThrow();
                assertEquals(5, nodesHolding(lock.key(), lease.token()));
                lease.release().completion().get(5, TimeUnit.SECONDS);
            }
            int m = mask;
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lock.key()) == Integer.bitCount(m));
            assertEquals(Integer.bitCount(mask), nodesHolding(lock.key(), foreign), "mask " + mask);
        }
    }
}
