/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.Checker;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.LostUpdateChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a chaos scenario: a seeded fault schedule against a contended workload, then checkers over the recorded
 * history. Each run prints its seed ({@code -Dchaos.seed=N} replays the same schedule) and writes its history as JSON
 * lines plus a one-line summary under {@code chaos-tests/target/chaos/}. {@code -Dchaos.scale=N} runs every timed
 * scenario N times longer ({@code -Pchaos-full}: 2, {@code -Pchaos-long}: 5).
 */
abstract class ChaosTestBase {

    /** How many times longer than in the fast suite the timed scenarios run. */
    static final int SCALE = Math.max(1, Integer.getInteger("chaos.scale", 1));

    static final Path OUT = Path.of("target", "chaos");

    /**
     * A scenario's duration: {@code fast} in the fast suite, {@link #SCALE} times longer in the full one (twice) and
     * the long one (five times). A longer run gives the same faults more time: repeated faults (stalls, dropped
     * connections, fast clocks) happen more often, one-off faults (kills, restarts, a long pause) happen once either
     * way.
     */
    static Duration scaled(Duration fast) {
        return fast.multipliedBy(SCALE);
    }

    /** The seed of this run: given with {@code -Dchaos.seed}, or drawn and printed so a failure can be replayed. */
    static long seed(String scenario) {
        Long given = Long.getLong("chaos.seed");
        long seed = given != null ? given : new SecureRandom().nextLong();
        System.out.printf("[chaos] %s seed=%d (replay with -Dchaos.seed=%d)%n", scenario, seed, seed);
        return seed;
    }

    /** What one run produced. */
    record Run(History history, LockWorkload.Result result, List<CheckResult> results, long origin) {

        CheckResult result(String checker) {
            return results.stream()
                    .filter(r -> r.checker().equals(checker))
                    .findFirst()
                    .orElseThrow();
        }

        /** No checker found a violation (a checker with nothing to judge, such as fencing without grants, is fine). */
        boolean allValid() {
            return results.stream().noneMatch(r -> r.validity() == CheckResult.Validity.INVALID);
        }
    }

    /** Runs the workload with the nemesis, checks the history and writes it out. */
    static Run run(
            String name,
            ChaosCluster cluster,
            LockWorkload.Settings settings,
            Nemesis nemesis,
            long seed,
            List<Checker> extraCheckers)
            throws InterruptedException {
        History history = new History();
        cluster.onFault(history::add);
        System.out.printf("[chaos] %s schedule:%n%s", name, nemesis);
        long origin = System.nanoTime();
        nemesis.start(origin);
        if (cluster.tls() != null) {
            settings.trusting(cluster.tls());
        }
        LockWorkload.Result result = LockWorkload.run(cluster.uris(), settings, history, seed);
        nemesis.join(Duration.ofSeconds(60));
        if (!result.crashes().isEmpty()) {
            throw new AssertionError(
                    "workload clients crashed: " + result.crashes(),
                    result.crashes().get(0));
        }
        List<Checker> checkers = new ArrayList<>(List.of(
                new MutualExclusionChecker(),
                new LostLeaseChecker(),
                new LostUpdateChecker(result.register()),
                new FencingChecker()));
        checkers.addAll(extraCheckers);
        return finish(name, history, result, checkers, origin);
    }

