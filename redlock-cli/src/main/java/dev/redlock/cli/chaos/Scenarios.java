/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli.chaos;

import dev.redlock.chaos.LockWorkload;
import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.cluster.ChaosCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The catalogue of {@code redlock chaos} scenarios, built from the chaos harness: kills and restarts, SIGSTOP pauses,
 * {@code CLIENT PAUSE}, data loss and network latency on a minority or a majority of the nodes.
 */
public final class Scenarios {

    /** The scenario run when none is named. */
    public static final String DEFAULT = "mixed";

    private static final List<Scenario> ALL = List.of(
            new Scenario(
                    "mixed",
                    "random kills (with AOF), SIGSTOP pauses and CLIENT PAUSE WRITE on a minority, " + "one at a time",
                    false,
                    new ChaosCluster.Options().aof(),
                    Scenarios::mixed),
            new Scenario(
                    "kill-minority",
                    "a minority of the nodes killed at a random moment, restarted later " + "(with AOF)",
                    false,
                    new ChaosCluster.Options().aof(),
                    Scenarios::killMinority),
            new Scenario(
                    "kill-majority",
                    "a majority killed (no lock can be had), restarted later (with AOF)",
                    false,
                    new ChaosCluster.Options().aof(),
                    Scenarios::killMajority),
            new Scenario(
                    "pause-minority",
                    "a minority stopped with SIGSTOP for a while, then resumed",
                    false,
                    new ChaosCluster.Options(),
                    Scenarios::pauseMinority),
            new Scenario(
                    "flush",
                    "FLUSHALL on one node at a time, with restart protection on",
                    false,
                    new ChaosCluster.Options(),
                    Scenarios::flush),
            new Scenario(
                    "latency",
                    "200 ms of extra latency each way on a minority, through fault proxies",
                    false,
                    new ChaosCluster.Options().proxies(),
                    Scenarios::latency),
            new Scenario(
                    "restart-unprotected",
                    "hazard: a majority restarted without persistence while restart "
                            + "protection is off; double grants are expected",
                    true,
                    new ChaosCluster.Options(),
                    Scenarios::restartUnprotected));

    private Scenarios() {}

    /**
     * Returns every scenario, the default first.
     *
     * @return the catalogue
     */
    public static List<Scenario> all() {
        return ALL;
    }

    /**
     * Finds a scenario by name.
     *
     * @param name the name
     * @return the scenario, or empty
     */
    public static Optional<Scenario> named(String name) {
        return ALL.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /**
     * Returns the scenarios' names.
     *
     * @return the names, in catalogue order
     */
    public static List<String> names() {
        return ALL.stream().map(Scenario::name).toList();
    }

    private static List<Integer> shuffled(ChaosCluster cluster, Random random) {
        List<Integer> nodes = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            nodes.add(i);
        }
        Collections.shuffle(nodes, random);
        return nodes;
    }

    /** Several nodes for a step's description: "node 0 (:7001), node 3 (:7004)". */
    private static String labels(ChaosCluster cluster, List<Integer> nodes) {
        return String.join(", ", nodes.stream().map(cluster::label).toList());
    }

