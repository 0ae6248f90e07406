/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Scenarios 3, 9 and 10: stalled nodes (four clients with three threads each on one lock, release notifications on)
 * and a stalled holder.
 */
class PauseScenariosTest extends ChaosTestBase {

    private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(100);

    @Test
    void nodePausedForSeveralTtlsKeepsSafetyAndBoundedLatency() throws Exception {
        pausedNode("pause-node", new ChaosCluster.Options());
    }

    /** The same over TLS-only masters: a stalled TLS node costs no round more than the per-node timeout either. */
    @Test
    void tlsNodePausedForSeveralTtlsKeepsSafetyAndBoundedLatency() throws Exception {
        pausedNode("pause-node-tls", new ChaosCluster.Options().tls());
    }

    private void pausedNode(String name, ChaosCluster.Options options) throws Exception {
        long seed = seed(name);
        Random random = new Random(seed);
        int victim = random.nextInt(5);
        Duration duration = scaled(Duration.ofSeconds(6));
        try (ChaosCluster cluster = ChaosCluster.start(5, options)) {
            Nemesis nemesis = new Nemesis()
                    .at(Duration.ofMillis(1_000), "SIGSTOP node " + victim, () -> cluster.pause(victim))
                    .at(
                            Duration.ofMillis(1_000).plus(duration.dividedBy(2)),
                            "SIGCONT node " + victim,
                            () -> cluster.resume(victim));
            LockWorkload.Settings settings =
                    new LockWorkload.Settings().duration(duration).clients(4).threads(3);
            Run run = run(name, cluster, settings, nemesis, seed, List.of());
            assertTrue(run.allValid(), () -> run.results().toString());
            assertNotificationsInUse(cluster, (victim + 1) % 5);
            // No round waits for the stalled node longer than the per-node timeout (plus scheduling slack on a
            // busy machine, where a timer or a reply can run late by a GC pause): a round either decides without it
            // or gives up on it. Waiting for the node would show as the pause's seconds.
            Duration maxRound = Duration.ofNanos(run.result().maxRoundNanos());
            System.out.println("[chaos] " + name + ": longest round " + maxRound.toMillis() + " ms");
            assertTrue(maxRound.compareTo(PER_NODE_TIMEOUT.plusMillis(400)) < 0, "longest round " + maxRound);
            assertEquals(0, run.result().staleReplies());
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    @Test
    void stallsMidRequestNeverHandAStaleReplyToTheNextCommand() throws Exception {
        long seed = seed("stall-mid-request");
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(5));
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            Nemesis nemesis = new Nemesis();
            long mid = duration.toMillis() / 2;
            java.util.Set<Integer> stalledAtMid = new java.util.HashSet<>();
            for (long at = 500; at < duration.toMillis() - 500; at += 400 + random.nextInt(400)) {
                int node = random.nextInt(5);
                long stall = 150 + random.nextInt(200); // longer than the per-node timeout
                if (at <= mid + 50 && mid - 50 <= at + stall) {
                    stalledAtMid.add(node);
                }
                nemesis.at(
                        Duration.ofMillis(at),
                        "SIGSTOP node " + node + " for " + stall + " ms",
                        () -> cluster.pause(node));
                nemesis.at(Duration.ofMillis(at + stall), "SIGCONT node " + node, () -> cluster.resume(node));
            }
            // Not a node that is SIGSTOPped then: the nemesis runs its steps one after another, so a CLIENT PAUSE sent
            // to
            // a stopped node would wait for the SIGCONT scheduled behind it (and time out).
            int writePaused = random.nextInt(5);
            while (stalledAtMid.contains(writePaused)) {
                writePaused = (writePaused + 1) % 5;
            }
            int writePausedNode = writePaused;
            nemesis.at(
                    Duration.ofMillis(mid),
                    "CLIENT PAUSE 300 WRITE on node " + writePausedNode,
                    () -> cluster.clientPauseWrites(writePausedNode, Duration.ofMillis(300)));
            LockWorkload.Settings settings =
                    new LockWorkload.Settings().duration(duration).clients(4).threads(3);
            Run run = run("stall-mid-request", cluster, settings, nemesis, seed, List.of());
            assertTrue(run.allValid(), () -> run.results().toString());
            assertEquals(0, run.result().staleReplies(), "a reply was read by the wrong command");
            assertTrue(run.history().ops().stream()
                            .filter(op -> op.outcome() == Op.Outcome.UNKNOWN)
                            .count()
                    == 0);
            assertNoLeftovers(cluster, settings.leaseTime());
        }
    }

    @Test
    void holderPausedPastItsValidityDoesNotActInsideTheNextHoldersWindow() throws Exception {
        long seed = seed("holder-gc-pause");
        Duration lease = Duration.ofMillis(500);
        Duration gcPause = Duration.ofMillis(1_000 + new Random(seed).nextInt(500));
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options());
                RedlockClient a = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build());
                RedlockClient b = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build())) {
            long origin = System.nanoTime();
            String name = "gc-pause";
            Op.Builder first = Op.builder().client(0).lock(name).invokeNanos(System.nanoTime());
            Lease held = a.redLock(name).tryAcquire(Duration.ZERO, lease).orElseThrow();
            first.completeNanos(System.nanoTime()).outcome(Op.Outcome.OK).token(held.token());

            // The other client takes the lock as soon as A's lease has run out.
            CompletableFuture<Op> other = CompletableFuture.supplyAsync(() -> {
                Op.Builder op = Op.builder().client(1).lock(name).invokeNanos(System.nanoTime());
                try {
                    Lease l = b.redLock(name)
                            .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5))
                            .orElseThrow();
                    op.completeNanos(System.nanoTime())
                            .outcome(Op.Outcome.OK)
                            .token(l.token())
                            .deadlineNanos(l.deadlineNanos());
                    l.checkValid();
                    op.actNanos(System.nanoTime()).wrote(true);
                    op.releaseNanos(System.nanoTime());
                    l.release();
                    return op.build();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });

            // A "stop-the-world" pause of the holder, longer than its validity.
            pause(gcPause);

            assertFalse(held.isValid(), "after the pause the lease is already invalid");
            assertThrows(LockLostException.class, held::checkValid, "checkValid stops A before it acts");
            history.add(first.deadlineNanos(held.deadlineNanos())
                    .releaseNanos(System.nanoTime())
                    .build());
            held.release();
            history.add(other.get(10, TimeUnit.SECONDS));

            Run run = finish(
                    "holder-gc-pause",
                    history,
                    null,
                    List.of(new MutualExclusionChecker(), new LostLeaseChecker()),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            Op a0 = run.history().ops().stream()
                    .filter(op -> op.client() == 0)
                    .findFirst()
                    .orElseThrow();
            assertEquals(Op.NONE, a0.actNanos(), "A never acted");
            assertNoLeftovers(cluster, lease);
        }
    }
}
