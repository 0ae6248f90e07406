/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisSentinelGroup;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Sentinel-managed master as one node of three, against real sentinels, a master and its replica, and two plain
 * masters: the node follows a failover, sits out a lease after it, and a failover that lost a lease's key grants no
 * second holder (and does, with restart protection off: the scenario really loses the key).
 */
class SentinelNodeTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration FAILOVER = Duration.ofSeconds(30);
    /**
     * The lease of the lost-key scenarios: it must outlast the failover (a few seconds, more on a loaded machine), or B
     * has no time left to try while A's lease is valid and the negative control shows nothing.
     */
    private static final Duration LOST_KEY_LEASE = Duration.ofSeconds(12);

    private RedisSentinelGroup sentinel;
    private final List<RedisServer> plain = new ArrayList<>();
    private final List<RedlockClient> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        sentinel = RedisSentinelGroup.start("orders", 1, 3);
        plain.add(RedisServer.start());
        plain.add(RedisServer.start());
    }

    @AfterEach
    void stop() {
        clients.forEach(RedlockClient::close);
        plain.forEach(RedisServer::close);
        if (sentinel != null) {
            sentinel.close();
        }
    }

    private RedlockClient client(Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(sentinel.sentinelUri(), plain.get(0).uri(), plain.get(1).uri())
                .perNodeTimeout(Duration.ofMillis(200))
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

    private static NodeStatus first(RoundOutcome r) {
        return r.nodes().get(0).status();
    }

    @Test
    void followsAFailoverAndSitsOutALeaseAfterIt() throws Exception {
        RedlockClient c = client(b -> {});
        QuorumLock lock = c.redLock("sentinel-follow");
        assertTrue(c.nodeNames().get(0).startsWith("orders("), "the node is named after its master: " + c.nodeNames());
        // Fresh servers: every node waits out a lease, then the Sentinel-managed one votes like the others.
        await().atMost(LEASE.multipliedBy(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first(attempt(lock)) == NodeStatus.GRANTED);

        RedisServer before = sentinel.master();
        RedisServer after = sentinel.killMasterAndAwaitFailover(FAILOVER);
        assertNotEquals(before.port(), after.port());

        // The client follows the sentinels: the node answers again, from the promoted replica, but does not vote.
        RoundOutcome during = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> attempt(lock), r -> first(r) == NodeStatus.QUARANTINED);
        assertTrue(during.succeeded(), "the two plain masters still form a quorum: " + during);
        assertTrue(
                during.nodes()
                        .get(0)
                        .error()
                        .map(Throwable::getMessage)
                        .orElse("")
                        .matches(".*(different server process|another server process).*"),
                "the reason names the lost data: " + during.nodes().get(0));
        long quarantinedAt = System.nanoTime();
        await().atMost(LEASE.multipliedBy(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first(attempt(lock)) == NodeStatus.GRANTED);
        assertTrue(
                System.nanoTime() - quarantinedAt > LEASE.toNanos() / 2,
                "the promoted replica sat out about a lease before voting");
    }

    /** A promoted replica that fsyncs every write still lacks what replication had not brought it. */
    @Test
    void trustedPersistenceDoesNotCoverAFailover() throws Exception {
        for (RedisServer s : sentinel.dataNodes()) {
            try (redis.clients.jedis.Jedis j = s.client()) {
                j.configSet("appendonly", "yes");
                j.configSet("appendfsync", "always");
            }
        }
        RedlockClient c = client(b -> b.trustPersistentNodes(true));
        // A MultiLock round hears every node: the fsyncing master may answer after the plain ones decided a RedLock.
        QuorumLock everyNode = c.multiLock("sentinel-trusted-all");
        await().atMost(LEASE.multipliedBy(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first(attempt(everyNode)) == NodeStatus.GRANTED);
        sentinel.killMasterAndAwaitFailover(FAILOVER);
        RoundOutcome after = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> attempt(everyNode), r -> first(r) != NodeStatus.PENDING && first(r) != NodeStatus.ERROR);
        assertEquals(NodeStatus.QUARANTINED, first(after), "the failover counts as data loss: " + after);
    }

    @Test
    void votesStopCountingWhenNoMajorityOfTheSentinelsVouchesForTheMaster() throws Exception {
        RedlockClient c = client(b -> {});
        QuorumLock lock = c.redLock("sentinel-unconfirmed");
        await().atMost(LEASE.multipliedBy(3))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first(attempt(lock)) == NodeStatus.GRANTED);
        Lease held = lock.tryAcquire(Duration.ZERO, LEASE).orElseThrow();

        // Cut off from its sentinels, a client could be on the old master's side of a partition: within the staleness
        // limit neither its acquire votes nor its extension votes count.
        sentinel.pauseSentinels();
        try {
            RoundOutcome stale = await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> held.extend(LEASE), r -> first(r) == NodeStatus.QUARANTINED);
            assertTrue(stale.succeeded(), "the two plain masters still extend the lease: " + stale);
            assertTrue(
                    stale.nodes()
                            .get(0)
                            .error()
                            .map(Throwable::getMessage)
                            .orElse("")
                            .contains("sentinels"),
                    "the reason names the sentinels: " + stale.nodes().get(0));
            QuorumLock other = c.redLock("sentinel-unconfirmed-2");
            // A round decided by the plain masters may not have heard the node yet (PENDING): take one that did.
            RoundOutcome acquire = await().atMost(Duration.ofSeconds(5))
                    .until(() -> attempt(other), r -> first(r) != NodeStatus.PENDING);
            assertEquals(NodeStatus.QUARANTINED, first(acquire), "nor does an acquire vote: " + acquire);
        } finally {
            sentinel.resumeSentinels();
        }
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> first(held.extend(LEASE)) == NodeStatus.GRANTED);
        held.release();
    }

    @Test
    void overTlsWithPasswordsOnTheMasterAndTheSentinels() throws Exception {
        dev.redlock.testkit.TlsCertificates tls = dev.redlock.testkit.TlsCertificates.generate();
        try (RedisSentinelGroup secured = RedisSentinelGroup.builder("payments")
                        .replicas(1)
                        .sentinels(3)
                        .password("Zq7Secr3t")
                        .sentinelPassword("Zq7Secr3t")
                        .tls(tls)
                        .start();
                RedisServer p1 = RedisServer.startTls(tls);
                RedisServer p2 = RedisServer.startTls(tls)) {
            String uri = secured.sentinelUri();
            assertTrue(uri.startsWith("rediss-sentinel://:"), "TLS and the password in the URI: " + secured);
            RedlockClient c = RedlockClient.create(RedlockConfig.builder()
                    .nodes(uri, p1.uri(), p2.uri())
                    .tlsTrustStore(tls.trustStore(), tls.storePassword())
                    .leaseTime(Duration.ofSeconds(1))
                    .perNodeTimeout(Duration.ofMillis(300))
                    .build());
            clients.add(c);
            QuorumLock lock = c.redLock("sentinel-tls");
            RoundOutcome r = await().atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> attempt(lock), o -> first(o) == NodeStatus.GRANTED);
            assertTrue(r.succeeded(), r.toString());
            assertFalse(r.toString().contains("Zq7Secr3t"), "no password in outcomes");
            assertTrue(
                    c.check().problems().stream().noneMatch(p -> p.contains("replica")),
                    "with restart protection on, a Sentinel-managed master's replicas are expected: " + c.check());
        }
    }

    @Test
    void aWritableReplicaNeverVotes() throws Exception {
        RedisServer replica = sentinel.replicas().get(0);
        try (redis.clients.jedis.Jedis r = replica.client()) {
            r.configSet("replica-read-only", "no"); // it would take the lock key; its copy is not the master's
        }
        // The same full INFO a Sentinel-managed node reads: with trusted persistence, a plain node reads it too.
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(replica.uri(), plain.get(0).uri(), plain.get(1).uri())
                .trustPersistentNodes(true)
                .perNodeTimeout(Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(1));
        RedlockClient c = RedlockClient.create(b.build());
        clients.add(c);
        QuorumLock lock = c.redLock("replica-vote");
        // Once the plain masters vote (their fresh start waited out), the replica's own fresh start is over too.
        RoundOutcome r = await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> attempt(lock),
                        o -> first(o) != NodeStatus.PENDING && o.nodes().get(1).status() == NodeStatus.GRANTED);
        assertEquals(NodeStatus.QUARANTINED, first(r), r.toString());
        assertTrue(
                r.nodes().get(0).error().map(Throwable::getMessage).orElse("").contains("replica"), r.toString());
    }

    @Test
    void aFailoverThatLostTheKeyGrantsNoSecondHolder() throws Exception {
        assertFalse(
                loseTheKeyInAFailover(true),
                "a second holder while the first lease was valid, with restart protection on");
    }

    /** The negative control: the same failover without restart protection does grant a second holder. */
    @Test
    void withoutRestartProtectionTheSameFailoverGrantsASecondHolder() throws Exception {
        assertTrue(
                loseTheKeyInAFailover(false),
                "the scenario must lose the key: without restart protection a second client gets the lock");
    }

    /**
     * A holds the lock on the Sentinel-managed master and plain node 0 only (plain node 1 holds another value); the master's
     * replica never receives A's key; the master dies and the replica is promoted. Returns whether B then acquired
     * the lock on the promoted replica and plain node 1 while A's lease was still valid.
     */
    private boolean loseTheKeyInAFailover(boolean protection) throws Exception {
        RedlockClient a = client(b -> b.restartQuarantine(protection).leaseTime(LOST_KEY_LEASE));
        RedlockClient b = client(b2 -> b2.restartQuarantine(protection).leaseTime(LOST_KEY_LEASE));
        String name = "sentinel-lost-key-" + protection;
        if (protection) {
            await().atMost(LOST_KEY_LEASE.multipliedBy(3))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> first(attempt(a.redLock(name + "-warm"))) == NodeStatus.GRANTED
                            && first(attempt(b.redLock(name + "-warm"))) == NodeStatus.GRANTED);
        }
        RedisServer replica = sentinel.replicas().get(0);
        replica.pause();
        try (redis.clients.jedis.Jedis master = sentinel.master().client()) {
            master.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
        }
        String key = a.redLock(name).key();
        plain.get(1).set(key, "blocker");
        Lease held = a.redLock(name)
                .tryAcquire(Duration.ofSeconds(2), LOST_KEY_LEASE)
                .orElseThrow();
        try (redis.clients.jedis.Jedis blocked = plain.get(1).client()) {
            blocked.del(key);
        }
        RedisServer old = sentinel.master();
        old.kill();
        replica.resume();
        RedisServer promoted = sentinel.awaitFailover(old, FAILOVER);
        assertEquals(replica.port(), promoted.port(), "the only replica is promoted");
        assertFalse(promoted.exists(key), "the promoted replica never received A's key");

        // B tries for as long as A's lease lasts (minus a margin for the clocks of this test).
        Duration left = held.remainingValidity();
        assertTrue(
                left.compareTo(Duration.ofSeconds(2)) > 0,
                () -> "the failover took so long that A's lease has " + left.toMillis()
                        + " ms left: too little for B to try, the scenario would show nothing");
        long until = System.nanoTime() + left.toNanos() - Duration.ofMillis(500).toNanos();
        boolean second = false;
        AcquireResult last = null;
        while (!second && System.nanoTime() - until < 0) {
            last = b.redLock(name).attempt(Duration.ofMillis(200), Duration.ofSeconds(1));
            second = last.acquired() && held.isValid();
            last.lease().ifPresent(Lease::release);
        }
        System.out.printf("protection %s: second holder %s; B's last round: %s%n", protection, second, last);
        held.release();
        return second;
    }
}