    private static int minority(ChaosCluster cluster) {
        return (cluster.size() - 1) / 2;
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    /** Persisted nodes that come back with their keys may vote at once: the clients trust them. */
    private static void trustPersistence(LockWorkload.Settings workload) {
        workload.config(b -> b.restartQuarantine(true).trustPersistentNodes(true));
    }

    private static void mixed(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        trustPersistence(workload);
        long end = duration.toMillis();
        long at = 300L + random.nextInt(400);
        while (at < end - 600) {
            int node = random.nextInt(cluster.size());
            long span = Math.min(400 + random.nextInt(1_100), end - 300 - at);
            switch (random.nextInt(3)) {
                case 0 -> {
                    nemesis.at(ms(at), "kill " + cluster.label(node), () -> cluster.kill(node));
                    nemesis.at(ms(at + span), "restart " + cluster.label(node), () -> cluster.restart(node));
                }
                case 1 -> {
                    nemesis.at(ms(at), "SIGSTOP " + cluster.label(node), () -> cluster.pause(node));
                    nemesis.at(ms(at + span), "SIGCONT " + cluster.label(node), () -> cluster.resume(node));
                }
                default -> {
                    Duration pause = ms(Math.min(span, 500));
                    nemesis.at(
                            ms(at),
                            "CLIENT PAUSE WRITE " + pause.toMillis() + " ms on " + cluster.label(node),
                            () -> cluster.clientPauseWrites(node, pause));
                    span = pause.toMillis();
                }
            }
            at += span + 150 + random.nextInt(500);
        }
    }

    private static void killMinority(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        trustPersistence(workload);
        long end = duration.toMillis();
        List<Integer> victims = shuffled(cluster, random).subList(0, minority(cluster));
        long restartAt = end * 7 / 10;
        for (int node : victims) {
            long at = end / 5 + random.nextInt((int) Math.max(1, end / 5));
            nemesis.at(ms(at), "kill " + cluster.label(node), () -> cluster.kill(node));
            nemesis.at(ms(restartAt), "restart " + cluster.label(node), () -> cluster.restart(node));
        }
    }

    private static void killMajority(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        trustPersistence(workload);
        long end = duration.toMillis();
        List<Integer> victims = shuffled(cluster, random).subList(0, cluster.size() / 2 + 1);
        nemesis.at(ms(end * 3 / 10), "kill " + labels(cluster, victims), () -> victims.forEach(cluster::kill));
        nemesis.at(ms(end * 6 / 10), "restart " + labels(cluster, victims), () -> victims.forEach(cluster::restart));
    }

    private static void pauseMinority(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        long end = duration.toMillis();
        List<Integer> victims = shuffled(cluster, random).subList(0, minority(cluster));
        for (int node : victims) {
            long at = end / 5 + random.nextInt((int) Math.max(1, end / 5));
            long until = end * 3 / 5 + random.nextInt((int) Math.max(1, end / 5));
            nemesis.at(ms(at), "SIGSTOP " + cluster.label(node), () -> cluster.pause(node));
            nemesis.at(ms(until), "SIGCONT " + cluster.label(node), () -> cluster.resume(node));
        }
    }

    private static void flush(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        workload.config(b -> b.restartQuarantine(true));
        long end = duration.toMillis();
        for (long at = 500L + random.nextInt(500); at < end - 500; at += 800L + random.nextInt(1_200)) {
            int node = random.nextInt(cluster.size());
            nemesis.at(ms(at), "FLUSHALL " + cluster.label(node), () -> cluster.flushAll(node));
        }
    }

    private static void latency(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        long end = duration.toMillis();
        List<Integer> victims = shuffled(cluster, random).subList(0, minority(cluster));
        for (int node : victims) {
            long at = end / 5 + random.nextInt((int) Math.max(1, end / 5));
            nemesis.at(ms(at), "200 ms latency on " + cluster.label(node), () -> cluster.latency(node, ms(200)));
            nemesis.at(ms(end * 4 / 5), "heal " + cluster.label(node), () -> cluster.heal(node));
        }
    }

    private static void restartUnprotected(
            ChaosCluster cluster, Random random, Duration duration, Nemesis nemesis, LockWorkload.Settings workload) {
        long end = duration.toMillis();
        List<Integer> victims = shuffled(cluster, random).subList(0, cluster.size() / 2 + 1);
        // Restart protection stays off (the workload's default): restarted nodes vote at once, without their keys.
        for (long at = end / 5; at < end - 800; at += 1_000 + random.nextInt(1_000)) {
            nemesis.at(
                    ms(at),
                    "restart " + labels(cluster, victims) + " (data lost)",
                    () -> victims.forEach(n -> {
                        cluster.kill(n);
                        cluster.restart(n);
                    }));
        }
    }
}
