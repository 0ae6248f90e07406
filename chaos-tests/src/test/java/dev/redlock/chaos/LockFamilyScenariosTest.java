/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.QuorumReadWriteLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.Checker;
import dev.redlock.chaos.history.FairnessChecker;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.MultiResourceChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import dev.redlock.chaos.history.ReadWriteChecker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The lock family under faults: a read-write lock, a fair lock and multi-resource locks, each contended by several
 * clients with several threads each while two masters of five are killed, and all three at once while masters stall
 * (SIGSTOP). Each history is judged by its kind's checker and must hold no violation; each scenario also shows that
 * the checker could have found one (a negative control): on the run's own history for the read-write and
 * multi-resource locks, and on a second run with a plain RedLock for the fair lock.
 *
 * <p>Every client of a run reads one wall clock, {@link PlaceClock}, which also records when the library read it for
 * a fair acquisition's queue place; so places of different clients are ordered as their starts are, and fairness is
 * judged across clients as well as within each.
 *
 * <p>Kept short: four scenarios of 2 seconds each (and a 1-second control), twice as long under {@code -Pchaos-full}
 * and five times under {@code -Pchaos-long} (the control excepted).
 */
class LockFamilyScenariosTest extends ChaosTestBase {

    /** How much earlier a fair acquisition must begin to count as ahead of another. */
    private static final Duration TOLERANCE = Duration.ofMillis(5);

    /**
     * How long after its start a fair acquisition's first round has surely put its place on the nodes: at most the
     * per-node timeout (100 ms), and scheduling slack on a busy two-core machine. A waiter that begins behind an older
     * one of its client standing in the queue runs no round to queue: that waiter's place covers it from its start,
     * and stands until the client's next message puts this one's place in, so it is judged from the same moment.
     */
    private static final Duration FIRST_ROUND = Duration.ofMillis(260);

    private static final FairnessChecker FAIRNESS = new FairnessChecker(TOLERANCE, FIRST_ROUND);

    private static final List<String> RESOURCES = List.of("family-r0", "family-r1", "family-r2", "family-r3");

