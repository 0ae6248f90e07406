/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.redlock.chaos.history.MultiResourceChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The real engine against seeded simulated clusters. Inside the assumptions every seed must pass every checker;
 * outside them (negative controls) the same checkers must report violations within the first thousand seeds.
 *
 * <p>{@code -Dsim.seeds} sets how many seeds the inside configurations of the lock family share (default 10,000),
 * {@code -Dsim.oneLockSeeds} how many the one-lock configuration runs (default 16), {@code -Dsim.base} the first seed
 * ({@code random} for a fresh one, printed); {@code -Dsim.config=NAME -Dsim.seed=N} replays one run, and
 * {@code -Dsim.trace=true} prints every message and fault of it.
 */
class SimulationTest {

    private static final List<SimConfig> INSIDE = List.of(
            SimConfig.FAULTS,
            SimConfig.TRUSTED_PERSISTENCE,
            SimConfig.FAILOVER,
            SimConfig.CLUSTER,
            SimConfig.PLACEMENT);
    /** Inside the assumptions too, with its own seed count: a seed of it costs far more (see the README). */
    private static final SimConfig ONE_LOCK = SimConfig.ONE_LOCK;

    private static final List<SimConfig> OUTSIDE = List.of(
            SimConfig.DRIFT_BEYOND_FACTOR, SimConfig.NO_QUARANTINE, SimConfig.MAJORITY_LOSS, SimConfig.PLACEMENT_MIXED);

