/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.cluster.ChaosCluster;
import java.time.Duration;
import java.util.Random;

/**
 * The soak's fault schedule, drawn from a seed: one fault at a time on one random node, every 6 to 14 seconds, each
 * of three kinds with equal chance: a kill (SIGKILL, restarted 1 to 4 s later), a pause (SIGSTOP, SIGCONT 0.3 to
 * 3 s later) or a crash restart (killed and started again at once). No fault is in progress from 5 s before to 3 s
 * after a sampling moment, so every node can be asked for its figures.
 */
public final class SoakSchedule {

    private static final long GUARD_BEFORE_MS = 5_000;
    private static final long GUARD_AFTER_MS = 3_000;

    private SoakSchedule() {}

    /**
     * Fills {@code nemesis} with the faults of a run.
     *
     * @param cluster the nodes
     * @param random the run's seeded randomness
     * @param duration how long faults may be injected; the last heals before its end
     * @param samplePeriod how often samples are taken, from the start of the run
     * @param nemesis the schedule to fill
     * @return how many faults were scheduled
     */
    public static int plan(
            ChaosCluster cluster, Random random, Duration duration, Duration samplePeriod, Nemesis nemesis) {
        long end = duration.toMillis();
        long period = samplePeriod.toMillis();
        int faults = 0;
        long at = 5_000L + random.nextInt(5_000);
        while (true) {
            int node = random.nextInt(cluster.size());
            int kind = random.nextInt(3);
            long span = switch (kind) {
                case 0 -> 1_000 + random.nextInt(3_000);
                case 1 -> 300 + random.nextInt(2_700);
                default -> 0;
            };
            // No fault starts just after a sampling moment, and none that would be in progress near the next one:
            // that one moves to just after it.
            long sinceSample = at % period;
            if (sinceSample < GUARD_AFTER_MS) {
                at += GUARD_AFTER_MS - sinceSample;
            }
            long nextSample = (at / period + 1) * period;
            if (at + span + 1_000 > nextSample - GUARD_BEFORE_MS) {
                at = nextSample + GUARD_AFTER_MS;
            }
            if (at + span + 1_000 > end) {
                return faults;
            }
            String label = cluster.label(node);
            switch (kind) {
                case 0 -> {
                    nemesis.at(Duration.ofMillis(at), "kill " + label, () -> cluster.kill(node));
                    nemesis.at(Duration.ofMillis(at + span), "restart " + label, () -> cluster.restart(node));
                }
                case 1 -> {
                    nemesis.at(Duration.ofMillis(at), "SIGSTOP " + label, () -> cluster.pause(node));
                    nemesis.at(Duration.ofMillis(at + span), "SIGCONT " + label, () -> cluster.resume(node));
                }
                default -> nemesis.at(Duration.ofMillis(at), "crash and restart " + label, () -> cluster.restart(node));
            }
            faults++;
            at += span + 6_000 + random.nextInt(8_000);
        }
    }
}
