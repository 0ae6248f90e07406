/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.RedlockClient;
import dev.redlock.chaos.history.Checker;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.LostUpdateChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import dev.redlock.chaos.soak.SoakWorkload;
import dev.redlock.testkit.RedisClusterGroup;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One Redis Cluster as the quorum under failovers and resharding: three masters with a replica each, counted as three
 * nodes (the owners of three fixed slots); four independent clients with two threads each contend for three fenced
 * locks with restart protection on, while a nemesis, again and again and in an order drawn from the seed, kills the
 * master of a node's slot (its replica takes over; the killed server comes back as a replica of it), moves a node's
 * slot to another master with its keys (a resharding), and moves one without its keys (the keys are lost). Each of
 * these makes the node's server another process, which sits out a lease plus the cluster's staleness limit and node
 * timeout. The history must show no second holder, no lost update, no lost lease and increasing fencing tokens, and
 * locks granted between the faults.
 */
class ClusterScenariosTest extends ChaosTestBase {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(1000);
    private static final Duration FAILOVER = Duration.ofSeconds(30);
    /** No fault starts later than this before the workload ends: about what a kill, its takeover and the rejoin take. */
    private static final Duration LAST_FAULT = Duration.ofSeconds(6);

    /** What the nemesis does to a node. */
    enum Fault {
        /** Kills the master of the node's slot, waits for its replica's takeover, restarts it as a replica. */
        KILL,
        /** Moves the node's slot to another master with its keys. */
        RESHARD,
        /** Moves the node's slot to another master without its keys. */
        KEYLESS_MOVE
    }

    @Test
    void failoversAndSlotMovesGrantNoSecondHolder() throws Exception {
        long seed = seed("cluster-faults");
        Random random = new Random(seed);
        try (RedisClusterGroup cluster = RedisClusterGroup.builder()
                .masters(3)
                .replicasPerMaster(1)
                .nodeTimeout(NODE_TIMEOUT)
                .start()) {
            List<String> uris = List.of(cluster.seedUri());
            int[] slots = nodeSlots(uris);
            History history = new History();
            Duration duration = scaled(Duration.ofSeconds(25));
            SoakWorkload.Settings settings = new SoakWorkload.Settings()
                    .clients(4)
                    .threads(2, 0)
                    .sharedLocks(3)
                    .leaseTime(LEASE)
                    .duration(duration)
                    .config(b -> b.restartQuarantine(true));
            SoakWorkload workload = new SoakWorkload(settings, history::add);
            Map<Fault, AtomicInteger> faults = new EnumMap<>(Fault.class);
            for (Fault f : Fault.values()) {
                faults.put(f, new AtomicInteger());
            }
            AtomicReference<Throwable> nemesisError = new AtomicReference<>();
            long origin = System.nanoTime();
            long stopAt = origin + duration.minus(LAST_FAULT).toNanos();
            Thread nemesis = new Thread(
                    () -> {
                        try {
                            faultRepeatedly(cluster, slots, workload, random, history, stopAt, faults);
                        } catch (Throwable e) {
                            history.add(new NemesisEvent(
                                    System.nanoTime(), "nemesis-error", NemesisEvent.ALL_NODES, e.toString()));
                            nemesisError.set(e);
                        }
                    },
                    "cluster-nemesis");
            nemesis.start();
            SoakWorkload.Result result = workload.run(uris, seed);
            nemesis.join(FAILOVER.toMillis() * 5); // a kill with no takeover, then a late rejoin, waits up to 4 of them
            assertTrue(result.crashes().isEmpty(), () -> "workload clients crashed: " + result.crashes());
            assertNull(nemesisError.get(), () -> "the nemesis failed: " + causes(nemesisError.get()));
            List<Checker> checkers = new ArrayList<>(
                    List.of(new MutualExclusionChecker(), new LostLeaseChecker(), new FencingChecker()));
            result.registers().forEach((lock, value) -> checkers.add(onLock(lock, new LostUpdateChecker(value))));
            Run run = finish(
                    "cluster-faults", history, new LockWorkload.Result(0, 0, 0, result.crashes()), checkers, origin);
            System.out.printf("[chaos] cluster-faults: faults %s%n", faults);
            assertTrue(run.allValid(), () -> "violations (seed " + seed + "): " + run.results());
            for (Fault f : Fault.values()) {
                assertTrue(faults.get(f).get() >= 1, "the nemesis did every kind of fault: " + faults);
            }
            long granted = history.ops().stream()
                    .filter(o -> o.outcome() == Op.Outcome.OK)
                    .count();
            assertTrue(granted > 20, "locks were granted between the faults: " + granted);
        }
    }

    /** The slots of the cluster's nodes, as a client counts them. */
    private static int[] nodeSlots(List<String> uris) {
        try (RedlockClient probe =
                RedlockClient.create(LockWorkload.baseConfig(uris).build())) {
            return probe.nodeNames().stream()
                    .mapToInt(name -> Integer.parseInt(name.substring(name.lastIndexOf("slot-") + 5)))
                    .toArray();
        }
    }

