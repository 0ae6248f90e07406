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

import dev.redlock.testkit.RedisNodesExtension;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Seven real masters, three per lock ({@link RedlockConfig.Builder#nodesPerLock(int)}): each lock lives on its own
 * three nodes only, every client agrees on them whatever order it lists the nodes in, exclusion holds across clients,
 * and nodes outside a lock's three do not matter to it.
 */
class NodesPerLockTest {

    private static final int M = 7;

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(M);

    private final List<RedlockClient> clients = new ArrayList<>();

    private RedlockClient client(List<String> uris, Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder b = RedlockConfig.builder();
        dev.redlock.testkit.TlsCertificates tls = RedisNodesExtension.certificates();
        if (tls != null) {
            b.tlsTrustStore(tls.trustStore(), tls.storePassword());
        }
        b.nodes(uris)
                .nodesPerLock(3)
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(10))
                .retryDelay(Duration.ofMillis(5))
                .waitBudget(Duration.ofSeconds(5));
        tweak.accept(b);
        RedlockClient c = RedlockClient.create(b.build());
        clients.add(c);
        return c;
    }

    private RedlockClient client() {
        return client(REDIS.uris(), b -> {});
    }

    @AfterEach
    void close() {
        clients.forEach(RedlockClient::close);
        clients.clear();
    }

    /** The server behind a node name ({@code host:port}). */
    private static RedisServer server(String nodeName) {
        for (int i = 0; i < M; i++) {
            if (nodeName.endsWith(":" + REDIS.node(i).port())) {
                return REDIS.node(i);
            }
        }
        throw new AssertionError("no server for " + nodeName);
    }

    private static Set<Integer> serversWithKey(String key) {
        Set<Integer> out = new TreeSet<>();
        for (int i = 0; i < M; i++) {
            RedisServer s = REDIS.node(i);
            if (s.isRunning() && !s.isPaused() && s.exists(key)) {
                out.add(i);
            }
        }
        return out;
    }

    private static Set<Integer> indicesOf(List<String> nodeNames) {
        Set<Integer> out = new TreeSet<>();
        for (String n : nodeNames) {
            for (int i = 0; i < M; i++) {
                if (server(n) == REDIS.node(i)) {
                    out.add(i);
                }
            }
        }
        return out;
    }

    @Test
    void eachLockLivesOnItsOwnThreeNodesAndTheLocksSpreadOverAllSeven() throws Exception {
        RedlockClient client = client();
        Set<Integer> used = new HashSet<>();
        for (int k = 0; k < 40; k++) {
            String name = "spread-" + k;
            QuorumLock lock = client.redLock(name);
            List<String> nodes = client.nodeNamesOf(name);
            assertEquals(3, nodes.size(), nodes::toString);
            Lease lease = lock.tryAcquire().orElseThrow();
            assertEquals(indicesOf(nodes), serversWithKey(lock.key()), name);
            used.addAll(indicesOf(nodes));
            ReleaseResult released = lease.release();
            assertEquals(
                    nodes,
                    released.nodes().stream().map(NodeOutcome::node).toList(),
                    "the release went to the lock's nodes");
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> serversWithKey(lock.key()).isEmpty());
        }
        assertEquals(M, used.size(), "40 locks over 7 nodes use every node: " + used);
    }

    @Test
    void clientsListingTheNodesInAnotherOrderAgreeAndExcludeEachOther() throws Exception {
        List<String> reversed = new ArrayList<>(REDIS.uris());
        Collections.reverse(reversed);
        RedlockClient a = client();
        RedlockClient b = client(reversed, x -> {});
        for (int k = 0; k < 20; k++) {
            String name = "agree-" + k;
            assertEquals(new TreeSet<>(a.nodeNamesOf(name)), new TreeSet<>(b.nodeNamesOf(name)), name);
            Lease held = a.redLock(name).tryAcquire().orElseThrow();
            assertEquals(
                    Optional.empty(), b.redLock(name).tryAcquire(Duration.ZERO), name + " is held by the other client");
            held.release();
            Lease next = b.redLock(name).tryAcquire(Duration.ofSeconds(2)).orElseThrow();
            next.release();
        }
    }

    @Test
    void nodesOutsideALockDoNotMatterToItAndTwoOfItsOwnDownMeanNoLock() throws Exception {
        RedlockClient client = client();
        String name = "outside";
        Set<Integer> own = indicesOf(client.nodeNamesOf(name));
        try {
            for (int i = 0; i < M; i++) {
                if (!own.contains(i)) {
                    REDIS.node(i).pause();
                }
            }
            // Four of seven nodes are paused: no quorum of seven, but this lock's three all answer.
            Lease lease = client.redLock(name).tryAcquire().orElseThrow();
            assertEquals(3, lease.acquisition().nodes().size(), lease.acquisition()::toString);
            lease.release();
            Integer[] mine = own.toArray(Integer[]::new);
            REDIS.node(mine[0]).pause();
            REDIS.node(mine[1]).pause();
            NotEnoughNodesException e = assertThrows(
                    NotEnoughNodesException.class, () -> client.redLock(name).tryAcquire(Duration.ZERO));
            assertEquals(3, e.lastRound().nodes().size(), e.getMessage());
        } finally {
            for (int i = 0; i < M; i++) {
                REDIS.node(i).resume();
            }
        }
    }

    @Test
    void theLockFamilyWorksOnEachLocksOwnNodes() throws Exception {
        RedlockClient client = client();
        long last = 0;
        for (int k = 0; k < 3; k++) {
            Lease fenced = client.redLock("family-fenced").fenced().tryAcquire().orElseThrow();
            long token = fenced.fencingToken().orElseThrow();
            assertTrue(token > last, token + " after " + last);
            last = token;
            fenced.release();
        }
        Lease fair = client.fairLock("family-fair").tryAcquire().orElseThrow();
        assertEquals(indicesOf(client.nodeNamesOf("family-fair")), serversWithKey(client.keyOf("family-fair")));
        fair.release();

        QuorumReadWriteLock rw = client.readWriteLock("family-rw");
        Lease r1 = rw.readLock().tryAcquire().orElseThrow();
        Lease r2 = rw.readLock().tryAcquire().orElseThrow();
        assertEquals(Optional.empty(), rw.writeLock().tryAcquire(Duration.ZERO), "readers hold it");
        r1.release();
        r2.release();
        rw.writeLock().tryAcquire(Duration.ofSeconds(2)).orElseThrow().release();

        QuorumSemaphore permits = client.semaphore("family-sem", 2);
        Lease p1 = permits.tryAcquire(Duration.ZERO).orElseThrow();
        Lease p2 = permits.tryAcquire(Duration.ZERO).orElseThrow();
        assertEquals(Optional.empty(), permits.tryAcquire(Duration.ZERO), "both permits are taken");
        p1.release();
        p2.release();

        // Names placed on the same nodes make one lock; names placed apart are refused, naming both.
        List<String> together = new ArrayList<>();
        String apart = null;
        List<String> firstNodes = client.nodeNamesOf("family-acct:0");
        for (int k = 1; together.size() < 1 || apart == null; k++) {
            String name = "family-acct:" + k;
            if (client.nodeNamesOf(name).equals(firstNodes)) {
                together.add(name);
            } else if (apart == null) {
                apart = name;
            }
        }
        Lease both = client.multiResourceLock(List.of("family-acct:0", together.get(0)))
                .tryAcquire()
                .orElseThrow();
        assertFalse(client.redLock(together.get(0)).tryLock(), "the second name is held with the first");
        both.release();
        String elsewhere = apart;
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class, () -> client.multiResourceLock(List.of("family-acct:0", elsewhere)));
        assertTrue(
                refused.getMessage().startsWith("names: with nodesPerLock 3 each lock uses its own nodes"),
                refused::getMessage);
        assertTrue(client.inspect("family-fenced").nodes().size() == 3, "an inspection reads the lock's nodes");
    }

    /** The incarnation marker's {@code intact} field on node {@code i} (null without a marker). */
    private static String intact(int i) {
        try (redis.clients.jedis.Jedis j = REDIS.node(i).client()) {
            return j.hget(RedlockConfig.DEFAULT_KEY_PREFIX + "node-incarnation", "intact");
        }
    }

    /**
     * The fencing repair copies a lock's counter only to that lock's nodes: a node outside them that lost its data
     * is repaired without ever receiving the lock's keys.
     */
    @Test
    void theFencingRepairCopiesACounterOnlyToItsLocksNodes() throws Exception {
        RedlockClient client =
                client(REDIS.uris(), b -> b.restartQuarantine(true).leaseTime(Duration.ofSeconds(1)));
        String name = "repaired";
        QuorumLock fenced = client.redLock(name).fenced();
        Set<Integer> own = indicesOf(client.nodeNamesOf(name));
        // Every node gets a marker, then one repair from every node marks them all intact.
        Set<Integer> touched = new TreeSet<>();
        for (int k = 0; touched.size() < M; k++) {
            client.redLock("touch-" + k)
                    .tryAcquire(Duration.ofSeconds(15))
                    .orElseThrow()
                    .release();
            touched.addAll(indicesOf(client.nodeNamesOf("touch-" + k)));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            fenced.tryAcquire(Duration.ofSeconds(2)).orElseThrow().release();
            return java.util.stream.IntStream.range(0, M).allMatch(i -> "1".equals(intact(i)));
        });
        int inside = own.iterator().next();
        String other = null;
        int outside = -1;
        for (int k = 0; outside < 0; k++) {
            for (int i : indicesOf(client.nodeNamesOf("elsewhere-" + k))) {
                if (!own.contains(i)) {
                    other = "elsewhere-" + k;
                    outside = i;
                    break;
                }
            }
        }
        String counter = client.keyOf(name) + ":fence";
        REDIS.node(inside).flushAll();
        REDIS.node(outside).flushAll();
        client.redLock(other).tryAcquire(Duration.ofSeconds(5)).orElseThrow().release(); // a new marker, not intact
        int out = outside;
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            fenced.tryAcquire(Duration.ofSeconds(2)).orElseThrow().release(); // asks for the repair
            return "1".equals(intact(out)) && "1".equals(intact(inside));
        });
        assertTrue(REDIS.node(inside).exists(counter), "the lock's node got its counter back");
        assertFalse(REDIS.node(out).exists(counter), "node " + out + " is not one of the lock's nodes " + own);
    }

    /**
     * Why every client must use the same count: a client that uses all seven nodes needs four of them, and finds
     * them beside a lock that another client holds on two of its three. (The rule's negative control.)
     */
    @Test
    void clientsWithAnotherCountDoNotExcludeEachOther() throws Exception {
        RedlockClient three = client();
        RedlockClient all = client(REDIS.uris(), b -> b.nodesPerLock(0));
        int bothHeld = 0;
        for (int k = 0; k < 10; k++) {
            String name = "mismatch-" + k;
            Lease a = three.redLock(name).tryAcquire().orElseThrow();
            Optional<Lease> b = all.redLock(name).tryAcquire(Duration.ZERO);
            if (b.isPresent()) {
                bothHeld++;
                b.get().release();
            }
            a.release();
        }
        assertEquals(10, bothHeld, "a client of all seven nodes takes the four that the lock's three leave");
    }

    /**
     * A waiter listens for its lock's releases on the lock's three nodes only: the others never publish them, and a
     * subscription one of them confirmed would count toward the majority that lets the waiter stop polling as if deaf.
     */
    @Test
    void aWaiterSubscribesOnItsLocksNodesOnly() throws Exception {
        RedlockClient holder = client();
        RedlockClient waiter = client();
        String name = "listen-here";
        QuorumLock held = holder.redLock(name);
        Lease lease = held.tryAcquire().orElseThrow();
        Set<Integer> placed = indicesOf(holder.nodeNamesOf(name));
        java.util.concurrent.CompletableFuture<Optional<Lease>> waiting =
                waiter.redLock(name).tryAcquireAsync(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(5))
                .until(() ->
                        placed.stream().allMatch(i -> channelsOf(i, held.key()).size() == 2));
        for (int i = 0; i < M; i++) {
            if (!placed.contains(i)) {
                assertEquals(List.of(), channelsOf(i, held.key()), "node " + i + " is not one of " + placed);
            }
        }
        lease.release();
        Lease next = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
        next.release();
    }

    /** The channels subscribed on node {@code i} that start with {@code key} (its own, and a client's). */
    private static List<String> channelsOf(int i, String key) {
        try (redis.clients.jedis.Jedis j = REDIS.node(i).client()) {
            return j.pubsubChannels().stream()
                    .filter(c -> c.startsWith(key))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aCountAboveTheNodesOrBelowThreeIsRefusedNamingTheField() {
        IllegalArgumentException low = assertThrows(
                IllegalArgumentException.class, () -> RedlockConfig.builder().nodesPerLock(2));
        assertTrue(
                low.getMessage().startsWith("nodesPerLock: must be 0 (every node) or 3 to 99, got 2"), low::getMessage);
        IllegalArgumentException high = assertThrows(
                IllegalArgumentException.class,
                () -> RedlockConfig.builder()
                        .nodes(REDIS.uris())
                        .nodesPerLock(8)
                        .build());
        assertTrue(
                high.getMessage()
                        .startsWith("nodesPerLock: must be 0 (every node) or 3 to the number of nodes (7)," + " got 8"),
                high::getMessage);
        RedlockConfig c =
                RedlockConfig.builder().nodes(REDIS.uris()).nodesPerLock(5).build();
        assertEquals(5, c.toBuilder().build().nodesPerLock());
        assertEquals(7, RedlockConfig.builder().nodes(REDIS.uris()).build().nodesPerLock(7));
    }
}
