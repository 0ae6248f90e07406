/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * Cancelling an asynchronous acquisition, or interrupting a blocking one, stops it: no further rounds, and a lease
 * won by a round already in flight is released at once and never kept by the watchdog.
 */
class CancellationTest extends RedisBackedTest {

    /** The key stays free on every node for a while: nobody acquired it behind the caller's back. */
    private static void assertStaysFree(String key) {
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> nodesWithKey(key) == 0);
    }

    /** Lock {@code name}, taken for 10 s by another client, so that an acquisition has to wait. */
    private Lease heldByAnotherClient(String name) throws InterruptedException {
        return client().redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
    }

    /** How many scripts node {@code i} has run (every round sends one acquire script to every node). */
    private static long scriptCalls(int i) {
        try (Jedis admin = node(i).client()) {
            long calls = 0;
            for (String line : admin.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    int at = line.indexOf("calls=") + "calls=".length();
                    calls += Long.parseLong(line.substring(at, line.indexOf(',', at)));
                }
            }
            return calls;
        }
    }

    /** Waits until node {@code i} has run at least {@code rounds} more scripts than {@code before}. */
    private static void awaitRounds(int i, long before, int rounds) {
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> scriptCalls(i) >= before + rounds);
    }

    @Test
    void cancellingAWaitingAcquisitionStopsItsRounds() throws Exception {
        String name = uniqueName("cancel-waiting");
        Lease held = heldByAnotherClient(name);
        RedlockClient c = client();
        long before = scriptCalls(0);
        CompletableFuture<Optional<Lease>> waiting = c.redLock(name).tryAcquireAsync(Duration.ofSeconds(20));
        awaitRounds(0, before, 2); // it lost a round or two
        assertTrue(waiting.cancel(true));
        held.release();
        assertStaysFree(held.key());
    }

    @Test
    void cancellingWhileTheWinningRoundIsInFlightGivesTheLeaseBack() throws Exception {
        RedlockClient c = client();
        for (int i = 0; i < 20; i++) {
            QuorumLock lock = c.redLock(uniqueName("cancel-in-flight"));
            CompletableFuture<Optional<Lease>> f = lock.tryAcquireAsync(Duration.ZERO);
            if (!f.cancel(true)) {
                f.join().ifPresent(Lease::release); // it won before the cancel: the caller's to release
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lock.key()) == 0);
        }
    }

    @Test
    void aTimedOutFutureStopsTheAcquisitionToo() throws Exception {
        String name = uniqueName("cancel-timeout");
        Lease held = heldByAnotherClient(name);
        RedlockClient c = client();
        CompletableFuture<AcquireResult> waiting =
                c.redLock(name).attemptAsync(Duration.ofSeconds(20)).orTimeout(50, TimeUnit.MILLISECONDS);
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause());
        held.release();
        assertStaysFree(held.key());
    }

    @Test
    void interruptingABlockingAcquireStopsIt() throws Exception {
        String name = uniqueName("interrupt-waiting");
        Lease held = heldByAnotherClient(name);
        RedlockClient c = client();
        QuorumLock lock = c.redLock(name);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            long before = scriptCalls(0);
            Future<Boolean> call = pool.submit(() -> lock.tryLock(20, TimeUnit.SECONDS));
            awaitRounds(0, before, 2); // it lost a round or two
            call.cancel(true); // interrupts the waiting thread
            held.release();
            assertStaysFree(held.key());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void interruptDuringTheWinningRoundThrowsAndReleases() throws Exception {
        String name = uniqueName("interrupt-in-flight");
        RedlockClient c = client(b -> b.perNodeTimeout(Duration.ofMillis(2_500)).leaseTime(Duration.ofSeconds(10)));
        QuorumLock lock = c.redLock(name);
        // Three nodes hold every write for 1.5 s: the round that wins is still in flight when interrupted (the setup
        // below, a thread's start and the polling, take a few hundred ms on a loaded machine).
        for (int i = 0; i < 3; i++) {
            try (Jedis admin = node(i).client()) {
                admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "1500", "WRITE");
            }
        }
        long before = scriptCalls(4);
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                outcome.complete(lock.tryLock(5, TimeUnit.SECONDS));
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        caller.start();
        // A node that is not paused ran the acquire: the round is sent, and waits for the paused nodes' answers. (The
        // caller's thread state says nothing here: a caller alone reads its replies itself, RUNNABLE in a select.)
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> scriptCalls(4) > before || outcome.isDone());
        caller.interrupt();
        Object result = outcome.get(5, TimeUnit.SECONDS);
        assertInstanceOf(
                InterruptedException.class,
                result,
                "interrupted while acquiring: Lock.tryLock must throw, as ReentrantLock does; got " + result);
        assertStaysFree(lock.key());
    }
}
