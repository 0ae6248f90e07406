/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract every lock kind keeps, run against five real Redis masters. One subclass per kind: RedLock, MultiLock,
 * the fair lock, the write lock and the multi-resource lock must all pass all of it (the read lock is shared, so its
 * own test checks what differs).
 */
abstract class LockContractTest extends RedisBackedTest {

    /** The lock kind under test. */
    abstract QuorumPolicy policy();

    QuorumLock lock(RedlockClient client, String name) {
        return client.lock(name, policy());
    }

    /** Deliberately not atomic and not volatile: only the lock makes the increments safe. */
    private static final class Counter {
        long value;
    }

    @Test
    void mutualExclusionAcrossThreadsAndClients() throws Exception {
        String name = uniqueName("mutex");
        List<RedlockClient> clients = List.of(client(), client(), client(), client());
        Counter counter = new Counter();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                QuorumLock lock = lock(clients.get(t % clients.size()), name);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        assertTrue(lock.tryLock(30, TimeUnit.SECONDS), "acquire within 30 s");
                        try {
                            long v = counter.value;
                            Thread.yield(); // widen the window a broken lock would let another writer into
                            counter.value = v + 1;
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(16 * 100, counter.value);
    }

    @Test
    void secondClientCannotAcquireWhileHeld() throws Exception {
        String name = uniqueName("held");
        RedlockClient a = client();
        RedlockClient b = client();
        Lease lease =
                lock(a, name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        assertTrue(lease.isValid());
        AcquireResult other = lock(b, name).attempt(Duration.ofMillis(100), Duration.ofSeconds(10));
        assertFalse(other.acquired());
        assertEquals(FailureReason.BUSY, other.reason(), other::toString);
        lease.release();
        assertTrue(
                lock(b, name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).isPresent());
    }

    @Test
    void releaseNeverDeletesAnotherOwnersKey() throws Exception {
        String name = uniqueName("foreign");
        RedlockClient a = client();
        RedlockClient b = client();
        Lease first =
                lock(a, name).tryAcquire(Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.isValid() && nodesWithKey(first.key()) == 0);

        Lease second =
                lock(b, name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(second.key(), second.token()) == 5);
        ReleaseResult late = first.release().completion().get(5, TimeUnit.SECONDS);
        assertEquals(0, late.released(), late::toString);
        assertEquals(5, late.ownedByAnother(), late::toString);
        assertEquals(5, nodesHolding(second.key(), second.token()), "the new owner's keys are untouched");
        assertTrue(second.isValid());
    }

    @Test
    void releaseAfterExpiryReportsAlreadyExpired() throws Exception {
        Lease lease = lock(client(), uniqueName("expired"))
                .tryAcquire(Duration.ZERO, Duration.ofMillis(300))
                .orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lease.key()) == 0);
        assertFalse(lease.isValid());

        ReleaseResult result = lease.release();
        assertTrue(result.wasExpired(), result::toString);
        assertEquals(0, result.released());
        ReleaseResult all = result.completion().get(5, TimeUnit.SECONDS);
        assertEquals(5, all.alreadyExpired(), all::toString);
    }

