/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Thousands of threads of one client waiting for one lock: only the first few of them poll the nodes, the others wait
 * for their turn (a release wakes the oldest; a waiter that moves up to the front starts to poll), so the nodes see
 * about one round per acquisition however long the line.
 */
class ManyWaitersTest extends RedisBackedTest {

    private static final int THREADS = 2_000;

    /** Deliberately not atomic and not volatile: only the lock makes the increments safe. */
    private static final class Counter {
        long value;
    }

    /**
     * Seen failing before waiters behind the first few were parked: every waiter polled about three times a second,
     * the nodes' replies came later than twice the per-node timeout, connections were dropped, and within the 60 s
     * wait only a few dozen of the 2,000 threads got the lock.
     */
    @Test
    void twoThousandWaitersInOneClientAllGetTheLockAtAboutOneRoundEach() throws Exception {
        LongAdder rounds = new LongAdder();
        RedlockClient c = client(b -> b.listener(new RedlockListener() {
            @Override
            public void acquireRound(LockKind kind, RoundOutcome round) {
                rounds.increment();
            }
        }));
        QuorumLock lock = c.redLock(uniqueName("many-waiters"));
        Counter counter = new Counter();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger gaveUp = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(
                    () -> {
                        try {
                            if (lock.tryLock(60, TimeUnit.SECONDS)) {
                                try {
                                    counter.value++;
                                    acquired.incrementAndGet();
                                } finally {
                                    lock.unlock();
                                }
                            } else {
                                gaveUp.incrementAndGet();
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            done.countDown();
                        }
                    },
                    "many-waiters-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        assertTrue(done.await(2, TimeUnit.MINUTES), "every thread is done within its 60 s wait and a margin");
        System.out.printf(
                "%,d threads of one client on one RedLock: %,d acquired, %,d gave up, %,d rounds (%.2f per acquisition)%n",
                THREADS,
                acquired.get(),
                gaveUp.get(),
                rounds.sum(),
                rounds.sum() / (double) Math.max(1, acquired.get()));
        assertEquals(0, gaveUp.get(), "threads that did not get the lock within 60 s");
        assertEquals(THREADS, counter.value);
        assertTrue(
                rounds.sum() <= 2L * THREADS,
                () -> rounds.sum() + " rounds for " + THREADS
                        + " acquisitions: the waiters behind the first few polled");
    }
    /**
     * Waiters of one client whose waits end at one instant give up without a last round each: a waiter with others of
     * its client ahead of it could only be refused. Seen failing before: 547 rounds from 100 ms before the deadline of
     * 500 waiters (each sent a last round, and a leave); with 10,000 virtual threads that burst made every node miss
     * the per-node timeout. Now 42, the pollers' usual rounds.
     */
    @Test
    void waitersWhoseWaitsEndTogetherSendNoLastRoundBehindTheirClientsFirst() throws Exception {
        int waiters = 500;
        String name = uniqueName("deadline");
        Lease held = client().redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMinutes(1))
                .orElseThrow();
        LongAdder rounds = new LongAdder();
        RedlockClient c = client(b -> b.listener(new RedlockListener() {
            @Override
            public void acquireRound(LockKind kind, RoundOutcome round) {
                rounds.increment();
            }
        }));
        QuorumLock lock = c.redLock(name);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<java.util.concurrent.CompletableFuture<java.util.Optional<Lease>>> all = new ArrayList<>();
        all.add(lock.tryAcquireAsync(Duration.ofNanos(deadline - System.nanoTime())));
        // The first waiter was refused and waits (its client listens for the key): the others join it, no round each.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(1)).until(() -> {
            try (var j = node(0).client()) {
                return j.pubsubNumSub(held.key()).getOrDefault(held.key(), 0L) > 0;
            }
        });
        for (int i = 1; i < waiters; i++) {
            all.add(lock.tryAcquireAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))));
        }
        // The rounds from just before the deadline on: the waiters' last ones, if they send any.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> System.nanoTime() - (deadline - TimeUnit.MILLISECONDS.toNanos(100)) >= 0);
        long before = rounds.sum();
        for (java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> f : all) {
            assertTrue(f.get(30, TimeUnit.SECONDS).isEmpty(), "the lock is held throughout");
        }
        held.release();
        long last = rounds.sum() - before;
        System.out.printf("%,d waiters of one client gave up together: %,d rounds from 100 ms before%n", waiters, last);
        assertTrue(
                last < waiters / 4,
                () -> last + " rounds at the deadline for " + waiters
                        + " waiters: those behind others ran a last round");
    }
}
