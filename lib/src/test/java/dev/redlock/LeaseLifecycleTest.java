/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Leases callers can trust: watchdog, explicit extend, the lost-lease signal, reentrancy and withLock. */
class LeaseLifecycleTest extends RedisBackedTest {

    private static final Duration TTL = Duration.ofSeconds(1);

    /** A client whose auto-extended leases have a 1 s TTL, renewed every 333 ms. */
    private RedlockClient shortTtlClient() {
        return client(b -> b.leaseTime(TTL).perNodeTimeout(Duration.ofMillis(100)));
    }

    /** Records when a lease's loss was reported, on which thread, and the loss itself. */
    private static final class LossProbe {
        final CompletableFuture<LockLostException> loss = new CompletableFuture<>();
        volatile long atNanos;
        volatile String thread;

        void attach(Lease lease) {
            lease.onLost(e -> {
                atNanos = System.nanoTime();
                thread = Thread.currentThread().getName();
                loss.complete(e);
            });
        }
    }

    @Test
    void watchdogHoldsALeaseFarBeyondItsTtl() throws Exception {
        RedlockClient holder = shortTtlClient();
        QuorumLock contender = client().redLock(uniqueName("watchdog"));
        Lease lease = holder.redLock(contender.name()).tryAcquire(Duration.ZERO).orElseThrow();
        assertTrue(lease.isAutoExtended());
        long firstDeadline = lease.deadlineNanos();

        // For five TTLs, a second client never gets the lock, and the lease stays valid.
        await().during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(7))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> lease.isValid()
                        && contender
                                        .attempt(Duration.ZERO, Duration.ofSeconds(5))
                                        .reason()
                                == FailureReason.BUSY);
        assertTrue(lease.deadlineNanos() - firstDeadline > TimeUnit.SECONDS.toNanos(3), "the deadline kept moving");
        assertTrue(lease.lossCause().isEmpty());

        lease.release();
        assertTrue(contender.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).isPresent(), "free at once");
    }

    @Test
    void losingTheQuorumSignalsTheLossByTheDeadline() throws Exception {
        RedlockClient holder = shortTtlClient();
        Lease lease =
                holder.redLock(uniqueName("lost")).tryAcquire(Duration.ZERO).orElseThrow();
        LossProbe probe = new LossProbe();
        probe.attach(lease);

        node(0).kill();
        node(2).kill();
        node(4).kill();

        LockLostException lost = probe.loss.get(5, TimeUnit.SECONDS);
        long deadline = lease.deadlineNanos();
        assertTrue(
                probe.atNanos - deadline <= TimeUnit.MILLISECONDS.toNanos(100),
                "told " + (probe.atNanos - deadline) / 1_000_000 + " ms after the deadline");
        assertFalse(lease.isValid());
        assertEquals(LockLostException.Reason.EXPIRED, lost.reason());
        assertEquals(lease.lockName(), lost.lockName());
        RoundOutcome last = lost.lastRound().orElseThrow();
        assertEquals(3, last.unavailable(), last::toString);
        assertFalse(probe.thread.startsWith("redlock-"), "listeners run on the async executor: " + probe.thread);
        LockLostException thrown = assertThrows(LockLostException.class, lease::checkValid);
        assertEquals(LockLostException.Reason.EXPIRED, thrown.reason());
        assertTrue(thrown.getMessage().contains(lease.lockName())
                && !thrown.getMessage().contains(lease.token()));
    }

    @Test
    void withLockInterruptsItsBodyAndFailsWhenTheLeaseIsLost() throws Exception {
        RedlockClient holder = shortTtlClient();
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean bodyInterrupted = new AtomicBoolean();
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture<Object> call = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return holder.withLock(uniqueName("with"), LockOptions.defaults(), () -> {
                                started.countDown();
                                try {
                                    new CountDownLatch(1).await(); // a body that runs until it is interrupted
                                } catch (InterruptedException e) {
                                    bodyInterrupted.set(true);
                                    throw e;
                                }
                                return "never";
                            });
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    },
                    runner);
            assertTrue(started.await(5, TimeUnit.SECONDS));
            node(1).kill();
            node(2).kill();
            node(3).kill();

            ExecutionException e = assertThrows(ExecutionException.class, () -> call.get(5, TimeUnit.SECONDS));
            Throwable cause = e.getCause().getCause();
            assertInstanceOf(LockLostException.class, cause, e::toString);
            assertTrue(bodyInterrupted.get());
            assertInstanceOf(InterruptedException.class, cause.getSuppressed()[0]);
        } finally {
            runner.shutdownNow();
        }
    }

    @Test
    void withLockRunsTheBodyAndReleases() throws Exception {
        RedlockClient c = shortTtlClient();
        String name = uniqueName("with-ok");
        // The body outlives the TTL: the watchdog keeps the lock for it.
        String result = c.withLock(name, LockOptions.defaults(), () -> {
                    long end = System.nanoTime() + TTL.multipliedBy(2).toNanos();
                    await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - end > 0);
                    assertTrue(client().redLock(name)
                            .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                            .isEmpty());
                    return "done";
                })
                .orElseThrow();
        assertEquals("done", result);
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(c.keyOf(name)) == 0);

        // Busy: the body does not run.
        Lease other = client().redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        AtomicBoolean ran = new AtomicBoolean();
        assertFalse(c.withLock(name, LockOptions.defaults().waitTime(Duration.ofMillis(100)), () -> ran.set(true)));
        assertFalse(ran.get());
        other.release();
        assertTrue(c.withLock(name, LockOptions.defaults().policy(QuorumPolicy.ALL), () -> ran.set(true)));
        assertTrue(ran.get());
    }

    @Test
    void vanishedHolderLetsAnotherClientInWithinOneTtl() throws Exception {
        RedlockClient holder = RedlockClient.create(
                config().leaseTime(TTL).perNodeTimeout(Duration.ofMillis(100)).build());
        String name = uniqueName("abrupt");
        Lease lease = holder.redLock(name).tryAcquire(Duration.ZERO).orElseThrow();
        LossProbe probe = new LossProbe();
        probe.attach(lease);
        long closedAt = System.nanoTime();
        holder.close(); // abrupt: no release, the watchdog is gone with the client

        assertEquals(
                LockLostException.Reason.CLIENT_CLOSED,
                probe.loss.get(5, TimeUnit.SECONDS).reason());
        Lease next = client().redLock(name)
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .orElseThrow();
        long waited = next.acquisition().elapsed().toNanos() + System.nanoTime() - closedAt;
        assertTrue(waited < TTL.plusMillis(300).toNanos(), "acquired " + waited / 1_000_000 + " ms after close");
    }

    @Test
    void reentrantHoldIsReleasedOnTheLastUnlock() throws Exception {
        QuorumLock lock = shortTtlClient().redLock(uniqueName("reentrant"));
        QuorumLock other = client().redLock(lock.name());
        lock.lock();
        lock.lock();
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(other.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).isEmpty(), "still held after one unlock");
        lock.unlock();
        assertTrue(other.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)).isPresent(), "free after the second");
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }

    @Test
    void reenteringAnExpiredHoldThrowsInsteadOfClaimingTheLock() throws Exception {
        QuorumLock lock = client().redLock(uniqueName("reenter-expired"));
        assertTrue(lock.tryLock(0, 300, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        Lease other = client().redLock(lock.name())
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .orElseThrow();
        assertThrows(LockLostException.class, lock::tryLock);
        assertThrows(LockLostException.class, lock::lock);
        assertEquals(1, lock.getHoldCount(), "the failed re-entries did not count");
        // Unlocking the stale hold drops it and says the section was not protected; the other owner's key stays.
        IllegalMonitorStateException stale = assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertInstanceOf(LockLostException.class, stale.getCause());
        assertEquals(0, lock.getHoldCount());
        assertFalse(lock.tryLock(), "now an ordinary attempt, against the other holder");
        assertTrue(other.isValid());
    }

    @Test
    void lockFaceHoldIsAutoExtendedAndReportsLoss() throws Exception {
        RedlockClient c = shortTtlClient();
        QuorumLock lock = c.redLock(uniqueName("face-lost"));
        assertTrue(lock.tryLock(1, TimeUnit.SECONDS));
        Lease lease = lock.currentLease().orElseThrow();
        assertTrue(lease.isAutoExtended());
        assertTrue(lock.extend(Duration.ofSeconds(2)));
        LossProbe probe = new LossProbe();
        probe.attach(lease);
        node(0).kill();
        node(1).kill();
        node(2).kill();
        probe.loss.get(5, TimeUnit.SECONDS);
        assertFalse(lock.isHeldByCurrentThread(), "a lost lease is not held");
        // It still sends the release everywhere, then tells the caller the section was not protected to its end.
        IllegalMonitorStateException lost = assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertInstanceOf(LockLostException.class, lost.getCause());
        assertEquals(0, lock.getHoldCount());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }

    @Test
    void explicitExtendMovesTheDeadlineOnlyWhileValid() throws Exception {
        QuorumLock lock = client().redLock(uniqueName("extend"));
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
        assertFalse(lease.isAutoExtended());
        long before = lease.deadlineNanos();
        RoundOutcome extended = lease.extend(Duration.ofSeconds(5));
        assertTrue(extended.succeeded(), extended::toString);
        assertTrue(lease.deadlineNanos() - before > TimeUnit.SECONDS.toNanos(3), "deadline moved forward");
        assertEquals(Duration.ofSeconds(5), lease.leaseTime());
        try (var jedis = node(0).client()) {
            assertTrue(jedis.pttl(lease.key()) > 3_000);
        }
        assertTrue(lease.extendAsync(Duration.ofSeconds(5))
                .get(5, TimeUnit.SECONDS)
                .succeeded());
        lease.release();

        // After expiry: nothing is sent and nothing is recreated.
        Lease shortLived =
                lock.tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !shortLived.isValid() && nodesWithKey(lock.key()) == 0);
        RoundOutcome late = shortLived.extend(Duration.ofSeconds(5));
        assertEquals(FailureReason.LEASE_EXPIRED, late.reason());
        assertEquals(0, nodesWithKey(lock.key()), "an extension never resurrects the lock");
        assertEquals(
                LockLostException.Reason.EXPIRED,
                shortLived.lossCause().orElseThrow().reason());
    }

    @Test
    void extendFindingTheKeysGoneLosesTheLeaseWithoutRecreatingThem() throws Exception {
        QuorumLock lock = client().redLock(uniqueName("gone"));
        Lease lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(lease.key(), lease.token()) == 5);
        for (int i = 0; i < 3; i++) {
            node(i).client().del(lease.key()); // what a forward clock jump on three nodes would do
        }
        RoundOutcome r = lease.extend(Duration.ofSeconds(10));
        assertEquals(FailureReason.LEASE_EXPIRED, r.reason(), r::toString);
        assertEquals(
                LockLostException.Reason.OWNERSHIP_LOST,
                lease.lossCause().orElseThrow().reason());
        assertFalse(lease.isValid());
        assertEquals(2, nodesWithKey(lease.key()), "the three missing keys were not recreated");
    }

    @Test
    void noRenewalAfterRelease() throws Exception {
        RedlockClient holder = client(b -> b.leaseTime(Duration.ofMillis(600)).perNodeTimeout(Duration.ofMillis(100)));
        QuorumLock lock = holder.redLock(uniqueName("after-release"));
        Lease lease = lock.tryAcquire(Duration.ZERO).orElseThrow();
        // Let at least one renewal happen first.
        long firstDeadline = lease.deadlineNanos();
        await().atMost(Duration.ofSeconds(5)).until(() -> lease.deadlineNanos() != firstDeadline);
        lease.release().completion().get(5, TimeUnit.SECONDS);

        Lease other = client().redLock(lock.name())
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(5))
                .orElseThrow();
        other.release().completion().get(5, TimeUnit.SECONDS);
        // Three watchdog periods (3 x 200 ms) and more: no renewal recreates or extends anything.
        await().during(Duration.ofMillis(900))
                .atMost(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> nodesWithKey(lock.key()) == 0);
        assertTrue(lease.lossCause().isEmpty(), "a released lease is not lost");
        LockLostException released = assertThrows(LockLostException.class, lease::checkValid);
        assertEquals(LockLostException.Reason.RELEASED, released.reason());
    }

    @Test
    void capsOnHoldTimeAndFailedExtensions() throws Exception {
        RedlockClient capped = client(b -> b.leaseTime(Duration.ofMillis(600))
                .perNodeTimeout(Duration.ofMillis(100))
                .maxHoldTime(Duration.ofMillis(900)));
        long acquiredAt = System.nanoTime();
        Lease lease =
                capped.redLock(uniqueName("hold-cap")).tryAcquire(Duration.ZERO).orElseThrow();
        LossProbe probe = new LossProbe();
        probe.attach(lease);
        assertEquals(
                LockLostException.Reason.MAX_HOLD_TIME,
                probe.loss.get(5, TimeUnit.SECONDS).reason());
        assertTrue(probe.atNanos - acquiredAt >= TimeUnit.MILLISECONDS.toNanos(900), "kept until the cap");
        assertFalse(lease.isValid());

        RedlockClient impatient = client(b -> b.leaseTime(Duration.ofSeconds(3))
                .perNodeTimeout(Duration.ofMillis(100))
                .maxFailedExtensions(1));
        Lease second = impatient
                .redLock(uniqueName("fail-cap"))
                .tryAcquire(Duration.ZERO)
                .orElseThrow();
        LossProbe probe2 = new LossProbe();
        probe2.attach(second);
        node(0).kill();
        node(1).kill();
        node(2).kill();
        LockLostException lost = probe2.loss.get(5, TimeUnit.SECONDS);
        assertEquals(LockLostException.Reason.EXTENSION_FAILED, lost.reason());
        assertTrue(probe2.atNanos - second.deadlineNanos() < 0, "gave up before the deadline");
    }

    @Test
    void closingTheClientStopsTheWatchdogAndEveryThread() throws Exception {
        RedlockClient c = RedlockClient.create(
                config().leaseTime(TTL).perNodeTimeout(Duration.ofMillis(100)).build());
        Lease lease = c.redLock(uniqueName("close-watchdog"))
                .tryAcquire(Duration.ZERO)
                .orElseThrow();
        QuorumLock face = c.redLock(uniqueName("close-face"));
        face.lock();
        c.close();
        assertEquals(
                LockLostException.Reason.CLIENT_CLOSED,
                lease.lossCause().orElseThrow().reason());
        List<String> threads = Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("redlock-"))
                .collect(Collectors.toList());
        assertEquals(List.of(), threads);
    }
}
