/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

class RedisClusterGroupTest {

    @Test
    void keysLandOnTheirSlotsMasterAndAReplicaTakesOverAKilledMaster() {
        List<Long> pids = new ArrayList<>();
        try (RedisClusterGroup cluster = RedisClusterGroup.start(3, 1)) {
            cluster.nodes().forEach(n -> pids.add(n.pid()));
            assertEquals(6, cluster.nodes().size());
            List<RedisServer> masters = cluster.masters();
            assertEquals(cluster.nodes().subList(0, 3), masters);
            for (RedisServer master : masters) {
                assertEquals(1, cluster.replicasOf(master).size(), () -> "replicas of " + master);
            }
            assertEquals(masters.get(0), cluster.masterOfSlot(0));
            assertEquals(masters.get(2), cluster.masterOfSlot(RedisClusterGroup.SLOTS - 1));
            assertEquals("redis-cluster://" + String.join(",", cluster.seedAddresses()) + "/", cluster.seedUri());

            String key = "lock:{order-42}";
            int slot = RedisClusterGroup.slotOf(key);
            RedisServer owner = cluster.masterOfKey(key);
            try (Jedis jedis = owner.client()) {
                assertEquals(slot, jedis.clusterKeySlot(key));
                jedis.set(key, "holder-1");
                assertEquals(1, jedis.waitReplicas(1, 5000), "the replica acknowledged the write");
            }
            for (RedisServer other : masters) {
                if (other != owner) {
                    JedisMovedDataException moved = assertThrows(JedisMovedDataException.class, () -> other.get(key));
                    assertEquals(slot, moved.getSlot());
                    assertEquals(owner.port(), moved.getTargetNode().getPort());
                }
            }

            RedisServer replica = cluster.replicasOf(owner).get(0);
            RedisServer promoted = cluster.killMasterAndAwaitFailover(owner, Duration.ofSeconds(20));
            assertEquals(replica, promoted);
            assertFalse(owner.isRunning());
            assertEquals(promoted, cluster.masterOfKey(key));
            assertEquals("holder-1", promoted.get(key));
            assertTrue(cluster.masters().contains(promoted));
            assertFalse(cluster.masters().contains(owner));

            // The old master comes back as a replica of the one that took its slots.
            cluster.restartAndAwaitRejoin(owner, Duration.ofSeconds(20));
            assertEquals(List.of(owner), cluster.replicasOf(promoted));
            pids.add(owner.pid());
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " alive");
        }
    }

    @Test
    void slotMovesWithItsKeysOrWithout() {
        try (RedisClusterGroup cluster = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(0)
                .password("pw")
                .start()) {
            assertEquals("redis-cluster://:pw@" + String.join(",", cluster.seedAddresses()) + "/", cluster.seedUri());
            String kept = "lock:{a}";
            String lost = "lock:{b}";
            int keptSlot = RedisClusterGroup.slotOf(kept);
            int lostSlot = RedisClusterGroup.slotOf(lost);
            RedisServer keptOwner = cluster.masterOfSlot(keptSlot);
            RedisServer lostOwner = cluster.masterOfSlot(lostSlot);
            keptOwner.set(kept, "v1");
            keptOwner.set(kept + ":2", "v2"); // same slot, by the hash tag
            lostOwner.set(lost, "v3");

            RedisServer keptTarget = otherMaster(cluster, keptOwner);
            cluster.moveSlot(keptSlot, keptTarget, true);
            assertEquals(keptTarget, cluster.masterOfSlot(keptSlot));
            assertEquals("v1", keptTarget.get(kept));
            assertEquals("v2", keptTarget.get(kept + ":2"));
            assertThrows(JedisMovedDataException.class, () -> keptOwner.get(kept));
            assertFalse(keptOwner.keys("lock:{a}*").iterator().hasNext(), "keys left on the old owner");

            RedisServer lostTarget = otherMaster(cluster, lostOwner);
            cluster.moveSlot(lostSlot, lostTarget, false);
            assertEquals(lostTarget, cluster.masterOfSlot(lostSlot));
            assertNull(lostTarget.get(lost), "the slot moved without its data");
            assertTrue(lostOwner.keys("lock:{b}*").isEmpty(), "the old owner drops the keys of a slot it lost");
            JedisMovedDataException moved = assertThrows(JedisMovedDataException.class, () -> lostOwner.get(lost));
            assertEquals(lostTarget.port(), moved.getTargetNode().getPort());

            cluster.moveSlot(lostSlot, lostTarget, false); // already there: nothing to do
            assertNotEquals(keptOwner, cluster.masterOfSlot(keptSlot));
        }
    }

    /**
     * A resharding whose target holds a stale copy of one of the slot's keys (left there by an earlier fault: a half
     * migration, a move its old owner had not applied yet) replaces it with the owner's, as {@code redis-cli --cluster
     * fix --cluster-replace} does. Seen failing before: {@code MIGRATE} stopped at {@code BUSYKEY}, the move failed and
     * left the slot migrating and importing, and a chaos run's cluster then stayed at {@code cluster_state:fail}.
     */
    @Test
    void aReshardReplacesAStaleCopyOfAKeyOnTheTarget() {
        try (RedisClusterGroup cluster = RedisClusterGroup.start(3, 0)) {
            String key = "lock:{stale}";
            int slot = RedisClusterGroup.slotOf(key);
            RedisServer owner = cluster.masterOfSlot(slot);
            RedisServer target = otherMaster(cluster, owner);
            owner.set(key, "current");
            try (Jedis t = target.client()) {
                // A copy on the target of a slot it does not serve: written while it was importing the slot.
                t.clusterSetSlotImporting(slot, ownerId(owner));
                t.asking();
                t.set(key, "stale");
                t.clusterSetSlotStable(slot);
            }
            cluster.moveSlot(slot, target, true);
            assertEquals(target, cluster.masterOfSlot(slot));
            assertEquals("current", target.get(key));
        }
    }

    private static String ownerId(RedisServer owner) {
        try (Jedis j = owner.client()) {
            return j.clusterMyId();
        }
    }

    @Test
    void tlsClusterMigratesOverTls() {
        try (RedisClusterGroup cluster = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(0)
                .tls(TlsCertificates.generate())
                .start()) {
            assertTrue(cluster.seedUri().startsWith("rediss-cluster://127.0.0.1:"), cluster::seedUri);
            String key = "lock:{tls}";
            RedisServer owner = cluster.masterOfKey(key);
            owner.set(key, "v");
            RedisServer target = otherMaster(cluster, owner);
            cluster.moveSlot(RedisClusterGroup.slotOf(key), target, true);
            assertEquals(target, cluster.masterOfKey(key));
            assertEquals("v", target.get(key));
        }
    }

    @Test
    void parsesClusterNodesOf62And70() {
        String text = String.join(
                "\n",
                "aaaa1111 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460 [5461-<-bbbb2222]",
                "bbbb2222 127.0.0.1:30002@40002,node-b master - 0 1700000000000 2 connected 5461 5462-10922"
                        + " [5461->-aaaa1111]",
                "cccc3333 127.0.0.1:30003@40003 master,fail - 0 1700000000000 3 disconnected",
                "dddd4444 127.0.0.1:30004@40004 slave aaaa1111 0 1700000000000 1 connected",
                "");
        var view = RedisClusterGroup.parseNodes(text);
        assertEquals(List.of("aaaa1111", "bbbb2222", "cccc3333", "dddd4444"), List.copyOf(view.keySet()));
        assertEquals(5461, view.get("aaaa1111").slots().cardinality());
        assertEquals(5462, view.get("bbbb2222").slots().cardinality(), "a migration marker is not ownership");
        assertTrue(view.get("bbbb2222").slots().get(5461));
        assertEquals(30002, view.get("bbbb2222").port());
        assertTrue(view.get("cccc3333").flags().contains("fail"));
        assertTrue(view.get("cccc3333").slots().isEmpty());
        assertEquals("aaaa1111", view.get("dddd4444").masterId());
        assertNull(view.get("aaaa1111").masterId());
    }

    private static RedisServer otherMaster(RedisClusterGroup cluster, RedisServer master) {
        return cluster.masters().stream().filter(m -> m != master).findFirst().orElseThrow();
    }
}
