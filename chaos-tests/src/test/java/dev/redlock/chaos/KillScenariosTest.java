/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.QuorumPolicy;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.LivenessChecker;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 1, 2 and 8: masters killed under a contended workload (four clients, release notifications on, three
 * threads each on one lock where the scenario is about availability rather than MultiLock).
 */
class KillScenariosTest extends ChaosTestBase {

    @Test
    void killMinorityKeepsSafetyAndLiveness() throws Exception {
        killMinority("kill-minority", new ChaosCluster.Options());
    }

    /** The same over TLS-only masters: the library's TLS connections reconnect, resubscribe and keep both. */
    @Test
    void killMinorityOverTlsKeepsSafetyAndLiveness() throws Exception {
        killMinority("kill-minority-tls", new ChaosCluster.Options().tls());
    }

    private void killMinority(String name, ChaosCluster.Options options) throws Exception {
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(6));
        List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(nodes, random);
        long killAt = duration.toMillis() / 5 + random.nextInt((int) (duration.toMillis() / 4));
        try (ChaosCluster cluster = ChaosCluster.start(5, options)) {
            Nemesis nemesis = new Nemesis()
                    .at(Duration.ofMillis(killAt), "kill node " + nodes.get(0), () -> cluster.kill(nodes.get(0)))
                    .at(
                            Duration.ofMillis(killAt + random.nextInt(500)),
                            "kill node " + nodes.get(1),
                            () -> cluster.kill(nodes.get(1)));
            LockWorkload.Settings settings =
                    new LockWorkload.Settings().duration(duration).clients(4).threads(3);
            Run run = runWithLiveness(name, cluster, settings, nemesis, seed, duration);

            assertTrue(run.allValid(), () -> run.results().toString());
            assertNotificationsInUse(cluster, nodes.get(4));
            long afterKill = run.history().ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK
                            && op.invokeNanos() - run.origin()
                                    > Duration.ofMillis(killAt + 600).toNanos())
                    .count();
            assertTrue(afterKill > 0, "acquisitions continue with 3 of 5 masters");
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    /**
     * Seven masters, five per lock: the lock lives on its own five, and two of them are killed (the most its quorum
     * survives) while a node outside it is paused. Exclusion and fencing hold, acquisitions go on with three of the
     * lock's five, and the two masters outside its five never see its key.
     */
    @Test
    void withFiveOfSevenPerLockKillingTwoOfTheLocksOwnKeepsSafetyAndLiveness() throws Exception {
        String name = "kill-two-of-five-per-lock";
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(6));
        try (ChaosCluster cluster = ChaosCluster.start(7, new ChaosCluster.Options())) {
            java.util.function.Consumer<dev.redlock.RedlockConfig.Builder> fivePerLock = b -> b.nodesPerLock(5);
            LockWorkload.Settings settings = new LockWorkload.Settings()
                    .duration(duration)
                    .clients(4)
                    .threads(3)
                    .fenced(true)
                    .config(fivePerLock);
            List<Integer> own = new ArrayList<>();
            List<Integer> outside = new ArrayList<>();
            try (dev.redlock.RedlockClient probe = dev.redlock.RedlockClient.create(
                    LockWorkload.baseConfig(cluster.uris()).nodesPerLock(5).build())) {
                List<String> names = probe.nodeNames();
                List<String> ofLock = probe.nodeNamesOf(settings.lock());
                for (int i = 0; i < names.size(); i++) {
                    (ofLock.contains(names.get(i)) ? own : outside).add(i);
                }
            }
            assertEquals(5, own.size(), own::toString);
            Collections.shuffle(own, random);
            long killAt = duration.toMillis() / 5 + random.nextInt((int) (duration.toMillis() / 4));
            int paused = outside.get(random.nextInt(outside.size()));
            Nemesis nemesis = new Nemesis()
                    .at(Duration.ofMillis(killAt), "kill node " + own.get(0), () -> cluster.kill(own.get(0)))
                    .at(
                            Duration.ofMillis(killAt + random.nextInt(500)),
                            "kill node " + own.get(1),
                            () -> cluster.kill(own.get(1)))
                    .at(Duration.ofMillis(killAt / 2), "pause node " + paused, () -> cluster.pause(paused))
                    .at(Duration.ofMillis(killAt + 1_000), "resume node " + paused, () -> cluster.resume(paused));
            Run run = runWithLiveness(name, cluster, settings, nemesis, seed, duration);

            assertTrue(run.allValid(), () -> run.results().toString());
            long afterKill = run.history().ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK
                            && op.invokeNanos() - run.origin()
                                    > Duration.ofMillis(killAt + 600).toNanos())
                    .count();
            assertTrue(afterKill > 0, "acquisitions continue with 3 of the lock's 5 masters");
            for (String found : cluster.keysEverywhere("*")) {
                int node = Integer.parseInt(found.substring(0, found.indexOf(':')));
                assertTrue(
                        own.contains(node) || !found.contains(settings.lock()),
                        "a node outside the lock's five holds " + found);
            }
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    @Test
    void killMajorityStopsAcquisitionsUntilTheNodesReturn() throws Exception {
        long seed = seed("kill-majority");
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(6));
        List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(nodes, random);
        List<Integer> victims = nodes.subList(0, 3);
        long killAt = duration.toMillis() * 3 / 10;
        long restoreAt = duration.toMillis() * 6 / 10;
        // The masters persist every write and the clients trust that: restarted nodes keep their keys and fencing
        // counters, so they count again at once (without persistence, restart quarantine would keep them out for
        // a lease time, and fencing tokens could go back).
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options().aof())) {
            Nemesis nemesis = new Nemesis()
                    .at(Duration.ofMillis(killAt), "kill nodes " + victims, () -> victims.forEach(cluster::kill))
                    .at(
                            Duration.ofMillis(restoreAt),
                            "restart nodes " + victims,
                            () -> victims.forEach(cluster::restart));
            LockWorkload.Settings settings = new LockWorkload.Settings()
                    .duration(duration)
                    .clients(4)
                    .threads(3)
                    .config(b -> b.restartQuarantine(true).trustPersistentNodes(true));
            Run run = run("kill-majority", cluster, settings, nemesis, seed, List.of());
            assertTrue(run.allValid(), () -> run.results().toString());

            // The majority is gone at the last of the three kills (each is a process killed and waited for, which
            // takes a while on a loaded machine), and back at the first restart.
            long killed = run.history().events().stream()
                    .filter(e -> e.kind().equals("kill"))
                    .mapToLong(NemesisEvent::atNanos)
                    .max()
                    .orElseThrow();
            long restored = eventTime(run, "restart");
            // A round already past its quorum when the kill landed may still finish: allow one per-node timeout.
            long quietFrom = killed + Duration.ofMillis(150).toNanos();
            List<Op> duringOutage = run.history().ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK)
                    .filter(op -> op.completeNanos() > quietFrom && op.completeNanos() < restored)
                    .toList();
            assertEquals(List.of(), duringOutage, "no acquisition while a majority is down");
            long firstAfter = run.history().ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK && op.completeNanos() > restored)
                    .mapToLong(Op::completeNanos)
                    .min()
                    .orElseThrow();
            // One retry round after the nodes are back: circuit breakers (200 ms) and reconnect back-off (at most
            // the breaker's open time) let the next round through, which takes at most a per-node timeout (and a
            // loaded machine's scheduling: the bound is twice that sum).
            Duration resumedAfter = Duration.ofNanos(firstAfter - restored);
            System.out.println(
                    "[chaos] kill-majority: first acquisition " + resumedAfter.toMillis() + " ms after the restart");
            assertTrue(resumedAfter.compareTo(Duration.ofMillis(2_000)) < 0, "resumed after " + resumedAfter);
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    @Test
    void multiLockWithOneNodeDownNeverAcquires() throws Exception {
        long seed = seed("multilock-one-down");
        Duration duration = scaled(Duration.ofSeconds(3));
        int victim = new Random(seed).nextInt(5);
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = new Nemesis().at(Duration.ZERO, "kill node " + victim, () -> cluster.kill(victim));
            LockWorkload.Settings settings =
                    new LockWorkload.Settings().duration(duration).clients(3).policy(QuorumPolicy.ALL);
            Run run = run("multilock-one-down", cluster, settings, nemesis, seed, List.of());
            assertTrue(run.allValid(), () -> run.results().toString());
            long killed = eventTime(run, "kill");
            long acquired = run.history().ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK && op.invokeNanos() > killed)
                    .count();
            assertEquals(0, acquired, "MultiLock is unavailable with a node down");
            assertTrue(run.history().ops().size() > 3, "clients kept trying");
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    private static Run runWithLiveness(
            String name,
            ChaosCluster cluster,
            LockWorkload.Settings settings,
            Nemesis nemesis,
            long seed,
            Duration duration)
            throws InterruptedException {
        long start = System.nanoTime();
        // A quorum stays healthy throughout: skip the first second (connections warming up).
        List<long[]> healthy =
                List.<long[]>of(new long[] {start + Duration.ofSeconds(1).toNanos(), start + duration.toNanos()});
        return run(name, cluster, settings, nemesis, seed, List.of(new LivenessChecker(healthy, 2.0)));
    }

    static long eventTime(Run run, String kind) {
        return run.history().events().stream()
                .filter(e -> e.kind().equals(kind))
                .mapToLong(NemesisEvent::atNanos)
                .min()
                .orElseThrow();
    }

    static CheckResult checker(Run run, String name) {
        return run.result(name);
    }
}
