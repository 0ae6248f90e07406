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
import dev.redlock.Lease;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 5, 6 and 7: a node forgets or expires a held key. With the lease held on a bare quorum, one such node is
 * enough for a second client to acquire while the first still holds a valid lease: Redlock's known hazards. These
 * runs double as negative controls: the mutual-exclusion checker must report the double grant.
 */
class SplitBrainScenariosTest extends ChaosTestBase {

    private static final Duration LEASE = Duration.ofSeconds(10);

    /** Releases both leases, records both operations, and checks the history. */
    private static Run releaseAndCheck(
            String name,
            ChaosCluster cluster,
            History history,
            long origin,
            Op.Builder first,
            Lease held,
            Op.Builder other,
            Lease second) {
        history.add(first.deadlineNanos(held.deadlineNanos())
                .releaseNanos(System.nanoTime())
                .build());
        held.release();
        if (second != null) {
            history.add(other.releaseNanos(System.nanoTime()).build());
            second.release();
        } else {
            history.add(other.build());
        }
        Run run = finish(name, history, null, List.of(new MutualExclusionChecker(), new LostLeaseChecker()), origin);
        assertNoLeftovers(cluster, LEASE);
        return run;
    }

    private Run crashRestart(String name, ChaosCluster.Options options, boolean quarantine, long seed)
            throws Exception {
        Random random = new Random(seed);
        int victim = random.nextInt(3);
        History history = new History();
        // With quarantine the lease must be short enough to wait out: the fresh masters count only once they have
        // been up for the longest TTL in use.
        Duration ttl = quarantine ? Duration.ofSeconds(3) : LEASE;
        try (ChaosCluster cluster = ChaosCluster.start(5, options);
                RedlockClient a = RedlockClient.create(LockWorkload.baseConfig(cluster.uris())
                        .restartQuarantine(quarantine)
                        .leaseTime(ttl)
                        .build());
                RedlockClient b = RedlockClient.create(LockWorkload.baseConfig(cluster.uris())
                        .restartQuarantine(quarantine)
                        .leaseTime(ttl)
                        .build())) {
            if (quarantine) {
                for (RedlockClient c : List.of(a, b)) {
                    await().atMost(ttl.plusSeconds(5)).until(() -> {
                        AcquireResult r = c.redLock("warm-up").attempt(Duration.ZERO, ttl);
                        r.lease().ifPresent(l -> l.release().completion().join());
                        return r.acquired()
                                && r.lastRound().nodes().stream().noneMatch(o -> o.status() == NodeStatus.QUARANTINED);
                    });
                }
            }
            cluster.onFault(history::add);
            long origin = System.nanoTime();
            Op.Builder first = Op.builder().client(0).lock(name).invokeNanos(System.nanoTime());
            Lease held = holdOnBareQuorum(cluster, a, name, List.of(0, 1, 2), ttl);
            first.completeNanos(System.nanoTime()).outcome(Op.Outcome.OK).token(held.token());

            cluster.kill(victim);
            cluster.restart(victim);

            Lease[] second = new Lease[1];
            Op.Builder other = attempt(history, 1, b.redLock(name), second, ttl);
            assertTrue(held.isValid(), "A's lease is still valid by its own clock");
            return releaseAndCheck(name, cluster, history, origin, first, held, other, second[0]);
        }
    }

    @Test
    void crashRestartWithoutPersistenceOrQuarantineAllowsASecondHolder() throws Exception {
        Run run =
                crashRestart("restart-no-quarantine", new ChaosCluster.Options(), false, seed("restart-no-quarantine"));
        CheckResult mutex = run.result(MutualExclusionChecker.NAME);
        // The expected outcome of this configuration: the restarted node forgot A's key, so B won nodes
        // {restarted, 3, 4} while A still held a valid lease. Restart quarantine (the default) prevents it; see
        // the next scenario.
        assertFalse(mutex.isValid(), "the checker must catch the double grant: " + mutex);
        assertTrue(
                mutex.violations().get(0).contains("overlap"),
                mutex.violations().get(0));
        System.out.println("[chaos] restart-no-quarantine: double grant detected, as expected with restart "
                + "quarantine turned off");
    }

