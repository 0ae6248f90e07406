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

import dev.redlock.internal.node.TestTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** Topology checks against real nodes: duplicates, replicas, eviction policy, N, lease time, unreachable nodes. */
class TopologyCheckTest extends RedisBackedTest {

    private static final Duration AWAIT = Duration.ofSeconds(15);

    private final List<AutoCloseable> owned = new ArrayList<>();

    @AfterEach
    void closeOwned() throws Exception {
        for (int i = owned.size() - 1; i >= 0; i--) {
            owned.get(i).close();
        }
        owned.clear();
    }

    /** The test settings of {@link #config()}, over the given nodes only. */
    private static RedlockConfig.Builder over(List<String> uris) {
        return RedlockConfig.builder()
                .nodes(uris)
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(10));
    }

    private RedlockClient create(RedlockConfig.Builder b) {
        RedlockClient c = RedlockClient.create(b.build());
        owned.add(c);
        return c;
    }

    /** The name a URI node of {@code node(i)} has in outcomes and warnings. */
    private static String name(int i) {
        return node(i).host() + ":" + node(i).port();
    }

    private static String info(int i, String section) {
        try (Jedis jedis = node(i).client()) {
            return jedis.info(section);
        }
    }

    private static String policy(Jedis admin) {
        return admin.configGet("maxmemory-policy").get("maxmemory-policy");
    }

    private static Set<Thread> libraryThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("redlock-"))
                .collect(Collectors.toSet());
    }

    @Test
    void cleanSetupHasNoWarnings() {
        // Strict: creation itself would throw on any problem.
        RedlockClient client = client(b -> b.checkTopology(true).strictTopology(true));
        TopologyReport report = client.check();
        assertTrue(report.isClean(), report::toString);
        assertEquals(List.of(), report.warnings());
        assertEquals(List.of(), report.problems());
        assertEquals(List.of(), report.unchecked());
        assertEquals("TopologyReport{clean}", report.toString());
    }

    /**
     * With the default settings (restart quarantine on), the check's script probe must pass on healthy nodes. Seen
     * failing: every node was reported unable to acquire ("acquire.lua answered unexpected reply to ACQUIRE_FENCED").
     */
    @Test
    void cleanSetupWithDefaultSettingsHasNoFailures() {
        RedlockClient client = client(b -> b.restartQuarantine(true).checkTopology(false));
        TopologyReport report = client.check();
        assertEquals(List.of(), report.failures());
        assertTrue(report.isClean(), report::toString);
    }

    @Test
    void sameServerUnderTwoNamesIsReported() {
        int port = node(0).port();
        RedlockClient client =
                create(over(List.of("redis://127.0.0.1:" + port, REDIS.uris().get(1), "redis://localhost:" + port))
                        .checkTopology(false));
        TopologyReport report = client.check();
        assertEquals(1, report.warnings().size(), report::toString);
        String w = report.problems().get(0);
        assertTrue(
                w.contains("127.0.0.1:" + port)
                        && w.contains("localhost:" + port)
                        && w.contains("same Redis server")
                        && w.contains("run_id"),
                w);
        assertFalse(w.contains(name(1)), w);
    }

    @Test
    void userClientOnTheSameServerAsAUriNodeIsReported() {
        TestTransport mine = new TestTransport(node(2).host(), node(2).port(), 2_000);
        owned.add(mine);
        RedlockClient client =
                create(over(List.of(REDIS.uris().get(0), REDIS.uris().get(2)))
                        .node("mine", mine)
                        .checkTopology(false));
        TopologyReport report = client.check();
        assertEquals(1, report.warnings().size(), report::toString);
        String w = report.warnings().get(0);
        assertTrue(w.contains(name(2) + " and mine") && w.contains("same Redis server"), w);
    }

    @Test
    void evictingPolicyIsReportedNamingTheNode() {
        RedlockClient client = client(b -> b.checkTopology(false));
        try (Jedis admin = node(1).client()) {
            String before = policy(admin);
            try {
                admin.configSet("maxmemory-policy", "allkeys-lru");
                TopologyReport report = client.check();
                assertEquals(1, report.warnings().size(), report::toString);
                String w = report.problems().get(0);
                assertTrue(
                        w.contains("node " + name(1)) && w.contains("allkeys-lru") && w.contains("can evict any key"),
                        w);

                // volatile-*: lock keys have a TTL, so they can be evicted too; the message is softer.
                admin.configSet("maxmemory-policy", "volatile-ttl");
                report = client.check();
                assertEquals(1, report.warnings().size(), report::toString);
                w = report.problems().get(0);
                assertTrue(
                        w.contains("node " + name(1))
                                && w.contains("volatile-ttl")
                                && w.contains("may evict lock keys under memory pressure"),
                        w);
            } finally {
                admin.configSet("maxmemory-policy", before);
            }
        }
        assertTrue(client.check().isClean());
    }

    @Test
    void replicaAndItsMasterAreBothReported() {
        RedlockClient client = client(b -> b.checkTopology(false));
        try (Jedis replica = node(4).client()) {
            try {
                replica.replicaof(node(3).host(), node(3).port());
                // The replica's role changes at once; the master counts it once it asked to sync.
                await().atMost(AWAIT).until(() -> info(3, "replication").contains("connected_slaves:1"));

                TopologyReport report = client.check();
                assertEquals(2, report.warnings().size(), report::toString);
                assertTrue(
                        report.problems().stream()
                                .anyMatch(w -> w.startsWith("node " + name(4) + " is a replica (of " + name(3) + ")")),
                        report::toString);
                assertTrue(
                        report.problems().stream()
                                .anyMatch(w -> w.startsWith("node " + name(3) + " has 1 connected replica(s)")),
                        report::toString);
            } finally {
                replica.replicaofNoOne();
                await().atMost(AWAIT)
                        .until(() -> info(3, "replication").contains("connected_slaves:0")
                                && info(4, "replication").contains("role:master"));
            }
        }
        assertTrue(client.check().isClean());
    }

    @Test
    void strictModeFailsCreationWithoutLeavingThreadsAndFailsCheck() {
        Set<Thread> before = libraryThreads();
        try (Jedis admin = node(2).client()) {
            String policy = policy(admin);
            try {
                admin.configSet("maxmemory-policy", "allkeys-random");
                IllegalStateException e =
                        assertThrows(IllegalStateException.class, () -> create(config().strictTopology(true)));
                assertTrue(
                        e.getMessage().contains("node " + name(2))
                                && e.getMessage().contains("allkeys-random"),
                        e.getMessage());
                Set<Thread> left = libraryThreads();
                left.removeAll(before);
                assertEquals(Set.of(), left, "threads of the failed client");

                // A strict client that started clean fails check() once a problem appears.
                admin.configSet("maxmemory-policy", policy);
                RedlockClient client = create(config().strictTopology(true));
                admin.configSet("maxmemory-policy", "allkeys-random");
                IllegalStateException later = assertThrows(IllegalStateException.class, client::check);
                assertTrue(later.getMessage().contains("node " + name(2)), later.getMessage());
            } finally {
                admin.configSet("maxmemory-policy", policy);
            }
        }
    }

    @Test
    void evenOrSmallNodeCountAndShortLeaseAreReported() {
        TopologyReport four =
                create(over(REDIS.uris().subList(0, 4)).checkTopology(false)).check();
        assertEquals(1, four.warnings().size(), four::toString);
        assertTrue(four.problems().get(0).contains("4 nodes configured: an even N"), four::toString);

        TopologyReport two =
                create(over(REDIS.uris().subList(0, 2)).checkTopology(false)).check();
        assertEquals(1, two.warnings().size(), two::toString);
        assertTrue(two.problems().get(0).contains("at least 3"), two::toString);

        // 1000 - (10 + 2) drift - 200 = 788 ms left, below 10 x 200 ms.
        TopologyReport shortLease = create(
                        over(REDIS.uris()).leaseTime(Duration.ofSeconds(1)).checkTopology(false))
                .check();
        assertEquals(1, shortLease.warnings().size(), shortLease::toString);
        String w = shortLease.problems().get(0);
        assertTrue(
                w.contains("leaseTime 1000 ms leaves 788 ms")
                        && w.contains("drift 12 ms")
                        && w.contains("perNodeTimeout 200 ms")
                        && w.contains("(2000 ms)"),
                w);
    }

    @Test
    void unreachableNodeIsReportedButNeverFailsStrictMode() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        List<String> uris = new ArrayList<>(REDIS.uris().subList(0, 4));
        uris.add("redis://127.0.0.1:" + closedPort);
        RedlockClient client = create(over(uris).strictTopology(true)); // does not throw

        TopologyReport report = client.check(); // nor does this
        assertFalse(report.isClean());
        assertEquals(List.of(), report.problems(), report::toString);
        assertEquals(1, report.unchecked().size(), report::toString);
        assertTrue(
                report.unchecked().get(0).startsWith("node 127.0.0.1:" + closedPort + ": cannot check"),
                report::toString);
        assertEquals(report.unchecked(), report.warnings());
    }

    /** A URI of a port nobody listens on. */
    private static String closedPortUri() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "redis://127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void threeOfFiveNodesDownMeansNoQuorumNamingEachButNeverFailsStrictMode() throws IOException {
        List<String> uris = new ArrayList<>(REDIS.uris().subList(0, 2));
        for (int i = 0; i < 3; i++) {
            uris.add(closedPortUri());
        }
        RedlockClient client = create(over(uris).strictTopology(true)); // nodes may be down when a client starts
        TopologyReport report = client.check();
        String why = report.noQuorum().orElseThrow(() -> new AssertionError(report.toString()));
        assertTrue(
                why.startsWith("no lock can be acquired now: 2 of 5 nodes can take part, and a RedLock needs 3"), why);
        for (String uri : uris.subList(2, 5)) {
            assertTrue(why.contains(uri.substring("redis://".length()) + " (not reachable)"), why);
        }
        assertEquals(List.of(), report.problems(), report::toString);

        List<String> majority = new ArrayList<>(REDIS.uris().subList(0, 3));
        majority.add(closedPortUri());
        majority.add(closedPortUri());
        assertEquals(java.util.Optional.empty(), create(over(majority)).check().noQuorum());
        assertEquals(java.util.Optional.empty(), create(config()).check().noQuorum());
    }

    @Test
    void wrongCredentialsAreNamedAsSuchAndLeaveNoQuorum() {
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            uris.add("redis://nobody:wrong-password@" + node(i).host() + ":" + node(i).port());
        }
        TopologyReport report = create(over(uris)).check();
        assertEquals(5, report.unchecked().size(), report::toString);
        for (String u : report.unchecked()) {
            assertTrue(u.contains("authentication failed"), u);
            assertTrue(u.contains("check the user name and password of its URI"), u);
            assertFalse(u.contains("wrong-password"), u);
        }
        String why = report.noQuorum().orElseThrow(() -> new AssertionError(report.toString()));
        assertTrue(why.contains("0 of 5 nodes can take part"), why);
        assertTrue(why.contains("(authentication failed)"), why);
        assertFalse(why.contains("wrong-password"), why);
    }

    /**
     * Freshly started masters: restart protection keeps their votes out for a lease, and the report says so, with the
     * seconds left, instead of "clean" (seen before: check() clean and every lock failing for about 31 s).
     */
    @Test
    void freshMastersWithinRestartProtectionAreReportedWithTheTimeLeft() {
        try (dev.redlock.testkit.RedisNodes fresh = dev.redlock.testkit.RedisNodes.start(3)) {
            RedlockClient client = create(RedlockConfig.builder()
                    .nodes(fresh.uris())
                    .leaseTime(Duration.ofSeconds(30))
                    .restartQuarantine(true));
            TopologyReport report = client.check();
            assertEquals(3, report.quarantined().size(), report::toString);
            for (String q : report.quarantined()) {
                assertTrue(q.contains(": restart protection: its votes count again in about "), q);
                assertTrue(q.contains("it has been up "), q);
            }
            String why = report.noQuorum().orElseThrow(() -> new AssertionError(report.toString()));
            assertTrue(why.contains("0 of 3 nodes can take part"), why);
            assertTrue(why.contains("restart protection"), why);

            // A lock attempt meanwhile fails with a message in words: each node, why, and what to do.
            NotEnoughNodesException e = assertThrows(
                    NotEnoughNodesException.class,
                    () -> client.redLock(uniqueName("fresh")).tryAcquire(Duration.ZERO, Duration.ofSeconds(30)));
            String m = e.getMessage();
            assertTrue(m.contains("it needs 2 of 3 nodes, and "), m);
            assertTrue(m.contains("restart protection, its vote does not count yet (it has been up "), m);
            assertTrue(m.contains("wait about a lease"), m);
            assertFalse(m.contains("PENDING") || m.contains("QUARANTINED") || m.contains("RoundOutcome"), m);
        }
    }

    /** A node where the given commands are denied to the client's user by an ACL. */
    private RedlockClient restricted(int node, String... denied) {
        String user = "redlock-check";
        List<String> rules = new ArrayList<>(List.of("reset", "on", ">pw", "~*", "&*", "+@all"));
        for (String d : denied) {
            rules.add("-" + d);
        }
        try (Jedis admin = node(node).client()) {
            admin.aclSetUser(user, rules.toArray(new String[0]));
        }
        owned.add(() -> {
            try (Jedis admin = node(node).client()) {
                admin.aclDelUser(user);
            }
        });
        List<String> uris = new ArrayList<>(REDIS.uris());
        uris.set(
                node,
                "redis://" + user + ":pw@" + node(node).host() + ":"
                        + node(node).port());
        return create(over(uris));
    }

    @Test
    void nodeThatCannotReleaseIsReportedNamingTheCommand() {
        RedlockClient client = restricted(1, "del");
        TopologyReport report = client.check();
        assertTrue(
                report.problems().stream().anyMatch(p -> p.contains(name(1)) && p.contains("DEL")), report::toString);
    }

    @Test
    void nodeThatCannotRunScriptsIsReportedNamingTheCommand() {
        RedlockClient client = restricted(2, "evalsha", "eval");
        TopologyReport report = client.check();
        assertTrue(
                report.problems().stream().anyMatch(p -> p.contains(name(2)) && p.contains("EVALSHA")),
                report::toString);
        RedlockConfig strict = client.config().toBuilder().strictTopology(true).build();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RedlockClient.create(strict));
        assertTrue(e.getMessage().contains(name(2)), e::getMessage);
    }
}
