/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A semaphore over the quorum: never more than its permits held at once, and each permit a lease. */
class SemaphoreTest extends RedisBackedTest {

    /**
     * Three clients, four threads each, on a semaphore of 3 permits for 3 s: each holder counts itself in while its
     * lease is valid. Never more than 3 at once, and the 3 permits are used together.
     */
    @Test
    void neverMoreHoldersThanPermits() throws Exception {
        String name = uniqueName("sem");
        List<QuorumSemaphore> semaphores = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            semaphores.add(client().semaphore(name, 3));
        }
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(12);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
            QuorumSemaphore s = semaphores.get(t % 3);
            workers.add(pool.submit(() -> {
                while (System.nanoTime() - until < 0) {
                    Optional<Lease> permit = s.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(10));
                    if (permit.isEmpty()) {
                        continue;
                    }
                    Lease lease = permit.get();
                    lease.checkValid();
                    int now = holding.incrementAndGet();
                    most.accumulateAndGet(now, Math::max);
                    acquired.incrementAndGet();
                    long spin = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
                    while (System.nanoTime() - spin < 0) {
                        Thread.onSpinWait(); // the critical section
                    }
                    holding.decrementAndGet();
                    lease.release();
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(most.get() <= 3, "holders at once: " + most.get());
        assertEquals(3, most.get(), "the three permits were never held together");
        assertTrue(acquired.get() > 30, "permits taken: " + acquired.get());
    }

    @Test
    void aFullSemaphoreRefusesUntilAPermitIsReleased() throws Exception {
        QuorumSemaphore s = client().semaphore(uniqueName("full"), 2);
        Lease a = s.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        Lease b = s.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        assertTrue(!a.lockName().equals(b.lockName()), "two leases on one permit: " + a.lockName());
        QuorumSemaphore other = client().semaphore(s.name(), 2);
        assertFalse(other.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).isPresent());
        a.release();
        Lease c = other.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        assertEquals(a.lockName(), c.lockName());
    }

    /** A holder that never releases (it crashed): its permit frees when its keys expire, and a waiter takes it. */
    @Test
    void aCrashedHoldersPermitIsTakenWhenItsLeaseEnds() throws Exception {
        QuorumSemaphore s = client().semaphore(uniqueName("crash"), 1);
        s.tryAcquire(Duration.ZERO, Duration.ofMillis(800)).orElseThrow();
        QuorumSemaphore waiting =
                client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0)).semaphore(s.name(), 1);
        assertTrue(
                waiting.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                        .isPresent(),
                "the waiter slept past the holder's TTL");
    }

    @Test
    void permitsAreLeasesWithFencingTokensAndTheWatchdog() throws Exception {
        QuorumSemaphore s = client().semaphore(uniqueName("lease"), 1).fenced();
        Lease first = s.tryAcquire(Duration.ZERO).orElseThrow();
        assertTrue(first.fencingToken().isPresent());
        long token = first.fencingToken().getAsLong();
        first.release();
        Lease second = s.tryAcquire(Duration.ZERO).orElseThrow();
        assertTrue(second.fencingToken().getAsLong() > token, "fencing token did not increase");
        second.release();
    }

    @Test
    void oneKilledNodeOfFiveChangesNothing() throws Exception {
        QuorumSemaphore s = client().semaphore(uniqueName("killed"), 2);
        node(4).kill();
        Lease a = s.tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(10)).orElseThrow();
        Lease b = s.tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(10)).orElseThrow();
        assertFalse(s.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).isPresent());
        a.release();
        b.release();
    }

    @Test
    void badInputFailsNamingTheField() {
        RedlockClient c = client();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.semaphore("s", 0));
        assertTrue(e.getMessage().startsWith("permits:") && e.getMessage().contains("1 and 1024"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.semaphore("s", QuorumSemaphore.MAX_PERMITS + 1));
        e = assertThrows(IllegalArgumentException.class, () -> c.semaphore("", 2));
        assertTrue(e.getMessage().startsWith("name:"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class, () -> c.semaphore("n".repeat(RedlockClient.MAX_LOCK_NAME_BYTES), 2));
        assertTrue(e.getMessage().startsWith("name:"), e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> c.semaphore("s", 2).tryAcquire(Duration.ZERO, Duration.ofMillis(1)));
        assertTrue(e.getMessage().startsWith("leaseTime"), e.getMessage());
    }

    @Test
    void withTooFewNodesItSaysSo() throws Exception {
        QuorumSemaphore s = client().semaphore(uniqueName("down"), 2);
        node(2).kill();
        node(3).kill();
        node(4).kill();
        assertThrows(NotEnoughNodesException.class, () -> s.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)));
    }

    @Test
    void asyncPermitsCountAgainstTheSameLimitAndWaitForARelease() throws Exception {
        String name = uniqueName("sem-async");
        QuorumSemaphore s = client().semaphore(name, 2);
        Lease a = s.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(10))
                .get(5, TimeUnit.SECONDS)
                .orElseThrow();
        Lease b = client().semaphore(name, 2)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        assertTrue(s.tryAcquireAsync(Duration.ZERO).get(5, TimeUnit.SECONDS).isEmpty(), "both permits are held");

        java.util.concurrent.CompletableFuture<Optional<Lease>> waiting =
                client().semaphore(name, 2).tryAcquireAsync(Duration.ofSeconds(10), Duration.ofSeconds(10));
        org.awaitility.Awaitility.await()
                .pollDelay(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(2))
                .until(() -> !waiting.isDone());
        b.release();
        Lease c = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
        assertTrue(c.isValid());
        assertTrue(a.isValid());
    }

    @Test
    void aCancelledAsyncAcquisitionStopsAndKeepsNoPermit() throws Exception {
        String name = uniqueName("sem-cancel");
        RedlockClient c = client();
        Lease held = c.semaphore(name, 1)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        java.util.concurrent.CompletableFuture<Optional<Lease>> waiting =
                client().semaphore(name, 1).tryAcquireAsync(Duration.ofSeconds(30), Duration.ofSeconds(10));
        waiting.cancel(false);
        held.release();
        // The permit is free for anyone: the cancelled acquisition took nothing.
        assertTrue(c.semaphore(name, 1)
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .isPresent());
    }

    @Test
    void anAsyncAcquisitionFailsWhenTheClientCloses() throws Exception {
        RedlockClient c = RedlockClient.create(config().build());
        String name = uniqueName("sem-close");
        c.semaphore(name, 1).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        java.util.concurrent.CompletableFuture<Optional<Lease>> waiting =
                c.semaphore(name, 1).tryAcquireAsync(Duration.ofSeconds(30), Duration.ofSeconds(10));
        c.close();
        java.util.concurrent.ExecutionException e =
                assertThrows(java.util.concurrent.ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e::toString);
    }
}