    @Test
    void readWriteLockUnderKillsNeverLetsAWriterShare() throws Exception {
        String name = "family-rw-kill";
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(2));
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = killTwo(cluster, random, duration);
            Pace pace = new Pace(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(10));
            long origin = contend(cluster, history, nemesis, duration, seed, 3, (client, c) -> {
                QuorumReadWriteLock rw = client.readWriteLock("family-rw");
                Turn turn = readsAndWrites(rw, 7, pace);
                return List.of(turn, turn);
            });
            Run run = finish(
                    name,
                    history,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(new ReadWriteChecker(), new FencingChecker()),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            // The negative control: judged as a plain mutex, the same history breaks it, so readers really shared the
            // lock (and the checker saw their windows overlap).
            CheckResult asMutex = new MutualExclusionChecker().check(history);
            assertEquals(CheckResult.Validity.INVALID, asMutex.validity(), asMutex::toString);
            assertGrantedAfterTheKills(history, op -> op.kind() == Op.Kind.READ, "readers");
            assertGrantedAfterTheKills(history, op -> op.kind() == Op.Kind.WRITE, "writers");
            assertNoLeftovers(cluster, pace.lease());
        }
    }

    @Test
    void fairLockUnderKillsGrantsInTheOrderAcquisitionsBegan() throws Exception {
        String name = "family-fair-kill";
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(2));
        History history = new History();
        // Eight contenders (two threads in each of four clients) keep waits long enough to judge; one turn in four
        // gives up early, leaving the queue.
        Pace pace = new Pace(Duration.ofMillis(800), Duration.ofSeconds(1), Duration.ofMillis(50));
        Pace impatient = new Pace(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofMillis(50));
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = killTwo(cluster, random, duration);
            long origin = contend(cluster, history, nemesis, duration, seed, 4, (client, c) -> {
                QuorumLock fair = client.fairLock("family-fair");
                Turn turn = r -> new Target(fair, Op.Kind.FAIR, List.of(), r.nextInt(4) == 0 ? impatient : pace);
                return List.of(turn, turn);
            });
            Run run = finish(
                    name,
                    history,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(new MutualExclusionChecker(), FAIRNESS, FAIRNESS.acrossClients()),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            assertGrantedAfterTheKills(history, op -> true, "fair grants");
            assertTrue(history.ops().stream().anyMatch(op -> op.outcome() == Op.Outcome.FAIL), "some waiter gave up");

            // The negative control: the same clients on a plain RedLock without release notifications (so without
            // its hand-over queue: its waiters poll and take the lock whenever they find it free), for a second on the
            // three surviving masters, every waiter patient. The rule that the fair lock kept, it breaks: a dozen or
            // more of its grants a second overtake a waiter that is judged.
            History unfair = new History();
            Duration controlTime = Duration.ofSeconds(1);
            long controlOrigin = contend(
                    cluster,
                    unfair,
                    new Nemesis(),
                    controlTime,
                    seed,
                    4,
                    b -> b.releaseNotifications(false),
                    (client, c) -> {
                        QuorumLock plain = client.redLock("family-unfair");
                        Turn turn = r -> new Target(plain, Op.Kind.LOCK, List.of(), pace);
                        return List.of(turn, turn);
                    });
            Run control = finish(
                    name + "-control",
                    unfair,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(FAIRNESS.acrossClients()),
                    controlOrigin);
            assertEquals(
                    CheckResult.Validity.INVALID,
                    control.results().get(0).validity(),
                    () -> control.results().toString());
            assertNoLeftovers(cluster, pace.lease());
        }
    }

    @Test
    void multiResourceLockUnderKillsNeverSharesAName() throws Exception {
        String name = "family-multi-kill";
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(2));
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = killTwo(cluster, random, duration);
            Pace pace = new Pace(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(10));
            long origin = contend(cluster, history, nemesis, duration, seed, 3, (client, c) -> {
                Turn turn = resources(client, 6, pace);
                return List.of(turn, turn);
            });
            Run run = finish(
                    name,
                    history,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(new MultiResourceChecker()),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            // The negative control: if every lease had held every name, the same history breaks the rule, so leases
            // of disjoint sets really ran side by side (the lock does not just serialize everything).
            CheckResult widened = new MultiResourceChecker().check(widen(history));
            assertEquals(CheckResult.Validity.INVALID, widened.validity(), widened::toString);
            assertGrantedAfterTheKills(history, op -> op.kind() == Op.Kind.MULTI, "multi-resource leases");
            assertGrantedAfterTheKills(history, op -> op.kind() == Op.Kind.LOCK, "single-name RedLocks");
            assertNoLeftovers(cluster, pace.lease());
        }
    }

    @Test
    void wholeFamilyWhileMastersStall() throws Exception {
        String name = "family-pauses";
        long seed = seed(name);
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(2));
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            // One or two masters stopped at a time, each for longer than the per-node timeout: a majority stays up.
            Nemesis nemesis = new Nemesis();
            for (long at = 300; at < duration.toMillis() - 300; at += 450 + random.nextInt(300)) {
                List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
                Collections.shuffle(nodes, random);
                long stall = 150 + random.nextInt(250);
                for (int node : nodes.subList(0, 1 + random.nextInt(2))) {
                    nemesis.at(
                            Duration.ofMillis(at),
                            "SIGSTOP node " + node + " for " + stall + " ms",
                            () -> cluster.pause(node));
                    nemesis.at(Duration.ofMillis(at + stall), "SIGCONT node " + node, () -> cluster.resume(node));
                }
            }
            Pace fairPace = new Pace(Duration.ofMillis(600), Duration.ofSeconds(1), Duration.ofMillis(30));
            Pace pace = new Pace(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(10));
            AtomicReference<Duration> queueWindow = new AtomicReference<>();
            long origin = contend(cluster, history, nemesis, duration, seed, 2, (client, c) -> {
                queueWindow.set(client.queueWindow());
                QuorumLock fair = client.fairLock("family-fair");
                Turn fairTurn = r -> new Target(fair, Op.Kind.FAIR, List.of(), fairPace);
                Turn rwTurn = readsAndWrites(client.readWriteLock("family-rw").preferWriters(), 5, pace);
                Turn multiTurn = resources(client, 7, pace);
                return List.of(fairTurn, fairTurn, rwTurn, rwTurn, multiTurn, multiTurn);
            });
            Predicate<Op> fair = op -> op.kind() == Op.Kind.FAIR;
            Predicate<Op> readWrite = op -> op.kind() == Op.Kind.READ || op.kind() == Op.Kind.WRITE;
            Predicate<Op> multi = op -> op.kind() == Op.Kind.MULTI || op.kind() == Op.Kind.LOCK;
            Run run = finish(
                    name,
                    history,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(
                            only(fair, new MutualExclusionChecker()), only(fair, FAIRNESS),
                            only(fair, FAIRNESS.acrossClients()), only(readWrite, new ReadWriteChecker()),
                            only(readWrite, new FencingChecker()), only(multi, new MultiResourceChecker())),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            // The negative controls, as in the kill scenarios: readers shared the lock, disjoint leases overlapped.
            CheckResult asMutex = new MutualExclusionChecker().check(history.select(readWrite));
            assertEquals(CheckResult.Validity.INVALID, asMutex.validity(), asMutex::toString);
            CheckResult widened = new MultiResourceChecker().check(widen(history.select(multi)));
            assertEquals(CheckResult.Validity.INVALID, widened.validity(), widened::toString);
            assertTrue(history.events().stream().anyMatch(e -> e.kind().equals("pause")), "a master was stalled");
            for (Op.Kind kind : Op.Kind.values()) {
                assertTrue(
                        history.ops().stream().anyMatch(op -> op.kind() == kind && op.outcome() == Op.Outcome.OK),
                        () -> "no " + kind + " lease granted");
            }
            // A queue place or waiting writer's entry still on a master that was stalled expires within its window
            // (as documented), not within a lease time.
            assertNoLeftovers(cluster, queueWindow.get());
        }
    }

    // ------------------------------------------------------------------------------------------------ the workload

    /** How a contender waits, how long its leases last and how long it works while holding one, at most. */
    private record Pace(Duration budget, Duration lease, Duration maxWork) {}

    /** What one turn of a contender acquires, and how its op is labelled. */
    private record Target(QuorumLock lock, Op.Kind kind, List<String> resources, Pace pace) {}

    /** A contender: picks what to acquire on each turn. */
    @FunctionalInterface
    private interface Turn {
        /** What to acquire next, drawn from the contender's seeded {@code random}. */
        Target next(Random random);
    }

    /** Reads {@code readsInTen} times in ten, else writes with a fenced write lock. */
    private static Turn readsAndWrites(QuorumReadWriteLock rw, int readsInTen, Pace pace) {
        QuorumLock read = rw.readLock();
        QuorumLock write = rw.writeLock().fenced();
        return r -> r.nextInt(10) < readsInTen
                ? new Target(read, Op.Kind.READ, List.of(), pace)
                : new Target(write, Op.Kind.WRITE, List.of(), pace);
    }

    /**
     * Takes two or three of {@link #RESOURCES} at once {@code multiInTen} times in ten, else a plain RedLock of one of
     * them: both lock the same keys.
     */
    private static Turn resources(RedlockClient client, int multiInTen, Pace pace) {
        return r -> {
            if (r.nextInt(10) >= multiInTen) {
                return new Target(
                        client.redLock(RESOURCES.get(r.nextInt(RESOURCES.size()))), Op.Kind.LOCK, List.of(), pace);
            }
            List<String> shuffled = new ArrayList<>(RESOURCES);
            Collections.shuffle(shuffled, r);
            Set<String> names = new TreeSet<>(shuffled.subList(0, 2 + r.nextInt(2)));
            return new Target(client.multiResourceLock(names), Op.Kind.MULTI, List.copyOf(names), pace);
        };
    }

    /**
     * Runs contenders against the cluster for {@code duration} while the nemesis runs, recording every attempt in
     * {@code history}. Client {@code c} is its own {@link RedlockClient} (its ops carry {@code c} as their client), and
     * runs each turn of {@code turns.apply(client, c)} on a thread of its own. Every client reads one
     * {@link PlaceClock}.
     *
     * @return the origin of the nemesis schedule
     */
    private static long contend(
            ChaosCluster cluster,
            History history,
            Nemesis nemesis,
            Duration duration,
            long seed,
            int clients,
            BiFunction<RedlockClient, Integer, List<Turn>> turns)
            throws InterruptedException {
        return contend(cluster, history, nemesis, duration, seed, clients, b -> b, turns);
    }

    /** As above, with each client's settings changed by {@code tweak}. */
    private static long contend(
            ChaosCluster cluster,
            History history,
            Nemesis nemesis,
            Duration duration,
            long seed,
            int clients,
            java.util.function.UnaryOperator<RedlockConfig.Builder> tweak,
            BiFunction<RedlockClient, Integer, List<Turn>> turns)
            throws InterruptedException {
        cluster.onFault(history::add);
        PlaceClock clock = new PlaceClock();
        List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());
        List<RedlockClient> opened = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long origin = System.nanoTime();
        nemesis.start(origin);
        long stopAt = origin + duration.toNanos();
        try {
            for (int c = 0; c < clients; c++) {
                RedlockClient client = RedlockClient.create(
                        tweak.apply(LockWorkload.baseConfig(cluster.uris()).wallClock(clock))
                                .build());
                opened.add(client);
                List<Turn> mine = turns.apply(client, c);
                for (int t = 0; t < mine.size(); t++) {
                    int id = c;
                    Turn turn = mine.get(t);
                    Random random = new Random(seed * 31 + c * 16L + t);
                    Thread thread = new Thread(
                            () -> {
                                try {
                                    loop(id, turn, history, clock, random, stopAt);
                                } catch (Throwable e) {
                                    crashes.add(e);
                                }
                            },
                            "family-client-" + c + "-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            for (Thread t : threads) {
                t.join(duration.toMillis() + 60_000);
                if (t.isAlive()) {
                    crashes.add(new IllegalStateException(t.getName() + " did not stop"));
                    t.interrupt();
                }
            }
        } finally {
            opened.forEach(RedlockClient::close);
        }
        nemesis.join(Duration.ofSeconds(60));
        assertEquals(List.of(), crashes);
        return origin;
    }

    /** One contender's turns until {@code stopAt}: acquire, work while holding, release; every attempt recorded. */
    private static void loop(int client, Turn turn, History history, PlaceClock clock, Random random, long stopAt)
            throws InterruptedException {
        while (System.nanoTime() - stopAt < 0) {
            Target target = turn.next(random);
            Op.Builder op = Op.builder()
                    .client(client)
                    .lock(target.lock().name())
                    .kind(target.kind())
                    .resources(target.resources());
            clock.arm();
            op.invokeNanos(System.nanoTime());
            AcquireResult r;
            try {
                r = target.lock().attempt(target.pace().budget(), target.pace().lease());
            } catch (RuntimeException e) {
                history.add(op.completeNanos(System.nanoTime())
                        .outcome(Op.Outcome.UNKNOWN)
                        .failure(e.toString())
                        .build());
                continue;
            }
            long complete = System.nanoTime();
            // The last round ended at most a return's latency before this: its start, as the library measured it.
            op.completeNanos(complete)
                    .roundNanos(complete - r.lastRound().elapsed().toNanos());
            if (target.kind() == Op.Kind.FAIR) {
                op.queuedNanos(clock.taken());
            }
            if (!r.acquired()) {
                history.add(
                        op.outcome(Op.Outcome.FAIL).failure(r.reason().name()).build());
                continue;
            }
            Lease lease = r.lease().orElseThrow();
            AtomicLong lostAt = new AtomicLong(Op.NONE);
            lease.onLost(e -> lostAt.set(System.nanoTime()));
            op.outcome(Op.Outcome.OK).token(lease.token());
            lease.fencingToken().ifPresent(op::fencingToken);
            LockSupport.parkNanos(
                    (long) (random.nextDouble() * target.pace().maxWork().toNanos())); // the work
            op.deadlineNanos(lease.deadlineNanos()).releaseNanos(System.nanoTime());
            lease.release();
            long lost = lostAt.get();
            if (lost == Op.NONE && lease.lossCause().isPresent()) {
                // Lost before the release, but the listener has not run yet: the deadline bounds it.
                lost = Math.min(lease.deadlineNanos(), System.nanoTime());
            }
            history.add(op.lostNanos(lost).build());
        }
    }

    /**
     * A wall clock shared by every client of a run, read off {@link System#nanoTime()} so that it never steps, which
     * also records, per thread, when it was first read after {@link #arm()}: the library reads it once per fair
     * acquisition, for the acquisition's place in the queue.
     */
    static final class PlaceClock extends Clock {

        private final Instant base = Instant.now();
        private final long baseNanos = System.nanoTime();
        private final ThreadLocal<long[]> firstRead = ThreadLocal.withInitial(() -> new long[] {Op.NONE});

        /** Forgets this thread's last reading, before an acquisition. */
        void arm() {
            firstRead.get()[0] = Op.NONE;
        }

        /**
         * This thread's first reading since {@link #arm()}, on the {@link System#nanoTime()} scale, or
         * {@link Op#NONE} if it was not read.
         */
        long taken() {
            return firstRead.get()[0];
        }

        @Override
        public Instant instant() {
            long now = System.nanoTime();
            long[] read = firstRead.get();
            if (read[0] == Op.NONE) {
                read[0] = now;
            }
            return base.plusNanos(now - baseNanos);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("the place clock has no other zone");
        }
    }

    // ------------------------------------------------------------------------------------------------- the helpers

    /** Kills two masters of five, the first a fifth to nine-twentieths into the run and the second within 500 ms. */
    private static Nemesis killTwo(ChaosCluster cluster, Random random, Duration duration) {
        List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(nodes, random);
        long killAt = duration.toMillis() / 5 + random.nextInt((int) (duration.toMillis() / 4));
        return new Nemesis()
                .at(Duration.ofMillis(killAt), "kill node " + nodes.get(0), () -> cluster.kill(nodes.get(0)))
                .at(
                        Duration.ofMillis(killAt + random.nextInt(500)),
                        "kill node " + nodes.get(1),
                        () -> cluster.kill(nodes.get(1)));
    }

    /** Some acquisitions matching {@code which}, begun after the second kill, were granted by the three survivors. */
    private static void assertGrantedAfterTheKills(History history, Predicate<Op> which, String what) {
        long lastKill = history.events().stream()
                .filter(e -> e.kind().equals("kill"))
                .mapToLong(NemesisEvent::atNanos)
                .max()
                .orElseThrow();
        long granted = history.ops().stream()
                .filter(which)
                .filter(op -> op.outcome() == Op.Outcome.OK && op.invokeNanos() > lastKill)
                .count();
        assertTrue(granted > 0, what + " are still granted with 3 of 5 masters");
    }

    /** The checker judging only the ops that match {@code which}. */
    private static Checker only(Predicate<Op> which, Checker checker) {
        return history -> checker.check(history.select(which));
    }

    /** The history as if every lease had held every resource of the run. */
    private static History widen(History history) {
        Set<String> all = new TreeSet<>();
        history.ops().forEach(op -> all.addAll(op.resourcesHeld()));
        History wide = new History();
        history.ops()
                .forEach(op -> wide.add(
                        op.toBuilder().kind(Op.Kind.MULTI).resources(all).build()));
        return wide;
    }
}