    /**
     * Once the first lock is granted (the fresh servers have sat out their restart protection), faults one node after
     * another until {@code stopAt}: each round of three faults is one of each kind, in an order and on nodes drawn
     * from {@code random}.
     */
    private static void faultRepeatedly(
            RedisClusterGroup cluster,
            int[] slots,
            SoakWorkload workload,
            Random random,
            History history,
            long stopAt,
            Map<Fault, AtomicInteger> faults) {
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .alias("a first lock granted")
                .until(() -> workload.acquiredShared() > 0);
        List<Fault> round = new ArrayList<>();
        while (System.nanoTime() - stopAt < 0) {
            if (round.isEmpty()) {
                round.addAll(List.of(Fault.values()));
                Collections.shuffle(round, random);
            }
            Fault fault = round.remove(0);
            int node = random.nextInt(slots.length);
            int slot = slots[node];
            RedisServer owner = cluster.masterOfSlot(slot);
            if (fault == Fault.KILL) {
                history.add(event("kill", node, "master " + owner.port() + " of slot " + slot));
                RedisServer promoted;
                try {
                    promoted = cluster.killMasterAndAwaitFailover(owner, FAILOVER);
                } catch (IllegalStateException e) {
                    // The cluster's own election did not finish in time (a node stayed at cluster_state:fail on a
                    // loaded machine): recorded with its causes; the killed master comes back with its slots (empty,
                    // a new server the clients must quarantine), and the nemesis goes on.
                    history.add(event("failover-missed", node, causes(e)));
                    System.out.printf("[chaos] cluster-faults: no takeover in time, restarting: %s%n", causes(e));
                    rejoin(cluster, owner, node, history);
                    history.add(event("rejoined", node, owner.port() + " with its slots"));
                    pause(Duration.ofMillis(500 + random.nextInt(1500)));
                    continue;
                }
                history.add(event("failover-done", node, "replica " + promoted.port() + " took over"));
                rejoin(cluster, owner, node, history);
                history.add(event("rejoined", node, owner.port() + " as a replica of " + promoted.port()));
            } else {
                boolean withKeys = fault == Fault.RESHARD;
                RedisServer to = target(cluster, slots, owner, random);
                history.add(event(
                        withKeys ? "reshard" : "move-keyless",
                        node,
                        "slot " + slot + " from " + owner.port() + " to " + to.port()));
                try {
                    cluster.moveSlot(slot, to, withKeys);
                } catch (IllegalStateException e) {
                    // A move the cluster refused (a command failed or timed out on a node still busy with an earlier
                    // fault) is a fault not applied, not a failure of the lock: recorded with its causes, and the
                    // nemesis goes on. Every kind must still have been applied once (checked after the run).
                    history.add(event("move-failed", node, causes(e)));
                    System.out.printf("[chaos] cluster-faults: a slot move failed, going on: %s%n", causes(e));
                    pause(Duration.ofMillis(500 + random.nextInt(1500)));
                    continue;
                }
                history.add(event("move-done", node, null));
            }
            faults.get(fault).incrementAndGet();
            pause(Duration.ofMillis(500 + random.nextInt(1500)));
        }
    }

    /**
     * Restarts a killed master and waits for it to rejoin. If the cluster's gossip has not settled in time (a node
     * still at cluster_state:fail on a loaded machine, after a failover or after a takeover that never came), that is
     * recorded with its causes, and the cluster gets one more wait, twice as long, to be ready before the next fault.
     * Only a cluster that never settles fails the run.
     */
    private static void rejoin(RedisClusterGroup cluster, RedisServer owner, int node, History history) {
        try {
            cluster.restartAndAwaitRejoin(owner, FAILOVER);
        } catch (IllegalStateException e) {
            history.add(event("rejoin-late", node, causes(e)));
            System.out.printf("[chaos] cluster-faults: rejoin not settled in time, waiting on: %s%n", causes(e));
            cluster.awaitReady(FAILOVER.multipliedBy(2));
        }
    }

    /**
     * Where a node's slot moves: a master other than its owner that holds the fewest nodes' slots (so a master holds
     * at most two nodes), drawn from {@code random} among equals.
     */
    private static RedisServer target(RedisClusterGroup cluster, int[] slots, RedisServer owner, Random random) {
        Map<RedisServer, Integer> held = new java.util.LinkedHashMap<>();
        for (RedisServer master : cluster.masters()) {
            if (master != owner) {
                held.put(master, 0);
            }
        }
        for (int slot : slots) {
            held.computeIfPresent(cluster.masterOfSlot(slot), (m, n) -> n + 1);
        }
        int fewest = Collections.min(held.values());
        List<RedisServer> candidates = new ArrayList<>();
        held.forEach((m, n) -> {
            if (n == fewest) {
                candidates.add(m);
            }
        });
        return candidates.get(random.nextInt(candidates.size()));
    }

    /** An exception's message and its causes', so that a failure report says what a node answered. */
    private static String causes(Throwable e) {
        StringBuilder text = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null && c != e; c = c.getCause()) {
            text.append("; caused by ").append(c);
        }
        return text.toString();
    }

    private static NemesisEvent event(String kind, int node, String detail) {
        return new NemesisEvent(System.nanoTime(), kind, node, detail);
    }
}
