/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.RedlockClient;
import dev.redlock.RoundOutcome;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A failed extension that the nodes applied anyway: the replies come back too late (the fault proxy delays them past
 * the per-node timeout), so the client counts no quorum, but every node it reached has set the new, shorter TTL. The
 * lease's deadline must follow the shorter TTL, or its holder keeps acting after another client got the lock.
 */
class ExtendScenariosTest extends ChaosTestBase {

    private static final int SEEDS = 20;

    /**
     * One schedule: A holds a 3 s lease on all five nodes; replies from three to five of them are delayed past the
     * per-node timeout while A extends to a shorter lease; then B takes the lock as soon as the keys expire.
     *
     * @param oldRule record A's deadline as it was before the failed extension (what the client used to assume),
     *        for the negative control
     */
    private static void schedule(
            ChaosCluster cluster,
            RedlockClient a,
            RedlockClient b,
            long seed,
            int index,
            boolean oldRule,
            History history)
            throws InterruptedException {
        Random random = new Random(seed);
        String name = "extend-" + index;
        List<Integer> order = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(order, random);
        List<Integer> delayed = order.subList(0, 3 + random.nextInt(3));
        // Longer than half the 100 ms per-node timeout (the reply misses the round), shorter than the whole of it (the
        // connection is not dropped as stalled, so the command reaches the node and is applied).
        Duration latency = Duration.ofMillis(60 + random.nextInt(30));
        Duration shorter = Duration.ofMillis(400 + random.nextInt(400));
        System.out.printf(
                "[chaos] extend #%d seed=%d delay %s on %s, extend to %s%n", index, seed, latency, delayed, shorter);
        Op.Builder first = Op.builder().client(0).lock(name).invokeNanos(System.nanoTime());
        Lease held = a.redLock(name)
                .tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(3))
                .orElseThrow();
        first.completeNanos(System.nanoTime()).outcome(Op.Outcome.OK).token(held.token());
        long before = held.deadlineNanos();
        for (int d : delayed) {
            cluster.latency(d, latency);
        }
        RoundOutcome extension = held.extend(shorter);
        for (int d : delayed) {
            cluster.latency(d, Duration.ZERO);
        }
        assertFalse(extension.succeeded(), () -> "the replies came too late: " + extension);
        first.deadlineNanos(oldRule ? before : held.deadlineNanos());
        Lease[] second = new Lease[1];
        Op.Builder other = attempt(history, 1, b.redLock(name), second, Duration.ofSeconds(3), Duration.ofSeconds(3));
        if (second[0] != null) {
            history.add(other.releaseNanos(System.nanoTime()).build());
            second[0].release();
        } else {
            history.add(other.build());
        }
        history.add(first.releaseNanos(System.nanoTime()).build());
        held.release();
    }

    private Run run(String scenario, boolean oldRule, int seeds) throws Exception {
        long base = seed(scenario);
        Random seedsOf = new Random(base);
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options().proxies());
                RedlockClient a = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build());
                RedlockClient b = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build())) {
            cluster.onFault(history::add);
            long origin = System.nanoTime();
            for (int i = 0; i < seeds; i++) {
                schedule(cluster, a, b, seedsOf.nextLong(), i, oldRule, history);
            }
            return finish(
                    scenario, history, null, List.of(new MutualExclusionChecker(), new LostLeaseChecker()), origin);
        }
    }

    @Test
    void aFailedShorterExtensionNeverOverstatesTheLease() throws Exception {
        Run run = run("extend-unconfirmed", false, SEEDS);
        assertTrue(run.allValid(), () -> run.results().toString());
        long won = run.history().ops().stream()
                .filter(op -> op.client() == 1 && op.outcome() == Op.Outcome.OK)
                .count();
        assertTrue(won == SEEDS, "B gets the lock each time, once the shortened keys expire: " + won);
    }

    @Test
    void theOldDeadlineRuleOverlapsTheNextHolder() throws Exception {
        Run run = run("extend-unconfirmed-old-rule", true, 3);
        CheckResult mutex = run.result(MutualExclusionChecker.NAME);
        assertFalse(mutex.isValid(), "negative control: keeping the old deadline must overlap B: " + mutex);
    }
}
