/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import dev.redlock.testkit.RedisSentinelGroup;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Repeated failovers under load: three nodes, two of them Sentinel-managed masters (each a master, a replica and
 * three sentinels) and one plain master; four independent clients contend for one lock with restart protection on,
 * while a nemesis fails the Sentinel-managed masters over again and again (a killed master, its server brought back
 * as a replica of the new one; or a graceful {@code SENTINEL FAILOVER}, after which the old master stays writable for
 * seconds). The history must show no second holder, no lost update and no lost lease, and locks granted between the
 * failovers.
 */
class SentinelScenariosTest extends ChaosTestBase {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration FAILOVER = Duration.ofSeconds(30);

    @Test
    void repeatedFailoversGrantNoSecondHolder() throws Exception {
        long seed = seed("sentinel-failovers");
        Random random = new Random(seed);
        List<RedisSentinelGroup> groups = new ArrayList<>();
        RedisServer plain = null;
        try {
            groups.add(RedisSentinelGroup.start("a", 1, 3));
            groups.add(RedisSentinelGroup.start("b", 1, 3));
            plain = RedisServer.start();
            List<String> uris =
                    List.of(groups.get(0).sentinelUri(), groups.get(1).sentinelUri(), plain.uri());
            History history = new History();
            Duration duration = scaled(Duration.ofSeconds(30));
            LockWorkload.Settings settings = new LockWorkload.Settings()
                    .clients(4)
                    .lock("sentinel-failovers")
                    .leaseTime(LEASE)
                    .wait(Duration.ofMillis(500))
                    .maxWork(Duration.ofMillis(20))
                    .duration(duration)
                    .fenced(true)
                    .config(b -> b.restartQuarantine(true));
            long origin = System.nanoTime();
            AtomicInteger failovers = new AtomicInteger();
            Thread nemesis = new Thread(
                    () -> failOverRepeatedly(groups, random, history, origin, duration, failovers), "sentinel-nemesis");
            nemesis.start();
            LockWorkload.Result result = LockWorkload.run(uris, settings, history, seed);
            nemesis.join(FAILOVER.toMillis() * 2);
            assertTrue(result.crashes().isEmpty(), () -> "workload clients crashed: " + result.crashes());
            Run run = finish(
                    "sentinel-failovers",
                    history,
                    result,
                    List.of(
                            new dev.redlock.chaos.history.MutualExclusionChecker(),
                            new dev.redlock.chaos.history.LostLeaseChecker(),
                            new dev.redlock.chaos.history.LostUpdateChecker(result.register()),
                            new dev.redlock.chaos.history.FencingChecker()),
                    origin);
            assertTrue(run.allValid(), () -> "violations: " + run.results());
            assertTrue(failovers.get() >= 2, "the nemesis failed over at least twice: " + failovers.get());
            long granted = history.ops().stream()
                    .filter(o -> o.outcome() == Op.Outcome.OK)
                    .count();
            assertTrue(granted > 20, "locks were granted between the failovers: " + granted);
        } finally {
            for (RedisSentinelGroup g : groups) {
                g.close();
            }
            if (plain != null) {
                plain.close();
            }
        }
    }

    /**
     * Fails over the two groups in turn until {@code duration} is over: a killed master (brought back as a replica of
     * the new one) or a graceful failover, chosen by the seed.
     */
    private static void failOverRepeatedly(
            List<RedisSentinelGroup> groups,
            Random random,
            History history,
            long origin,
            Duration duration,
            AtomicInteger failovers) {
        long stopAt = origin + duration.toNanos() - FAILOVER.toNanos() / 4;
        int turn = 0;
        try {
            // Let the fresh nodes' restart protection pass first, so that locks are granted before the first fault.
            pause(LEASE.multipliedBy(3));
            while (System.nanoTime() - stopAt < 0) {
                int node = turn++ % groups.size();
                RedisSentinelGroup group = groups.get(node);
                boolean kill = random.nextBoolean();
                history.add(new NemesisEvent(System.nanoTime(), kill ? "failover-kill" : "failover", node, null));
                if (kill) {
                    RedisServer old = group.master();
                    group.killMasterAndAwaitFailover(FAILOVER);
                    group.restartAsReplica(old, FAILOVER);
                } else {
                    group.failover(FAILOVER);
                }
                history.add(new NemesisEvent(System.nanoTime(), "failover-done", node, null));
                failovers.incrementAndGet();
                pause(Duration.ofMillis(500 + random.nextInt(1500)));
            }
        } catch (RuntimeException e) {
            history.add(new NemesisEvent(System.nanoTime(), "nemesis-error", NemesisEvent.ALL_NODES, e.toString()));
            throw e;
        }
    }
}
