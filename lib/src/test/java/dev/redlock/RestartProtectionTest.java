/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.internal.node.TestTransport;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Restart protection whatever the transport: a node's grant counts only while the client knows the node has not lost
 * data since it last confirmed the node's identity, and a node whose identity cannot be read does not vote.
 */
class RestartProtectionTest extends RedisBackedTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final String ACL_USER = "redlock-limited";
    private static final String ACL_PASSWORD = "s3cret-Pw";

    private final List<AutoCloseable> owned = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
        owned.clear();
        for (int i = 0; i < 5; i++) {
            if (node(i).isRunning() && !node(i).isPaused()) {
                try (Jedis admin = node(i).client()) {
                    admin.aclDelUser(ACL_USER);
                }
            }
        }
    }

    private RedlockConfig.Builder quarantining(RedlockConfig.Builder b) {
        return b.restartQuarantine(true).leaseTime(TTL).perNodeTimeout(Duration.ofMillis(150));
    }

    /** A client whose five nodes are the caller's own transports (one connection each, reconnected on failure). */
    private RedlockClient userClientNodes() {
        RedlockConfig.Builder b = quarantining(RedlockConfig.builder()).retryDelay(Duration.ofMillis(5));
        for (int i = 0; i < 5; i++) {
            TestTransport transport = new TestTransport(node(i).host(), node(i).port(), 150);
            owned.add(transport);
            b.node("user-" + i, transport);
        }
        RedlockClient c = RedlockClient.create(b.build());
        owned.add(0, c); // closed before the transports it uses
        return c;
    }

    /** Polls with throw-away locks until every node's vote counts for {@code client}. */
    static void awaitTrusted(RedlockClient client) {
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    // A MultiLock round waits for every node, so each vote is seen.
                    AcquireResult r = client.multiLock(uniqueName("warm-up")).attempt(Duration.ZERO, TTL);
                    r.lease().ifPresent(l -> l.release().completion().join());
                    return r.acquired();
                });
    }

    @Test
    void userClientNodesCountNoVoteFromANodeThatRestartedEmpty() throws Exception {
        String name = uniqueName("user-restart");
        RedlockClient a = client(this::quarantining);
        RedlockClient b = userClientNodes();
        awaitTrusted(a);
        awaitTrusted(b);

        Lease held = a.redLock(name).tryAcquire(Duration.ZERO, TTL).orElseThrow();
        for (int i = 0; i < 3; i++) {
            node(i).kill();
            node(i).restart(); // no persistence: A's key is gone on a majority
        }
        AcquireResult r = b.redLock(name).attempt(Duration.ofMillis(1_500), TTL);
        assertFalse(r.acquired() && held.isValid(), () -> "B won while A's lease is valid: " + r.lastRound());
        r.lease().ifPresent(Lease::release);
        held.release();
    }

    @Test
    void flushAllIsCaughtLikeARestart() throws Exception {
        String name = uniqueName("flushall");
        RedlockClient a = client(this::quarantining);
        RedlockClient b = client(this::quarantining);
        awaitTrusted(a);
        awaitTrusted(b);

        Lease held = a.redLock(name).tryAcquire(Duration.ZERO, TTL).orElseThrow();
        for (int i = 0; i < 3; i++) {
            node(i).flushAll(); // the same server, its data gone: no restart to see
        }
        AcquireResult r = b.redLock(name).attempt(Duration.ofMillis(1_500), TTL);
        assertFalse(r.acquired() && held.isValid(), () -> "B won while A's lease is valid: " + r.lastRound());
        r.lease().ifPresent(Lease::release);
        held.release();
    }

    /** Creates a user that may do everything but the given commands, on every node. */
    private static void restrictedUser(String... denied) {
        for (int i = 0; i < 5; i++) {
            List<String> rules = new ArrayList<>(List.of("reset", "on", ">" + ACL_PASSWORD, "~*", "&*", "+@all"));
            for (String d : denied) {
                rules.add("-" + d);
            }
            try (Jedis admin = node(i).client()) {
                admin.aclSetUser(ACL_USER, rules.toArray(new String[0]));
            }
        }
    }

    private static List<String> restrictedUris() {
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            uris.add("redis://" + ACL_USER + ":" + ACL_PASSWORD + "@" + node(i).host() + ":" + node(i).port());
        }
        return uris;
    }

    @Test
    void nodeWhoseIdentityCannotBeReadDoesNotVote() throws Exception {
        awaitTrusted(client(this::quarantining)); // every node has been known long enough
        restrictedUser("info");
        RedlockClient blind = client(restrictedUris(), this::quarantining);
        AcquireResult r = blind.redLock(uniqueName("no-info")).attempt(Duration.ZERO, TTL);
        r.lease().ifPresent(Lease::release);
        assertFalse(r.acquired(), () -> "INFO is refused, yet the nodes voted: " + r.lastRound());
        assertEquals(FailureReason.NOT_ENOUGH_NODES, r.reason());
        assertTrue(
                r.lastRound().nodes().stream().noneMatch(o -> o.status() == NodeStatus.GRANTED),
                r.lastRound()::toString);
        assertTrue(
                r.lastRound().nodes().stream()
                                .filter(o -> o.status() == NodeStatus.QUARANTINED)
                                .count()
                        >= 3,
                r.lastRound()::toString);
        NodeOutcome first = r.lastRound().nodes().stream()
                .filter(o -> o.status() == NodeStatus.QUARANTINED)
                .findFirst()
                .orElseThrow();
        assertTrue(first.error().orElseThrow().getMessage().contains("identity is unknown"), first::toString);
    }

    @Test
    void refusedConfigWithTrustedPersistenceCountsAsNotPersistent() throws Exception {
        node(0).restart(); // just restarted, without persistence
        restrictedUser("config");
        RedlockClient c = client(restrictedUris(), b -> quarantining(b).trustPersistentNodes(true));
        // Until node 0 has been up for the lease time, whenever it answers, its grant must not count.
        List<NodeOutcome> answers = new ArrayList<>();
        await().atMost(TTL.dividedBy(2)).pollInterval(Duration.ofMillis(10)).until(() -> {
            AcquireResult r = c.redLock(uniqueName("no-config")).attempt(Duration.ZERO, TTL);
            r.lease().ifPresent(Lease::release);
            NodeOutcome o = r.lastRound().nodes().get(0);
            if (o.status() != NodeStatus.PENDING) {
                answers.add(o);
            }
            return answers.size() >= 3;
        });
        for (NodeOutcome o : answers) {
            assertEquals(NodeStatus.QUARANTINED, o.status(), () -> "persistence unknown, yet a fresh node voted: " + o);
        }
    }

    /** A client over one standalone server of the test's own, with trusted persistence. */
    private static RedlockConfig.Builder alone(String uri) {
        return RedlockConfig.builder()
                .node(uri)
                .restartQuarantine(true)
                .trustPersistentNodes(true)
                .leaseTime(TTL)
                .perNodeTimeout(Duration.ofMillis(150))
                .checkTopology(false);
    }

    private static NodeStatus voteAfterTrusted(RedlockClient c) throws InterruptedException {
        AcquireResult r = c.redLock(uniqueName("alone")).attempt(Duration.ZERO, TTL);
        r.lease().ifPresent(Lease::release);
        return r.lastRound().nodes().get(0).status();
    }

    /**
     * {@code appendfsync always} without {@code appendonly yes} persists nothing on each write: a restart from its RDB
     * snapshot may lack the latest writes, so it starts a new incarnation even with trusted persistence.
     */
    @Test
    void fsyncAlwaysWithoutAofIsNotTrustedPersistence() throws Exception {
        try (RedisServer s = RedisServer.start(List.of("--appendfsync", "always"))) {
            try (RedlockClient c = RedlockClient.create(alone(s.uri()).build())) {
                await().atMost(Duration.ofSeconds(15)).until(() -> voteAfterTrusted(c) == NodeStatus.GRANTED);
                String before;
                try (Jedis j = s.client()) {
                    before = j.hget("redlock:node-incarnation", "id");
                    j.save(); // the restart comes back from this snapshot
                }
                s.restart();
                await().atMost(Duration.ofSeconds(5)).until(() -> voteAfterTrusted(c) != NodeStatus.ERROR);
                assertEquals(NodeStatus.QUARANTINED, voteAfterTrusted(c));
                try (Jedis j = s.client()) {
                    assertFalse(before.equals(j.hget("redlock:node-incarnation", "id")), "a new incarnation");
                }
            }
        }
    }

    /** A refused CONFIG leaves persistence unknown: a restart of a fully persistent node is still quarantined. */
    @Test
    void refusedConfigOnAPersistentNodeKeepsItsRestartQuarantined() throws Exception {
        try (RedisServer s = RedisServer.start(List.of("--appendonly", "yes", "--appendfsync", "always"))) {
            String uri = "redis://" + ACL_USER + ":" + ACL_PASSWORD + "@" + s.host() + ":" + s.port();
            try (Jedis admin = s.client()) {
                admin.aclSetUser(ACL_USER, "reset", "on", ">" + ACL_PASSWORD, "~*", "&*", "+@all", "-config");
                admin.configSet("appendonly", "yes");
            }
            try (RedlockClient c = RedlockClient.create(alone(uri).build())) {
                await().atMost(Duration.ofSeconds(15)).until(() -> voteAfterTrusted(c) == NodeStatus.GRANTED);
                s.restart(); // keeps its data, AOF included; the ACL user is gone with the process
                try (Jedis admin = s.client()) {
                    admin.aclSetUser(ACL_USER, "reset", "on", ">" + ACL_PASSWORD, "~*", "&*", "+@all", "-config");
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> voteAfterTrusted(c) != NodeStatus.ERROR);
                assertEquals(
                        NodeStatus.QUARANTINED,
                        voteAfterTrusted(c),
                        "persistence cannot be read, so the restart is not taken for one that lost nothing");
            }
        }
    }
}