    /** Checks a history recorded by hand and writes it out. */
    static Run finish(String name, History history, LockWorkload.Result result, List<Checker> checkers, long origin) {
        List<CheckResult> results = new ArrayList<>();
        for (Checker c : checkers) {
            results.add(c.check(history));
        }
        String summary = name + ": " + history.summarize(results);
        try {
            Files.createDirectories(OUT);
            history.writeJsonLines(OUT.resolve(name + ".jsonl"));
            Files.writeString(OUT.resolve(name + ".summary"), summary + System.lineSeparator(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println("[chaos] " + summary);
        for (CheckResult r : results) {
            System.out.println("[chaos]   " + r);
            r.violations().stream().limit(3).forEach(v -> System.out.println("[chaos]     " + v));
        }
        return new Run(history, result, results, origin);
    }

    /** A checker's result named after what it judged, e.g. {@code lost-update (lock-a)}. */
    static CheckResult named(String what, CheckResult r) {
        return new CheckResult(r.checker() + " (" + what + ")", r.validity(), r.violations(), r.summary());
    }

    /** A checker that judges only the operations on lock {@code name}, its results named after the lock. */
    static Checker onLock(String name, Checker checker) {
        return history ->
                named(name, checker.check(history.select(op -> op.lock().equals(name))));
    }

    /**
     * After healing and one TTL plus a margin, no lock key is left on any node. Fencing counters
     * ({@code redlock:{name}:fence}) and each node's incarnation marker ({@code redlock:node-incarnation}) are meant to
     * stay: they must outlive every lease; so are the entries of clients still open ({@code redlock:client:<id>}).
     */
    static void assertNoLeftovers(ChaosCluster cluster, Duration ttl) {
        cluster.healAll();
        await().atMost(ttl.plusSeconds(3))
                .pollInterval(Duration.ofMillis(100))
                .alias("no lock key left (fencing counters and markers aside)")
                .until(() -> leftovers(cluster), List::isEmpty);
    }

    private static List<String> leftovers(ChaosCluster cluster) {
        List<String> left = new ArrayList<>();
        for (String k : cluster.keysEverywhere("redlock:*")) {
            // A client's entry (who holds what) stays while the client is open, and leaves with it.
            if (!k.endsWith(":fence") && !k.endsWith("redlock:node-incarnation") && !k.contains("redlock:client:")) {
                left.add(k);
            }
        }
        return left;
    }

    /**
     * Release notifications were in use on node {@code i}: clients subscribed there and releases published (a release
     * script's {@code PUBLISH} counts in {@code INFO commandstats} as a command of its own).
     */
    static void assertNotificationsInUse(ChaosCluster cluster, int i) {
        String stats;
        try (var jedis = cluster.server(i).client()) {
            stats = jedis.info("commandstats");
        }
        for (String command : List.of("subscribe", "publish")) {
            Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(stats);
            assertTrue(
                    m.find() && Long.parseLong(m.group(1)) > 0,
                    "node " + i + " served no " + command.toUpperCase(Locale.ROOT)
                            + ": release notifications were not in use");
        }
    }

    /** A stop-the-world pause of the calling thread; park may wake early, so it loops until the time is up. */
    static void pause(Duration d) {
        long until = System.nanoTime() + d.toNanos();
        for (long left = d.toNanos(); left > 0; left = until - System.nanoTime()) {
            java.util.concurrent.locks.LockSupport.parkNanos(left);
        }
    }
    /** Client A holds the lock on exactly nodes {@code holders}; the other nodes are free afterwards. */
    static Lease holdOnBareQuorum(
            ChaosCluster cluster, RedlockClient a, String name, List<Integer> holders, Duration ttl)
            throws InterruptedException {
        QuorumLock lock = a.redLock(name);
        for (int i = 0; i < cluster.size(); i++) {
            if (!holders.contains(i)) {
                cluster.server(i).set(lock.key(), "blocker"); // keeps A off these nodes
            }
        }
        // A short budget rather than one round: on a loaded machine a single round may time out on a holder.
        Lease lease = lock.tryAcquire(Duration.ofSeconds(1), ttl).orElseThrow();
        for (int i = 0; i < cluster.size(); i++) {
            if (!holders.contains(i)) {
                try (var jedis = cluster.server(i).client()) {
                    // The blocker and every trace of it: the refused round left A's client a place in the
                    // hand-over queue there, which would refuse other clients as if A held these nodes too.
                    String key = lock.key();
                    jedis.del(key, key + ":q", key + ":qe", key + ":qh");
                }
            }
        }
        return lease;
    }

    /** Records an acquisition attempt of {@code client} into {@code history}. */
    static Op.Builder attempt(History history, int client, QuorumLock lock, Lease[] out, Duration ttl)
            throws InterruptedException {
        return attempt(history, client, lock, out, ttl, Duration.ofSeconds(1));
    }

    /** Records an acquisition attempt of {@code client} with the given wait budget. */
    static Op.Builder attempt(History history, int client, QuorumLock lock, Lease[] out, Duration ttl, Duration wait)
            throws InterruptedException {
        Op.Builder op = Op.builder().client(client).lock(lock.name()).invokeNanos(System.nanoTime());
        // A short budget: B's connection to a restarted node breaks on first use and is re-established.
        AcquireResult r = lock.attempt(wait, ttl);
        op.completeNanos(System.nanoTime());
        if (r.acquired()) {
            out[0] = r.lease().orElseThrow();
            op.outcome(Op.Outcome.OK).token(out[0].token()).deadlineNanos(out[0].deadlineNanos());
        } else {
            op.outcome(Op.Outcome.FAIL).failure(r.reason().name());
        }
        return op;
    }
}