    @Test
    void closeIsIdempotent() throws Exception {
        Lease lease = lock(client(), uniqueName("close")).tryAcquire().orElseThrow();
        ReleaseResult first = lease.release();
        assertTrue(first.released() >= QuorumPolicy.MAJORITY.required(5), first::toString);
        lease.close();
        lease.close();
        assertSame(first, lease.release(), "a second release sends nothing and returns the first result");
        assertFalse(lease.isValid());
        assertEquals(Duration.ZERO, lease.remainingValidity());
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lease.key()) == 0);
    }

    @Test
    void tryWithResourcesReleases() throws Exception {
        QuorumLock lock = lock(client(), uniqueName("twr"));
        String key;
        try (Lease lease = lock.tryAcquire().orElseThrow()) {
            key = lease.key();
            // The round decided at its quorum; the last nodes may answer a moment later.
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(lease.key(), lease.token()) == 5);
            assertTrue(lease.remainingValidity().compareTo(Duration.ofSeconds(10)) < 0);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(key) == 0);
    }

    @Test
    void vanishedHolderFreesTheLockAfterItsTtl() throws Exception {
        String name = uniqueName("vanished");
        // The contender's client first: creating one (its topology check, over TLS too) must not eat into the TTL.
        QuorumLock lock = lock(client(), name);
        RedlockClient holder = RedlockClient.create(config().build());
        Lease lease = lock(holder, name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(3))
                .orElseThrow();
        holder.close(); // gone without releasing: its keys stay until their TTL

        assertTrue(lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).isEmpty(), "still held right after");
        Optional<Lease> taken = lock.tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(10));
        assertTrue(taken.isPresent(), "acquirable once the vanished holder's TTL ran out");
        assertNotEquals(lease.token(), taken.get().token());
    }

    @Test
    void lockFaceContract() throws Exception {
        QuorumLock lock = lock(client(), uniqueName("face"));
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertThrows(UnsupportedOperationException.class, lock::newCondition);
        assertFalse(lock.isHeldByCurrentThread());

        lock.lock();
        assertTrue(lock.isHeldByCurrentThread());
        assertTrue(lock.tryLock(), "reentrant");
        assertEquals(2, lock.getHoldCount());
        String key = lock.key();
        String token = lock.currentLease().orElseThrow().token();

        // Another thread does not hold it and cannot unlock it.
        CompletableFuture<Throwable> other = CompletableFuture.supplyAsync(() -> {
            try {
                lock.unlock();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        assertTrue(other.get(5, TimeUnit.SECONDS) instanceof IllegalMonitorStateException);

        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread(), "one hold left");
        assertEquals(5, nodesHolding(key, token));
        lock.unlock();
        assertFalse(lock.isHeldByCurrentThread());
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(key) == 0);

        assertTrue(lock.tryLock(1, 5_000, TimeUnit.MILLISECONDS));
        assertTrue(lock.currentLease().orElseThrow().leaseTime().equals(Duration.ofSeconds(5)));
        lock.unlock();
        lock.lockInterruptibly();
        lock.unlock();
    }

    @Test
    void leaseTimeMustExceedPerNodeTimeout() {
        QuorumLock lock = lock(client(), uniqueName("ttl"));
        assertThrows(IllegalArgumentException.class, () -> lock.tryAcquire(Duration.ZERO, Duration.ofMillis(200)));
        assertThrows(IllegalArgumentException.class, () -> lock.tryLock(0, 10, TimeUnit.MILLISECONDS));
    }

    @Test
    void asyncAcquireAndRelease() throws Exception {
        RedlockClient c = client();
        String name = uniqueName("async");
        QuorumLock lock = lock(c, name);
        Lease lease = lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(10))
                .get(5, TimeUnit.SECONDS)
                .orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(lease.key(), lease.token()) == 5);

        AcquireResult busy = lock(client(), name)
                .attemptAsync(Duration.ofMillis(50), Duration.ofSeconds(10))
                .get(5, TimeUnit.SECONDS);
        assertEquals(FailureReason.BUSY, busy.reason());
        assertTrue(busy.rounds() >= 1);

        // A waiter blocked asynchronously gets the lock once it is released.
        CompletableFuture<Optional<Lease>> waiter =
                lock(client(), name).tryAcquireAsync(Duration.ofSeconds(10), Duration.ofSeconds(10));
        ReleaseResult released = lease.releaseAsync().get(5, TimeUnit.SECONDS);
        assertTrue(released.released() >= 3, released::toString);
        Lease next = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
        assertTrue(next.isValid());
        next.releaseAsync().get(5, TimeUnit.SECONDS);
        assertSame(
                next.releaseAsync().get(5, TimeUnit.SECONDS),
                next.releaseAsync().get(5, TimeUnit.SECONDS));
    }

    @Test
    void unlockAfterTheLeaseWasLostThrowsIllegalMonitorStateAndStillReleases() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = lock(c, uniqueName("unlock-lost"));
        assertTrue(lock.tryLock(0, 1_000, TimeUnit.MILLISECONDS));
        String key = lock.key();
        Lease lease = lock.currentLease().orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
        assertFalse(lock.isHeldByCurrentThread());
        // Another owner takes the key on one node; it must survive our release.
        node(4).set(key, "someone-else");
        IllegalMonitorStateException e = assertThrows(IllegalMonitorStateException.class, lock::unlock);
        assertInstanceOf(LockLostException.class, e.getCause(), e::toString);
        assertEquals(0, lock.getHoldCount());
        assertEquals("someone-else", node(4).get(key));
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "the hold is gone after that unlock");
    }

    @Test
    void scriptCacheFlushFallsBackToEval() throws Exception {
        QuorumLock lock = lock(client(), uniqueName("noscript"));
        lock.tryAcquire().orElseThrow().release(); // the release script is now cached on every node
        Lease lease = lock.tryAcquire().orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(lease.key(), lease.token()) == 5);
        for (int i = 0; i < 5; i++) {
            node(i).scriptFlush();
        }
        ReleaseResult result = lease.release().completion().get(5, TimeUnit.SECONDS);
        assertEquals(5, result.released(), result::toString);
        assertEquals(0, nodesWithKey(lease.key()));
    }
}
