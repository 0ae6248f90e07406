/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.Lease;
import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * Nodes that lose their data: restarted without persistence, flushed ({@code FLUSHALL}, as after a failover to an
 * empty replica), or an address that now reaches another server. Each scenario runs {@value #SEEDS} seeded
 * schedules against one cluster and checks the whole history; each has a negative control with restart protection
 * off, on which the same checker must report violations.
 */
class DataLossScenariosTest extends ChaosTestBase {

    private static final int SEEDS = 20;
    private static final int CONTROL_SEEDS = 3;

    private static RedlockConfig.Builder config(ChaosCluster cluster, boolean protection, Duration lease) {
        return LockWorkload.baseConfig(cluster.uris())
                .restartQuarantine(protection)
                .leaseTime(lease);
    }

    /** A client whose nodes are the caller's own pooled Jedis clients, as {@code Builder.node(name, client)}. */
    private static RedlockClient userClientNodes(
            ChaosCluster cluster, boolean protection, Duration lease, List<AutoCloseable> owned) {
        RedlockConfig.Builder b = RedlockConfig.builder()
                .restartQuarantine(protection)
                .leaseTime(lease)
                .perNodeTimeout(Duration.ofMillis(100))
                .retryDelay(Duration.ofMillis(10));
        for (int i = 0; i < cluster.size(); i++) {
            RedisServer s = cluster.server(i);
            RedisClient pool = RedisClient.builder()
                    .hostAndPort(s.host(), s.port())
                    .clientConfig(DefaultJedisClientConfig.builder()
                            .socketTimeoutMillis(100)
                            .autoNegotiateProtocol(false)
                            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                            .build())
                    .build();
            owned.add(pool);
            b.node("user-" + i, dev.redlock.jedis.JedisNodeTransport.of(pool));
        }
        RedlockClient c = RedlockClient.create(b.build());
        owned.add(0, c);
        return c;
    }

    /** Waits until every node's vote counts for {@code client} (a MultiLock round hears every node). */
    private static void awaitTrusted(RedlockClient client, Duration lease) {
        await().atMost(lease.plusSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    AcquireResult r = client.multiLock("warm-up").attempt(Duration.ZERO, lease);
                    r.lease().ifPresent(l -> l.release().completion().join());
                    return r.acquired();
                });
    }

    private static void close(List<AutoCloseable> owned) throws Exception {
        for (AutoCloseable c : owned) {
            c.close();
        }
    }

    // ----------------------------------------------------------------------------------- item: no second holder

    /**
     * One schedule: A holds the lock (on a bare quorum, or on all five nodes); then one to three of its nodes lose
     * their data, by a restart without persistence or FLUSHALL; then B, over URIs or over its own Jedis clients,
     * tries to take the same lock while A's lease is valid.
     */
    private static void lossSchedule(
            ChaosCluster cluster,
            RedlockClient a,
            List<RedlockClient> bs,
            long seed,
            int index,
            Duration lease,
            boolean protection,
            History history)
            throws InterruptedException {
        Random random = new Random(seed);
        String name = "loss-" + index;
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(order, random);
        boolean everywhere = random.nextBoolean();
        List<Integer> holders = everywhere ? order : order.subList(0, 3);
        // Enough victims that B could win without restart protection: 3 of 5 holders, or 1-2 of a bare quorum.
        int victims = everywhere ? 3 : 1 + random.nextInt(2);
        boolean flush = random.nextBoolean();
        RedlockClient b = bs.get(random.nextInt(bs.size()));
        System.out.printf(
                "[chaos] data-loss #%d seed=%d holders=%s victims=%s %s, B over %s%n",
                index,
                seed,
                holders,
                holders.subList(0, victims),
                flush ? "FLUSHALL" : "restart",
                b.nodeNames().get(0));
        if (protection) {
            awaitTrusted(a, lease);
            awaitTrusted(b, lease);
        }
        Op.Builder first = Op.builder().client(0).lock(name).invokeNanos(System.nanoTime());
        Lease held = holdOnBareQuorum(cluster, a, name, holders, lease);
        first.completeNanos(System.nanoTime())
                .outcome(Op.Outcome.OK)
                .token(held.token())
                .deadlineNanos(held.deadlineNanos());
        for (int v : holders.subList(0, victims)) {
            if (flush) {
                cluster.flushAll(v);
            } else {
                cluster.kill(v);
                cluster.restart(v);
            }
        }
        Lease[] second = new Lease[1];
        Op.Builder other = attempt(history, 1, b.redLock(name), second, lease, Duration.ofMillis(700));
        history.add(first.releaseNanos(System.nanoTime()).build());
        held.release();
        if (second[0] != null) {
            history.add(other.releaseNanos(System.nanoTime()).build());
            second[0].release();
        } else {
            history.add(other.build());
        }
    }

    private Run lossRun(String scenario, boolean protection, int seeds) throws Exception {
        long base = seed(scenario);
        Random seedsOf = new Random(base);
        Duration lease = Duration.ofSeconds(1);
        History history = new History();
        List<AutoCloseable> owned = new ArrayList<>();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            cluster.onFault(history::add);
            RedlockClient a =
                    RedlockClient.create(config(cluster, protection, lease).build());
            owned.add(a);
            RedlockClient bUris =
                    RedlockClient.create(config(cluster, protection, lease).build());
            owned.add(bUris);
            RedlockClient bUser = userClientNodes(cluster, protection, lease, owned);
            long origin = System.nanoTime();
            for (int i = 0; i < seeds; i++) {
                lossSchedule(cluster, a, List.of(bUris, bUser), seedsOf.nextLong(), i, lease, protection, history);
            }
            Run run = finish(scenario, history, null, List.of(new MutualExclusionChecker()), origin);
            assertNoLeftovers(cluster, lease);
            return run;
        } finally {
            close(owned);
        }
    }

    @Test
    void dataLossOnAnyTransportNeverGivesASecondHolder() throws Exception {
        Run run = lossRun("data-loss", true, SEEDS);
        assertTrue(run.allValid(), () -> run.results().toString());
        // B may win once A's lease has run out (on a loaded machine the restarts alone can take that long), never
        // before.
        List<Op> ops = run.history().ops();
        for (Op b : ops) {
            if (b.client() == 1 && b.outcome() == Op.Outcome.OK) {
                Op a = ops.stream()
                        .filter(op -> op.client() == 0 && op.lock().equals(b.lock()))
                        .findFirst()
                        .orElseThrow();
                assertTrue(
                        b.windowStart() >= a.deadlineNanos(), () -> "B won while A's lease was valid: " + a + ", " + b);
            }
        }
    }

    @Test
    void withoutRestartProtectionTheSameSchedulesGiveSecondHolders() throws Exception {
        Run run = lossRun("data-loss-unprotected", false, CONTROL_SEEDS);
        CheckResult mutex = run.result(MutualExclusionChecker.NAME);
        assertFalse(mutex.isValid(), "negative control: the checker must report the double grants: " + mutex);
    }

    // ----------------------------------------------------------------------------------- item: fencing tokens

    /**
     * One schedule: nodes D, E are down (and come back empty); a fenced grant reaches the other three, Q; one node of
     * Q restarts empty, the two others stop answering, and once the restarted node votes again a fenced grant is
     * tried through it and D, E. Only that one node lost data between the two grants: the token must not go back.
     * Then every node answers again and tokens go on.
     */
    private static void fencingSchedule(
            ChaosCluster cluster,
            RedlockClient c,
            long seed,
            int index,
            Duration lease,
            boolean protection,
            History history)
            throws InterruptedException {
        Random random = new Random(seed);
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(order, random);
        List<Integer> q = order.subList(0, 3);
        int restarted = q.get(random.nextInt(3));
        List<Integer> down = order.subList(3, 5);
        List<Integer> silent = new ArrayList<>(q);
        silent.remove(Integer.valueOf(restarted));
        System.out.printf(
                "[chaos] fencing-loss #%d seed=%d grant on %s, %s restarts, %s fall silent, %s were down%n",
                index, seed, q, restarted, silent, down);
        QuorumLock lock = c.redLock("fenced-loss-" + index).fenced();
        if (protection) {
            for (int i = 0; i < cluster.size(); i++) {
                cluster.flushAll(i); // a new cluster each time: markers and counters start over
            }
            awaitTrusted(c, lease);
        }
        grant(history, 0, lock, lease); // with every node up: the counters start (and are intact) everywhere
        for (int d : down) {
            cluster.kill(d);
        }
        grant(history, 0, lock, lease);
        for (int d : down) {
            cluster.restart(d);
        }
        cluster.kill(restarted);
        cluster.restart(restarted);
        for (int s : silent) {
            cluster.pause(s);
        }
        if (protection) {
            // Wait until the restarted nodes vote again (a plain lock, so this lock's counters are not touched).
            await().atMost(lease.plusSeconds(10))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        AcquireResult r = c.redLock("probe-" + index).attempt(Duration.ZERO, lease);
                        r.lease().ifPresent(Lease::release);
                        return r.acquired();
                    });
        }
        AcquireResult through = grant(history, 1, lock, lease);
        if (protection) {
            assertEquals(
                    FailureReason.FENCING_UNAVAILABLE,
                    through.reason(),
                    () -> "no quorum of intact counters answered: " + through.lastRound());
        }
        for (int s : silent) {
            cluster.resume(s);
        }
        AcquireResult later = grant(history, 0, lock, lease);
        if (protection) {
            assertTrue(later.acquired(), () -> "every node answers: tokens go on: " + later.lastRound());
        }
    }

    /** One fenced acquisition (a short wait), recorded with its token, then released. */
    private static AcquireResult grant(History history, int client, QuorumLock lock, Duration lease)
            throws InterruptedException {
        Op.Builder op = Op.builder().client(client).lock(lock.name()).invokeNanos(System.nanoTime());
        AcquireResult r = lock.attempt(Duration.ofMillis(500), lease);
        op.completeNanos(System.nanoTime());
        if (r.acquired()) {
            Lease l = r.lease().orElseThrow();
            op.outcome(Op.Outcome.OK)
                    .token(l.token())
                    .deadlineNanos(l.deadlineNanos())
                    .fencingToken(l.fencingToken().orElseThrow());
            op.releaseNanos(System.nanoTime());
            l.release();
        } else {
            op.outcome(Op.Outcome.FAIL).failure(r.reason().name());
        }
        history.add(op.build());
        return r;
    }

    private Run fencingRun(String scenario, boolean protection, int seeds) throws Exception {
        long base = seed(scenario);
        Random seedsOf = new Random(base);
        Duration lease = Duration.ofMillis(500);
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options());
                RedlockClient c =
                        RedlockClient.create(config(cluster, protection, lease).build())) {
            cluster.onFault(history::add);
            long origin = System.nanoTime();
            for (int i = 0; i < seeds; i++) {
                fencingSchedule(cluster, c, seedsOf.nextLong(), i, lease, protection, history);
            }
            return finish(scenario, history, null, List.of(new FencingChecker(), new MutualExclusionChecker()), origin);
        }
    }

    @Test
    void fencingTokensNeverGoBackWhenAMinorityLosesData() throws Exception {
        Run run = fencingRun("fencing-loss", true, SEEDS);
        assertTrue(run.allValid(), () -> run.results().toString());
    }

    @Test
    void withoutRestartProtectionFencingTokensGoBack() throws Exception {
        Run run = fencingRun("fencing-loss-unprotected", false, CONTROL_SEEDS);
        CheckResult fencing = run.result(FencingChecker.NAME);
        assertFalse(fencing.isValid(), "negative control: the checker must report the repeated token: " + fencing);
    }

    // ----------------------------------------------------------------------------------- item: another server

    @Test
    void anAddressThatNowReachesAnotherServerDoesNotVoteAtOnce() throws Exception {
        long seed = seed("address-swap");
        int victim = new Random(seed).nextInt(5);
        Duration lease = Duration.ofSeconds(1);
        try (RedisServer other = RedisServer.start();
                ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options().proxies())) {
            // The other server has been up, and used by a client of its own, for longer than any lease.
            RedlockConfig.Builder alone = RedlockConfig.builder()
                    .node(other.uri())
                    .restartQuarantine(true)
                    .leaseTime(lease)
                    .checkTopology(false);
            try (RedlockClient itsOwn = RedlockClient.create(alone.build())) {
                awaitTrusted(itsOwn, lease);
            }
            try (RedlockClient c =
                    RedlockClient.create(config(cluster, true, lease).build())) {
                awaitTrusted(c, lease);
                cluster.proxy(victim).retarget(other.port()); // same address, another long-running server
                long swapped = System.nanoTime();
                List<NodeOutcome> seen = new ArrayList<>();
                Consumer<AcquireResult> record =
                        r -> seen.add(r.lastRound().nodes().get(victim));
                await().atMost(Duration.ofSeconds(5))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            AcquireResult r = c.multiLock("swap-probe").attempt(Duration.ZERO, lease);
                            r.lease().ifPresent(Lease::release);
                            record.accept(r);
                            NodeStatus s = r.lastRound().nodes().get(victim).status();
                            return s == NodeStatus.QUARANTINED || s == NodeStatus.GRANTED;
                        });
                NodeOutcome first = seen.get(seen.size() - 1);
                assertEquals(NodeStatus.QUARANTINED, first.status(), "a different server at the address: " + first);
                // It votes again once it has been known for the longest lease plus drift.
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            AcquireResult r = c.multiLock("swap-probe").attempt(Duration.ZERO, lease);
                            r.lease().ifPresent(Lease::release);
                            return r.acquired();
                        });
                assertTrue(System.nanoTime() - swapped >= lease.toNanos(), "quarantined for at least the lease");
            }
        }
    }
}
