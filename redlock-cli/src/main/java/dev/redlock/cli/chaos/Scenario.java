/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli.chaos;

import dev.redlock.chaos.LockWorkload;
import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.cluster.ChaosCluster;
import java.time.Duration;
import java.util.Random;

/**
 * A chaos scenario the {@code redlock chaos} command can run: how the local nodes are started, how the workload is
 * set up, and which faults are injected when. The schedule is drawn from a seeded {@link Random}, so a seed replays
 * it.
 *
 * @param name the name given to {@code --scenario}
 * @param description one line for {@code --list}
 * @param hazard whether the scenario runs outside Redlock's assumptions on purpose, so violations are expected
 * @param options how the nodes are started (persistence, fault proxies)
 * @param plan fills the fault schedule and adjusts the workload
 */
public record Scenario(String name, String description, boolean hazard, ChaosCluster.Options options, Plan plan) {

    /** Fills in one run of a scenario. */
    @FunctionalInterface
    public interface Plan {

        /**
         * Adds the scenario's faults to {@code nemesis} and adjusts {@code workload}.
         *
         * @param cluster the started nodes
         * @param random the run's seeded randomness
         * @param duration how long the workload runs; faults should heal before its end
         * @param nemesis the fault schedule to fill
         * @param workload the workload settings to adjust
         */
        void plan(
                ChaosCluster cluster,
                Random random,
                Duration duration,
                Nemesis nemesis,
                LockWorkload.Settings workload);
    }
}
