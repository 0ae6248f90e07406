/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
