/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.QuorumSemaphore;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.Op;
import dev.redlock.chaos.history.PermitChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** A semaphore of 2 permits under a contended workload while two masters of five are killed. */
class SemaphoreScenariosTest extends ChaosTestBase {

    private static final int PERMITS = 2;

    @Test
    void killMinorityNeverAdmitsMoreThanThePermits() throws Exception {
        long seed = seed("semaphore-kill-minority");
        Random random = new Random(seed);
        Duration duration = scaled(Duration.ofSeconds(6));
        List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2, 3, 4));
        Collections.shuffle(nodes, random);
        long killAt = duration.toMillis() / 5 + random.nextInt((int) (duration.toMillis() / 4));
        History history = new History();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options())) {
            cluster.onFault(history::add);
            Nemesis nemesis = new Nemesis()
                    .at(Duration.ofMillis(killAt), "kill node " + nodes.get(0), () -> cluster.kill(nodes.get(0)))
                    .at(
                            Duration.ofMillis(killAt + random.nextInt(500)),
                            "kill node " + nodes.get(1),
                            () -> cluster.kill(nodes.get(1)));
            long origin = System.nanoTime();
            nemesis.start(origin);
            List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());
            List<RedlockClient> clients = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            long stopAt = origin + duration.toNanos();
            try {
                for (int c = 0; c < 3; c++) {
                    RedlockClient client = RedlockClient.create(
                            LockWorkload.baseConfig(cluster.uris()).build());
                    clients.add(client);
                    for (int t = 0; t < 2; t++) {
                        int id = c * 2 + t;
                        Random work = new Random(seed * 31 + id);
                        QuorumSemaphore s = client.semaphore("chaos-semaphore", PERMITS);
                        Thread thread = new Thread(
                                () -> {
                                    try {
                                        loop(id, s, history, work, stopAt);
                                    } catch (Throwable e) {
                                        crashes.add(e);
                                    }
                                },
                                "semaphore-client-" + id);
                        threads.add(thread);
                        thread.start();
                    }
                }
                for (Thread t : threads) {
                    t.join(duration.toMillis() + 60_000);
                }
            } finally {
                clients.forEach(RedlockClient::close);
            }
            nemesis.join(Duration.ofSeconds(60));
            assertEquals(List.of(), crashes);
            Run run = finish(
                    "semaphore-kill-minority",
                    history,
                    new LockWorkload.Result(0, 0, 0, List.of()),
                    List.of(new PermitChecker(PERMITS)),
                    origin);
            assertTrue(run.allValid(), () -> run.results().toString());
            // The negative control: the same history, judged against one permit fewer, shows the permits were
            // really held together (the checker could have seen an excess).
            CheckResult fewer = new PermitChecker(PERMITS - 1).check(history);
            assertEquals(CheckResult.Validity.INVALID, fewer.validity(), fewer::toString);
            long afterKill = history.ops().stream()
                    .filter(op -> op.outcome() == Op.Outcome.OK
                            && op.invokeNanos() - origin
                                    > Duration.ofMillis(killAt + 600).toNanos())
                    .count();
            assertTrue(afterKill > 0, "permits are still granted with 3 of 5 masters");
        }
    }

    private static void loop(int id, QuorumSemaphore s, History history, Random work, long stopAt)
            throws InterruptedException {
        while (System.nanoTime() - stopAt < 0) {
            Op.Builder op = Op.builder().client(id).lock("chaos-semaphore").invokeNanos(System.nanoTime());
            Optional<Lease> permit;
            try {
                permit = s.tryAcquire(Duration.ofMillis(500), Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                history.add(op.completeNanos(System.nanoTime())
                        .outcome(Op.Outcome.UNKNOWN)
                        .failure(e.toString())
                        .build());
                continue;
            }
            op.completeNanos(System.nanoTime());
            if (permit.isEmpty()) {
                history.add(op.outcome(Op.Outcome.FAIL).failure("BUSY").build());
                continue;
            }
            Lease lease = permit.get();
            AtomicLong lostAt = new AtomicLong(Op.NONE);
            lease.onLost(e -> lostAt.set(System.nanoTime()));
            op.outcome(Op.Outcome.OK).token(lease.token());
            LockSupport.parkNanos((long) (work.nextDouble() * 20_000_000L)); // the work, up to 20 ms
            op.deadlineNanos(lease.deadlineNanos()).releaseNanos(System.nanoTime());
            lease.release();
            history.add(op.lostNanos(lostAt.get()).build());
        }
    }
}
