/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.Lease;
import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Leftovers after a stall: many threads lock and unlock keys of their own while one master of five is paused
 * (SIGSTOP) and resumed. Each key has a single user, so a node that answers "taken" for it holds a key nobody
 * holds: a command the paused node ran late. Counts those answers, and the attempts that failed as busy.
 *
 * <p>Run from the repository root (settings by system property: {@code churn.threads} 64, {@code churn.seconds} 60,
 * {@code churn.pauseSeconds} 10):
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests &amp;&amp; java -cp redlock-bench/target/benchmarks.jar dev.redlock.bench.StallChurn
 * </pre>
 */
public final class StallChurn {

    private StallChurn() {}

    /**
     * Runs the churn once and prints one summary line per phase.
     *
     * @param args ignored
     * @throws Exception if the nodes cannot be started
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.getInteger("churn.threads", 64);
        long seconds = Long.getLong("churn.seconds", 60);
        long pauseSeconds = Long.getLong("churn.pauseSeconds", 10);
        LongAdder cycles = new LongAdder();
        LongAdder busy = new LongAdder();
        LongAdder unavailable = new LongAdder();
        LongAdder takenAnswers = new LongAdder();
        LongAdder[] takenByNode = new LongAdder[5];
        for (int i = 0; i < 5; i++) {
            takenByNode[i] = new LongAdder();
        }
        try (RedisNodes nodes = RedisNodes.start(5);
                RedlockClient client = RedlockClient.create(RedlockConfig.builder()
                        .nodes(nodes.uris())
                        .restartQuarantine(false)
                        .perNodeTimeout(Duration.ofMillis(50))
                        .build())) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                QuorumLock lock = client.redLock("churn:" + t);
                Thread w = new Thread(
                        () -> {
                            while (System.nanoTime() - end < 0) {
                                try {
                                    AcquireResult r = lock.attempt(Duration.ZERO, Duration.ofSeconds(10));
                                    cycles.increment();
                                    List<NodeOutcome> answers = r.lastRound().nodes();
                                    for (int i = 0; i < answers.size(); i++) {
                                        if (answers.get(i).status() == NodeStatus.TAKEN) {
                                            takenAnswers.increment();
                                            takenByNode[i].increment();
                                        }
                                    }
                                    if (r.acquired()) {
                                        r.lease().ifPresent(Lease::release);
                                    } else if (r.reason() == FailureReason.BUSY) {
                                        busy.increment();
                                    } else {
                                        unavailable.increment();
                                    }
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "churn-" + t);
                workers.add(w);
                w.start();
            }
            Compare.parkUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds / 3));
            System.err.println("[churn] pausing node 5 for " + pauseSeconds + " s");
            nodes.get(4).pause();
            Compare.parkUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(pauseSeconds));
            nodes.get(4).resume();
            System.err.println("[churn] node 5 resumed");
            for (Thread w : workers) {
                w.join();
            }
        }
        System.out.println(String.format(
                        Locale.ROOT,
                        "churn: %d threads, %d s, node 5 paused %d s: %d attempts, "
                                + "%d busy (keys nobody else holds), %d not enough nodes, %d 'taken' answers for keys nobody held",
                        threads,
                        seconds,
                        pauseSeconds,
                        cycles.sum(),
                        busy.sum(),
                        unavailable.sum(),
                        takenAnswers.sum())
                + " (by node: " + java.util.Arrays.toString(takenByNode) + ")");
    }
}