    @Test
    void crashRestartWithoutPersistenceIsContainedByQuarantine() throws Exception {
        Run run = crashRestart("restart-quarantine", new ChaosCluster.Options(), true, seed("restart-quarantine"));
        assertTrue(run.allValid(), () -> run.results().toString());
        assertEquals(
                Op.Outcome.FAIL,
                run.history().ops().stream()
                        .filter(op -> op.client() == 1)
                        .findFirst()
                        .orElseThrow()
                        .outcome(),
                "B must not win while the restarted node is quarantined");
    }

    @Test
    void crashRestartWithAofAlwaysKeepsTheKey() throws Exception {
        Run run = crashRestart("restart-aof", new ChaosCluster.Options().aof(), false, seed("restart-aof"));
        assertTrue(run.allValid(), () -> run.results().toString());
        assertEquals(
                Op.Outcome.FAIL,
                run.history().ops().stream()
                        .filter(op -> op.client() == 1)
                        .findFirst()
                        .orElseThrow()
                        .outcome(),
                "B must not get the lock");
    }

    private Run clockJump(String name, List<Integer> holders, int jumped, long seed) throws Exception {
        Random random = new Random(seed);
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options());
                RedlockClient a = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build());
                RedlockClient b = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build())) {
            cluster.onFault(history::add);
            long origin = System.nanoTime();
            Op.Builder first = Op.builder().client(0).lock(name).invokeNanos(System.nanoTime());
            Lease held = holdOnBareQuorum(cluster, a, name, holders, LEASE);
            first.completeNanos(System.nanoTime()).outcome(Op.Outcome.OK).token(held.token());

            // Jump the clocks of `jumped` of the nodes holding A's key: Redis expires it there at once.
            List<Integer> order = new java.util.ArrayList<>(holders);
            java.util.Collections.shuffle(order, random);
            for (int i = 0; i < jumped; i++) {
                cluster.clockJump(order.get(i), "redlock:*");
            }
            Lease[] second = new Lease[1];
            Op.Builder other = attempt(history, 1, b.redLock(name), second, LEASE);
            return releaseAndCheck(name, cluster, history, origin, first, held, other, second[0]);
        }
    }

    @Test
    void clockJumpOnTwoOfFiveHoldersIsTolerated() throws Exception {
        Run run = clockJump("clock-jump-all-held", List.of(0, 1, 2, 3, 4), 2, seed("clock-jump-all-held"));
        assertTrue(run.allValid(), () -> run.results().toString());
    }

    @Test
    void fastClocksOnTwoNodesUnderLoadKeepSafety() throws Exception {
        long seed = seed("fast-clocks");
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(5));
        List<Integer> nodes = new java.util.ArrayList<>(List.of(0, 1, 2, 3, 4));
        java.util.Collections.shuffle(nodes, random);
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = new Nemesis();
            // Two nodes run at three times the client's clock rate: every 100 ms their lock keys lose two thirds
            // of their remaining TTL.
            for (long at = 200; at < duration.toMillis(); at += 100) {
                for (int n : nodes.subList(0, 2)) {
                    nemesis.at(
                            Duration.ofMillis(at),
                            "fast clock on node " + n,
                            () -> cluster.clockRate(n, "redlock:*", 3.0));
                }
            }
            LockWorkload.Settings settings =
                    new LockWorkload.Settings().duration(duration).clients(4).maxWork(Duration.ofMillis(20));
            Run run = run("fast-clocks", cluster, settings, nemesis, seed, List.of());
            assertTrue(run.allValid(), () -> run.results().toString());
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    @Test
    void clockJumpOnABareQuorumCausesADoubleGrantThatTheCheckerCatches() throws Exception {
        Run run = clockJump("clock-jump-bare-quorum", List.of(0, 1, 2), 1, seed("clock-jump-bare-quorum"));
        CheckResult mutex = run.result(MutualExclusionChecker.NAME);
        assertFalse(mutex.isValid(), "negative control: the checker must report the double grant: " + mutex);
    }
}
