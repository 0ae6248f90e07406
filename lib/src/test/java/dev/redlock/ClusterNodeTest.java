/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisClusterGroup;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One Redis Cluster as the quorum, against a real local cluster of three masters with a replica each: one node per
 * master (the owner of a slot in the middle of its range), keys placed with the slot's hash tag, exclusion across
 * clients, and a failover or a slot moved without its keys counted as that node's data loss.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterNodeTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    private RedisClusterGroup cluster;
    private final List<RedlockClient> clients = new ArrayList<>();

    @BeforeAll
    void start() {
        cluster = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(1)
                .nodeTimeout(Duration.ofMillis(1000))
                .start();
    }

    @AfterAll
    void stop() {
        clients.forEach(RedlockClient::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    private RedlockClient client(Consumer<RedlockConfig.Builder> tweak) {
        return clientOf(cluster.seedUri(), tweak);
    }

    private RedlockClient clientOf(String uri, Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(uri)
                .perNodeTimeout(Duration.ofMillis(200))
                .connectTimeout(Duration.ofMillis(250))
                .leaseTime(LEASE)
                .retryDelay(Duration.ofMillis(5));
        tweak.accept(b);
        RedlockClient c = RedlockClient.create(b.build());
        clients.add(c);
        return c;
    }

    private static RoundOutcome attempt(QuorumLock lock) throws InterruptedException {
        AcquireResult r = lock.attempt(Duration.ZERO, Duration.ofSeconds(1));
        r.lease().ifPresent(l -> l.release().completion().join());
        return r.lastRound();
    }

    private static boolean allGranted(RoundOutcome r) {
        return r.nodes().stream().allMatch(n -> n.status() == NodeStatus.GRANTED);
    }

    private static int slotOf(String nodeName) {
        return Integer.parseInt(nodeName.substring(nodeName.lastIndexOf("slot-") + 5));
    }

    @Test
    void aClusterIsOneNodePerMasterAndItsLocksExcludeAcrossClients() throws Exception {
        RedlockClient a = client(b -> {});
        RedlockClient b = client(x -> {});
        List<String> names = a.nodeNames();
        assertEquals(3, names.size(), "one node per master: " + names);
        Set<Integer> ports = new HashSet<>();
        for (String name : names) {
            assertTrue(name.startsWith("cluster(") && name.contains("/slot-"), name);
            ports.add(cluster.masterOfSlot(slotOf(name)).port());
        }
        assertEquals(3, ports.size(), "each node's slot is on another master: " + names);
        assertEquals(names, b.nodeNames(), "every client counts the same nodes");

        QuorumLock lockA = a.redLock("cluster-orders");
        // Fresh servers sit out a lease under restart protection; a MultiLock round hears every node.
        QuorumLock warm = a.multiLock("cluster-warm-up");
        await().atMost(LEASE.multipliedBy(4))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> allGranted(attempt(warm)));
        Lease held = lockA.tryAcquire(Duration.ZERO, LEASE).orElseThrow();
        for (String name : names) {
            RedisServer master = cluster.masterOfSlot(slotOf(name));
            try (redis.clients.jedis.Jedis j = master.client()) {
                Set<String> keys = j.keys("*cluster-orders*");
                assertFalse(keys.isEmpty(), "the lock key is on " + master + " (node " + name + ")");
                assertTrue(
                        keys.stream().allMatch(k -> RedisClusterGroup.slotOf(k) == slotOf(name)),
                        "every key of the node is in its slot: " + keys);
            }
        }
        QuorumLock lockB = b.redLock("cluster-orders");
        assertTrue(lockB.tryAcquire(Duration.ZERO, LEASE).isEmpty(), "another client cannot take a held lock");

        // A waiter in the other client is woken by the release, through the slots' channels.
        long start = System.nanoTime();
        java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> waiting =
                lockB.tryAcquireAsync(Duration.ofSeconds(10), LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> b.isLocked("cluster-orders") && !waiting.isDone());
        held.release();
        Lease second = waiting.get().orElseThrow();
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        second.release();
        assertTrue(waitedMs < 5_000, "the waiter got the lock after the release, waited " + waitedMs + " ms");
        assertTrue(
                a.check().problems().stream().noneMatch(p -> p.contains("replica")),
                a.check().toString());
    }

    @Test
    void anotherNodeCountIsRefusedWhileClientsCountTheClusterOtherwise() {
        client(b -> {});
        RedlockConfig five =
                RedlockConfig.builder().nodes(cluster.seedUri() + "?nodes=5").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RedlockClient.create(five));
        assertTrue(e.getMessage().contains("?nodes=3"), e.getMessage());
    }

    /**
     * Five slot nodes, three per lock: each lock lives on its own three slots, and the count is recorded as "5/3", so
     * a client that places locks otherwise is refused, told which setting to change.
     */
    @Test
    void nodesPerLockIsRecordedWithTheCountAndAClientThatPlacesOtherwiseIsRefused() throws Exception {
        String prefix = "per-lock:";
        RedlockClient a =
                clientOf(cluster.seedUri() + "?nodes=5", b -> b.nodesPerLock(3).keyPrefix(prefix));
        assertEquals(5, a.nodeNames().size());
        String name = "placed";
        List<String> own = a.nodeNamesOf(name);
        assertEquals(3, own.size(), own::toString);
        Lease lease = a.redLock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow(); // past restart protection
        assertEquals(
                own, lease.acquisition().nodes().stream().map(NodeOutcome::node).toList());
        lease.release().completion().join();

        IllegalArgumentException every = assertThrows(
                IllegalArgumentException.class,
                () -> clientOf(cluster.seedUri() + "?nodes=5", b -> b.keyPrefix(prefix)));
        assertTrue(every.getMessage().contains("as 5 nodes, 3 per lock"), every.getMessage());
        assertTrue(every.getMessage().contains("Set nodesPerLock to 3"), every.getMessage());
        IllegalArgumentException fewer = assertThrows(
                IllegalArgumentException.class,
                () -> client(b -> b.nodesPerLock(3).keyPrefix(prefix)));
        assertTrue(
                fewer.getMessage().contains("Add ?nodes=5 to the URI and set nodesPerLock to 3"), fewer.getMessage());
        IllegalArgumentException tooMany = assertThrows(
                IllegalArgumentException.class,
                () -> client(b -> b.nodesPerLock(5).keyPrefix("other:")));
        assertTrue(
                tooMany.getMessage()
                        .startsWith("nodesPerLock: must be 0 (every node) or 3 to the cluster's node count"),
                tooMany.getMessage());
    }

    @Test
    void aFailoverIsDataLossForItsNode() throws Exception {
        RedlockClient c = client(b -> {});
        QuorumLock lock = c.multiLock("cluster-failover");
        await().atMost(LEASE.multipliedBy(4))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> allGranted(attempt(lock)));
        String node = c.nodeNames().get(0);
        RedisServer before = cluster.masterOfSlot(slotOf(node));
        RedisServer after = cluster.killMasterAndAwaitFailover(before, Duration.ofSeconds(30));
        assertNotEquals(before.port(), after.port());

        RoundOutcome during = await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> attempt(lock), r -> r.nodes().get(0).status() == NodeStatus.QUARANTINED);
        assertTrue(
                during.nodes()
                        .get(0)
                        .error()
                        .map(Throwable::getMessage)
                        .orElse("")
                        .contains("server process"),
                "the reason names the lost data: " + during.nodes().get(0));
        await().atMost(LEASE.multipliedBy(4).plusSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> allGranted(attempt(lock)));
        cluster.restartAndAwaitRejoin(before, Duration.ofSeconds(30));
    }

    @Test
    void aSlotMovedWithoutItsKeysGrantsNoSecondHolder() throws Exception {
        assertTrue(
                secondHolderAfterAKeylessMove("cluster-moved-protected", true).isEmpty(), "no second holder");
    }

    /** The negative control: without restart protection the same move does hand out the lock twice. */
    @Test
    void withoutRestartProtectionAKeylessMoveGrantsASecondHolder() throws Exception {
        assertTrue(
                secondHolderAfterAKeylessMove("cluster-moved-unprotected", false)
                        .isPresent(),
                "a second holder");
    }

    /**
     * A holds a lock on nodes 0 and 1 only (its key on node 2 is gone, as after a lost write); then node 0's slot
     * moves to node 1's master without its keys. B, with or without restart protection, tries the lock.
     */
    private java.util.Optional<Lease> secondHolderAfterAKeylessMove(String name, boolean protect) throws Exception {
        Duration longLease = Duration.ofSeconds(10);
        RedlockClient a = client(b -> {});
        RedlockClient b = client(x -> x.restartQuarantine(protect));
        for (RedlockClient c : List.of(a, b)) {
            QuorumLock warm = c.multiLock(name + "-warm-up");
            await().atMost(Duration.ofSeconds(40))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> allGranted(attempt(warm)));
        }
        List<String> nodes = a.nodeNames();
        QuorumLock lockA = a.multiLock(name);
        Lease held = await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .ignoreException(NotEnoughNodesException.class) // until the longer lease's quarantine is over
                .until(() -> lockA.tryAcquire(Duration.ZERO, longLease), java.util.Optional::isPresent)
                .orElseThrow();
        RedisServer third = cluster.masterOfSlot(slotOf(nodes.get(2)));
        try (redis.clients.jedis.Jedis j = third.client()) {
            for (String key : j.keys("*{" + name + "}*")) {
                if (RedisClusterGroup.slotOf(key) == slotOf(nodes.get(2))) {
                    j.del(key);
                }
            }
        }
        RedisServer home = cluster.masterOfSlot(slotOf(nodes.get(0)));
        cluster.moveSlot(slotOf(nodes.get(0)), cluster.masterOfSlot(slotOf(nodes.get(1))), false);
        try {
            return tryForASecondHolder(b.redLock(name), held);
        } finally {
            cluster.moveSlot(slotOf(nodes.get(0)), home, false); // the other tests expect a slot per master
        }
    }

    private static java.util.Optional<Lease> tryForASecondHolder(QuorumLock lockB, Lease held) throws Exception {
        java.util.Optional<Lease> second;
        try {
            second = await().atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .until(
                            () -> lockB.attempt(Duration.ZERO, Duration.ofSeconds(5))
                                    .lease(),
                            java.util.Optional::isPresent);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            second = java.util.Optional.empty(); // 5 s of attempts, none granted
        }
        assertTrue(held.isValid(), "A's lease is still valid while B tries");
        second.ifPresent(Lease::release);
        held.release();
        return second;
    }

    @Test
    void overTlsWithAPassword() throws Exception {
        dev.redlock.testkit.TlsCertificates tls = dev.redlock.testkit.TlsCertificates.generate();
        try (RedisClusterGroup secured = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(0)
                .password("Zq7Secr3t")
                .tls(tls)
                .start()) {
            String uri = secured.seedUri();
            assertTrue(uri.startsWith("rediss-cluster://:"), "TLS and the password in the URI: " + secured);
            RedlockClient c = RedlockClient.create(RedlockConfig.builder()
                    .nodes(uri)
                    .tlsTrustStore(tls.trustStore(), tls.storePassword())
                    .restartQuarantine(false)
                    .perNodeTimeout(Duration.ofMillis(300))
                    .build());
            clients.add(c);
            QuorumLock lock = c.redLock("cluster-tls");
            RoundOutcome r = await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> attempt(lock), RoundOutcome::succeeded);
            assertEquals(3, r.nodes().size(), r.toString());
            assertFalse(r.toString().contains("Zq7Secr3t"), "no password in outcomes");
            c.close();
        }
    }

    /** Every kind of lock keeps all of its keys in its node's slot: a script naming two slots would fail. */
    @Test
    void theLockFamilyWorksOnACluster() throws Exception {
        RedlockClient c = client(b -> {});
        RedlockClient other = client(b -> {});
        QuorumLock warm = c.multiLock("cluster-family-warm-up");
        await().atMost(LEASE.multipliedBy(4))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> allGranted(attempt(warm)));

        Lease fenced = c.redLock("cluster-fenced")
                .fenced()
                .tryAcquire(Duration.ofSeconds(2), LEASE)
                .orElseThrow();
        long first = fenced.fencingToken().orElseThrow();
        fenced.release();
        Lease again = other.redLock("cluster-fenced")
                .fenced()
                .tryAcquire(Duration.ofSeconds(2), LEASE)
                .orElseThrow();
        assertTrue(again.fencingToken().orElseThrow() > first, "fencing tokens increase across clients");
        assertTrue(c.inspect("cluster-fenced").locked(), "inspection reads the tagged keys");
        again.release();

        Lease fair = c.fairLock("cluster-fair")
                .tryAcquire(Duration.ofSeconds(2), LEASE)
                .orElseThrow();
        assertTrue(
                other.fairLock("cluster-fair").tryAcquire(Duration.ZERO, LEASE).isEmpty());
        fair.release();

        QuorumReadWriteLock rw = c.readWriteLock("cluster-rw");
        Lease read = rw.readLock().tryAcquire(Duration.ofSeconds(2), LEASE).orElseThrow();
        assertTrue(
                other.readWriteLock("cluster-rw")
                        .readLock()
                        .tryAcquire(Duration.ZERO, LEASE)
                        .map(l -> {
                            l.release();
                            return true;
                        })
                        .orElse(false),
                "readers share");
        assertTrue(other.readWriteLock("cluster-rw")
                .writeLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .isEmpty());
        read.release();

        QuorumSemaphore permits = c.semaphore("cluster-permits", 2);
        Lease p1 = permits.tryAcquire(Duration.ofSeconds(2), LEASE).orElseThrow();
        Lease p2 = other.semaphore("cluster-permits", 2)
                .tryAcquire(Duration.ofSeconds(2), LEASE)
                .orElseThrow();
        assertTrue(permits.tryAcquire(Duration.ZERO, LEASE).isEmpty(), "two permits only");
        p1.release();
        p2.release();

        Lease both = c.multiResourceLock(List.of("cluster-a", "cluster-b"))
                .tryAcquire(Duration.ofSeconds(2), LEASE)
                .orElseThrow();
        assertTrue(other.redLock("cluster-b").tryAcquire(Duration.ZERO, LEASE).isEmpty());
        both.release();
        assertFalse(c.isLocked("cluster-a"));
    }

    /**
     * The topology check's own probe writes a new node's incarnation marker; it must write it under the identity the
     * client judges the node by (for a followed node, the run_id with the replication id), or the client's first round
     * takes the marker for another server's, replaces it, and warns of data loss on a cluster that lost nothing.
     */
    @Test
    void theTopologyCheckWritesTheMarkerUnderTheIdentityTheClientKnows() throws Exception {
        // Another key prefix: no marker on the nodes yet, so the new client's check writes the first one.
        RedlockClient fresh = client(b -> b.keyPrefix("warm-start:"));
        QuorumLock lock = fresh.multiLock("cluster-first-marker");
        List<String> reasons = new ArrayList<>();
        await().atMost(LEASE.multipliedBy(4))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    RoundOutcome r = attempt(lock);
                    r.nodes().forEach(n -> n.error().ifPresent(e -> reasons.add(e.getMessage())));
                    return allGranted(r);
                });
        assertTrue(
                reasons.stream().noneMatch(m -> m.contains("another server process")),
                "the marker was taken for another server's: " + reasons);
    }

    /**
     * A client cannot start with another node count because a node-count record is out of reach: it needs a majority
     * of the three records, and refuses when it cannot read one.
     */
    @Test
    void theNodeCountIsCheckedAgainstAMajorityOfItsRecordsOrTheClientDoesNotStart() {
        try (RedisClusterGroup small = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(0)
                .nodeTimeout(Duration.ofSeconds(5))
                .start()) {
            java.util.function.Function<String, RedlockConfig> config = uri -> RedlockConfig.builder()
                    .nodes(uri)
                    .connectTimeout(Duration.ofMillis(250))
                    .build();
            clients.add(RedlockClient.create(config.apply(small.seedUri()))); // records 3
            RedisServer first = small.masterOfKey(RedlockConfig.DEFAULT_KEY_PREFIX + "cluster:nodes");
            RedisServer second = small.masters().stream()
                    .filter(m -> m.port() != first.port())
                    .findFirst()
                    .orElseThrow();
            first.pause(); // a stall shorter than the node timeout: no failover
            try {
                IllegalArgumentException other = assertThrows(
                        IllegalArgumentException.class,
                        () -> clients.add(RedlockClient.create(config.apply(small.seedUri() + "?nodes=5"))));
                assertTrue(other.getMessage().contains("Change the URI's ?nodes=5 to ?nodes=3"), other.getMessage());
                second.pause();
                try {
                    IllegalStateException unchecked = assertThrows(
                            IllegalStateException.class,
                            () -> clients.add(RedlockClient.create(config.apply(small.seedUri()))));
                    assertTrue(
                            unchecked.getMessage().contains("could not check the node count"), unchecked.getMessage());
                } finally {
                    second.resume();
                }
            } finally {
                first.resume();
            }
        }
    }
}