    private static String property(String name) {
        String v = System.getProperty(name);
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static boolean replaying() {
        return property("sim.seed") != null;
    }

    private static long base() {
        String b = property("sim.base");
        if (b == null) {
            return 1;
        }
        return b.equals("random") ? new java.security.SecureRandom().nextLong() & Long.MAX_VALUE : Long.parseLong(b);
    }

    /** Runs seeds [from, from + count) of {@code config} on every core; stops early if {@code stopAtFirst}. */
    private static List<Simulation.Result> runSeeds(SimConfig config, long from, int count, boolean stopAtFirst)
            throws Exception {
        return runSeeds(config, from, count, stopAtFirst ? r -> !r.ok() : r -> false);
    }

    /**
     * Runs seeds [from, from + count) of {@code config} on every core, each thread taking the next seed not run yet;
     * once a seed's result meets {@code stopAt}, seeds above the lowest such seed are not started (every seed below
     * it still runs, so which seed is found does not depend on the threads' timing).
     */
    private static List<Simulation.Result> runSeeds(
            SimConfig config, long from, int count, Predicate<Simulation.Result> stopAt) throws Exception {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger found = new AtomicInteger(count);
        List<Future<List<Simulation.Result>>> parts = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                parts.add(pool.submit(() -> {
                    List<Simulation.Result> out = new ArrayList<>();
                    for (int i = next.getAndIncrement(); i < found.get(); i = next.getAndIncrement()) {
                        Simulation.Result r = Simulation.run(config, from + i);
                        out.add(r);
                        if (stopAt.test(r)) {
                            found.accumulateAndGet(i, Math::min);
                        }
                    }
                    return out;
                }));
            }
            List<Simulation.Result> all = new ArrayList<>();
            for (Future<List<Simulation.Result>> f : parts) {
                all.addAll(f.get());
            }
            all.sort((a, b) -> Long.compare(a.seed(), b.seed()));
            // A seed above the one found may have started before it was found: drop it.
            all.removeIf(r -> r.seed() > from + found.get());
            return all;
        } finally {
            pool.shutdownNow();
        }
    }

    private static long violations(List<Simulation.Result> results) {
        return results.stream().filter(r -> !r.ok()).count();
    }

    @Test
    void insideTheAssumptionsNoSeedViolatesAnything() throws Exception {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        int seeds = Integer.parseInt(property("sim.seeds") == null ? "10000" : property("sim.seeds"));
        int oneLockSeeds = Integer.parseInt(property("sim.oneLockSeeds") == null ? "16" : property("sim.oneLockSeeds"));
        long base = base();
        System.out.println("simulation: base seed " + base + ", " + seeds + " seeds over " + INSIDE.size()
                + " configurations, " + oneLockSeeds + " of " + ONE_LOCK.name());
        List<String> failures = new ArrayList<>();
        List<SimConfig> configs = new ArrayList<>(INSIDE);
        // Each configuration's seeds start a billion after the one before; one-lock keeps the fourth billion.
        configs.add(configs.indexOf(SimConfig.FAILOVER) + 1, ONE_LOCK);
        for (int c = 0; c < configs.size(); c++) {
            SimConfig config = configs.get(c);
            int share = INSIDE.indexOf(config);
            int count =
                    config == ONE_LOCK ? oneLockSeeds : seeds / INSIDE.size() + (share < seeds % INSIDE.size() ? 1 : 0);
            if (count == 0) {
                continue;
            }
            long started = System.nanoTime();
            List<Simulation.Result> results = runSeeds(config, base + (long) c * 1_000_000_000L, count, false);
            long events = results.stream().mapToLong(Simulation.Result::events).sum();
            long simulated = results.stream()
                    .mapToLong(Simulation.Result::simulatedNanos)
                    .sum();
            int acquired =
                    results.stream().mapToInt(Simulation.Result::acquisitions).sum();
            System.out.println("simulation: " + config.name() + ": " + results.size() + " seeds, " + violations(results)
                    + " violations");
            System.out.printf(
                    "  %,d events, %,d leases, %,d simulated seconds in %.1f s%n",
                    events, acquired, simulated / 1_000_000_000L, (System.nanoTime() - started) / 1e9);
            java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
            results.forEach(r -> r.leasesByKind().forEach((k, n) -> kinds.merge(k, n, Integer::sum)));
            System.out.println("  leases by kind: " + kinds);
            long notifications =
                    results.stream().mapToLong(Simulation.Result::notifications).sum();
            long scripts = results.stream()
                    .mapToLong(Simulation.Result::acquireScripts)
                    .sum();
            System.out.printf(
                    "  %,d release notifications delivered, %.1f acquire scripts run per lease%n",
                    notifications, scripts / (double) Math.max(1, acquired));
            if (config.failover()) {
                System.out.printf(
                        "  %,d failovers, %,d writes the promoted replicas had not received%n",
                        results.stream().mapToLong(Simulation.Result::failovers).sum(),
                        results.stream()
                                .mapToLong(Simulation.Result::lostWrites)
                                .sum());
            }
            if (config.slotMoves()) {
                System.out.printf(
                        "  %,d slot moves, %,d of them without their keys (%,d keys left behind), %,d commands "
                                + "answered ASK or MOVED%n",
                        results.stream().mapToLong(Simulation.Result::slotMoves).sum(),
                        results.stream()
                                .mapToLong(Simulation.Result::keylessMoves)
                                .sum(),
                        results.stream()
                                .mapToLong(Simulation.Result::keysLeftBehind)
                                .sum(),
                        results.stream().mapToLong(Simulation.Result::redirects).sum());
            }
            for (Simulation.Result r : results) {
                if (!r.ok() && failures.size() < 10) {
                    failures.add(describe(r));
                }
            }
            if (config.notifications() && notifications == 0) {
                failures.add(config.name() + ": no release notification reached any client in " + results.size()
                        + " seeds: the simulated pub/sub delivers nothing");
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
    }

    @Test
    void outsideTheAssumptionsTheCheckersSeeViolations() throws Exception {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        List<String> blind = new ArrayList<>();
        for (SimConfig config : OUTSIDE) {
            List<Simulation.Result> results = runSeeds(config, 1, 1_000, true);
            long bad = violations(results);
            System.out.println(
                    "simulation: " + config.name() + ": " + results.size() + " seeds, " + bad + " violations");
            results.stream()
                    .filter(r -> !r.ok())
                    .findFirst()
                    .ifPresent(r -> System.out.println("  first: " + describe(r)));
            if (bad == 0) {
                blind.add(config.name());
            }
        }
        assertTrue(blind.isEmpty(), "no violation found outside the assumptions in 1,000 seeds of " + blind);
    }

    /**
     * The failover configuration with restart protection off: a failover to a replica that had not received a lease's
     * key lets a second client take the lock while the first still holds it. The checkers must find such a second
     * holder (two holders of a lock, a resource or a read-write lock at once) within the first thousand seeds.
     */
    @Test
    void withoutRestartProtectionAFailoverLetsASecondHolderIn() throws Exception {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        SimConfig config = SimConfig.FAILOVER_NO_QUARANTINE;
        List<Simulation.Result> results = runSeeds(config, 1, 1_000, SimulationTest::secondHolder);
        Simulation.Result last = results.get(results.size() - 1);
        System.out.println("simulation: " + config.name() + ": " + results.size() + " seeds, "
                + violations(results) + " violations, "
                + (secondHolder(last) ? "the first second holder in seed " + last.seed() : "no second holder"));
        assertTrue(secondHolder(last), "no second holder found in 1,000 seeds of " + config.name());
        System.out.println("  first: " + describe(last));
        assertTrue(
                last.failovers() > 0 && last.lostWrites() > 0,
                "seed " + last.seed() + " of " + config.name() + " found a second holder without losing a write to a "
                        + "failover");
    }

    /**
     * The cluster configuration with restart protection off: a slot moved to another master without its keys lets a
     * second client take a lock while the first still holds it. The checkers must find such a second holder within
     * the first thousand seeds, in a seed whose only data loss was a slot move without its keys (no failover lost a
     * write; restarts keep their data in this configuration).
     */
    @Test
    void withoutRestartProtectionASlotMoveWithoutItsKeysLetsASecondHolderIn() throws Exception {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        SimConfig config = SimConfig.CLUSTER_NO_QUARANTINE;
        Predicate<Simulation.Result> byAMove = r -> secondHolder(r) && r.keysLeftBehind() > 0 && r.lostWrites() == 0;
        List<Simulation.Result> results = runSeeds(config, 1, 1_000, byAMove);
        Simulation.Result last = results.get(results.size() - 1);
        System.out.println("simulation: " + config.name() + ": " + results.size() + " seeds, "
                + violations(results) + " violations, "
                + (byAMove.test(last)
                        ? "the first second holder after data lost only to slot moves in seed " + last.seed()
                        : "no second holder after data lost only to slot moves"));
        assertTrue(
                byAMove.test(last),
                "no second holder found in 1,000 seeds of " + config.name()
                        + " whose data was lost only to slot moves without their keys");
        System.out.println("  first: " + describe(last));
        System.out.printf(
                "  %d slot move(s), %d without their keys, %d key(s) left behind, %d failover(s) losing no write%n",
                last.slotMoves(), last.keylessMoves(), last.keysLeftBehind(), last.failovers());
    }

    /**
     * One slot move, no other fault: a lock held on three of five nodes across a move of one of them. Without its
     * keys, the other three nodes are a quorum that never saw the lease: with restart protection on, the second client
     * stays out (the node's address reaches another server and another incarnation); off, it gets in. With its keys,
     * the lease's key arrives on the new owner and keeps the second client out either way. Each time the moving
     * slot's master answered ASK during the move and the old master MOVED after it.
     */
    @Test
    void restartProtectionCoversASlotMoveWithoutItsKeys() {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        for (long seed = 1; seed <= 3; seed++) {
            for (boolean withKeys : new boolean[] {true, false}) {
                for (boolean quarantine : new boolean[] {true, false}) {
                    String what = "seed " + seed + ", slot moved " + (withKeys ? "with" : "without")
                            + " its keys, restart protection " + (quarantine ? "on" : "off");
                    Simulation.SlotMove m = Simulation.slotMove(seed, withKeys, quarantine);
                    assertTrue(m.held(), what + ": the first client did not get the lock");
                    assertEquals(
                            !withKeys && !quarantine,
                            m.secondHolder(),
                            what + ": a second holder " + (m.secondHolder() ? "got in" : "did not get in"));
                    assertTrue(m.askReplies() > 0, what + ": no command answered ASK during the move");
                    assertTrue(m.movedReplies() > 0, what + ": no command answered MOVED after the move");
                }
            }
        }
    }

    /** Whether a run saw two holders at once of a lock, of a resource, or of a read-write lock's write side. */
    private static boolean secondHolder(Simulation.Result r) {
        return r.violations().stream()
                .anyMatch(v -> v.startsWith(MutualExclusionChecker.NAME + ":")
                        || v.startsWith(MultiResourceChecker.NAME + ":")
                        || v.startsWith(ReadWriteExclusionChecker.NAME + ":"));
    }

    @Test
    void oneSeedReplaysExactly() {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        for (long seed = 7; seed < 10; seed++) {
            Simulation.Result a = Simulation.run(SimConfig.FAULTS, seed);
            Simulation.Result b = Simulation.run(SimConfig.FAULTS, seed);
            assertEquals(a.events(), b.events(), "events of seed " + seed);
            assertEquals(a.acquisitions(), b.acquisitions(), "leases of seed " + seed);
            assertEquals(a.checks().toString(), b.checks().toString(), "checks of seed " + seed);
        }
    }

    @Test
    void aClusterSeedReplaysExactly() {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        long moves = 0;
        for (long seed = 7; seed < 10; seed++) {
            Simulation.Result a = Simulation.run(SimConfig.CLUSTER, seed);
            Simulation.Result b = Simulation.run(SimConfig.CLUSTER, seed);
            assertEquals(a.events(), b.events(), "events of cluster seed " + seed);
            assertEquals(a.slotMoves(), b.slotMoves(), "slot moves of cluster seed " + seed);
            assertEquals(a.keysLeftBehind(), b.keysLeftBehind(), "keys left behind in cluster seed " + seed);
            assertEquals(a.checks().toString(), b.checks().toString(), "checks of cluster seed " + seed);
            moves += a.slotMoves();
        }
        assertTrue(moves > 0, "no slot moved in cluster seeds 7 to 9");
    }

    @Test
    void oneLockSeedReplaysExactly() {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        for (long seed : new long[] {5, 25}) { // a fair lock's and a RedLock's, among the cheaper seeds
            Simulation.Result a = Simulation.run(SimConfig.ONE_LOCK, seed);
            Simulation.Result b = Simulation.run(SimConfig.ONE_LOCK, seed);
            assertTrue(a.notifications() > 0, "no notification in one-lock seed " + seed);
            assertEquals(a.events(), b.events(), "events of one-lock seed " + seed);
            assertEquals(a.leasesByKind(), b.leasesByKind(), "leases of one-lock seed " + seed);
            assertEquals(a.notifications(), b.notifications(), "notifications of one-lock seed " + seed);
            assertEquals(a.acquireScripts(), b.acquireScripts(), "acquire scripts of one-lock seed " + seed);
            assertEquals(a.checks().toString(), b.checks().toString(), "checks of one-lock seed " + seed);
        }
    }

    /**
     * A release wakes a waiter of another client through the nodes' notifications: with them, the waiter gets the
     * lock within a few network delays of the holder's release call; without, only at its next poll, hundreds of
     * milliseconds later. A plain RedLock and a fair lock, three seeds each.
     */
    @Test
    void aReleaseNotificationWakesAWaiterOfAnotherClient() {
        Assumptions.assumeFalse(replaying(), "replaying one seed");
        for (boolean fair : new boolean[] {false, true}) {
            for (long seed = 1; seed <= 3; seed++) {
                String what = (fair ? "fair lock" : "RedLock") + ", seed " + seed;
                Simulation.HandOff on = Simulation.handOff(seed, fair, true);
                Simulation.HandOff off = Simulation.handOff(seed, fair, false);
                assertTrue(on.notifications() > 0, what + ": no notification delivered");
                assertTrue(
                        on.nanos() < 5_000_000L,
                        what + ": hand-off took " + on.nanos() / 1e6 + " ms with notifications");
                assertEquals(0, off.notifications(), what + ": notifications delivered while off");
                assertTrue(
                        off.nanos() > 100_000_000L && off.nanos() < Long.MAX_VALUE,
                        what + ": hand-off took " + off.nanos() / 1e6 + " ms without notifications");
            }
        }
    }

    @Test
    void replay() {
        Assumptions.assumeTrue(replaying(), "set -Dsim.seed=N (and -Dsim.config=NAME) to replay one run");
        SimConfig config = SimConfig.named(property("sim.config") == null ? "faults" : property("sim.config"));
        List<String> trace = new ArrayList<>();
        Simulation.Result r = Simulation.run(
                config, Long.parseLong(property("sim.seed")), Boolean.getBoolean("sim.trace") ? trace::add : null);
        trace.forEach(System.out::println);
        System.out.println(describe(r));
        r.checks().forEach(c -> System.out.println("  " + c));
        assertTrue(r.ok() || !config.insideAssumptions(), describe(r));
    }

    private static String describe(Simulation.Result r) {
        StringBuilder b =
                new StringBuilder("seed " + r.seed() + " of " + r.config().name() + ": "
                        + r.violations().size() + " violation(s), " + r.acquisitions() + " leases, " + r.events()
                        + " events; replay: " + Simulation.replayLine(r.config(), r.seed()));
        for (String v : r.violations().subList(0, Math.min(5, r.violations().size()))) {
            b.append("\n    ").append(v);
        }
        return b.toString();
    }
}
