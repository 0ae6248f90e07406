/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.redlock.LockLostException;
import dev.redlock.NotEnoughNodesException;
import dev.redlock.RedlockClient;
import dev.redlock.spring.TestNodes;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * {@link RedlockLockRegistry} over five real Redis masters, with two clients standing for two processes: mutual
 * exclusion, reentrancy, ownership, renewal by the owner's reentrant acquisitions, and what a lost lease does to
 * {@code tryLock} and {@code unlock}.
 */
class RedlockLockRegistryTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private static final AtomicInteger NAMES = new AtomicInteger();

    private final List<RedlockClient> clients = new ArrayList<>();
    private ExecutorService threads;
    /** One thread standing for another thread of the process: locks are bound to it across calls. */
    private ExecutorService otherThread;

    private RedlockClient clientA;
    private RedlockClient clientB;

    @BeforeEach
    void clients() {
        clientA = client();
        clientB = client();
        threads = Executors.newCachedThreadPool();
        otherThread = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        otherThread.shutdownNow();
        clients.forEach(RedlockClient::close);
    }

    private RedlockClient client() {
        RedlockClient c = TestNodes.client(REDIS.uris());
        clients.add(c);
        return c;
    }

    private static String name(String base) {
        return base + "-" + NAMES.incrementAndGet();
    }

    private <T> T onOtherThread(Callable<T> call) throws Exception {
        return otherThread.submit(call).get(20, TimeUnit.SECONDS);
    }

    /** The key's remaining TTL on every node, in ms (-2 where it is absent). */
    private static List<Long> pttls(RedlockClient client, String name) {
        List<Long> ttls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (var jedis = REDIS.node(i).client()) {
                ttls.add(jedis.pttl(client.keyOf(name)));
            }
        }
        return ttls;
    }

    /** The key's value on every node ({@code null} where it is absent). */
    private static List<String> values(RedlockClient client, String name) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (var jedis = REDIS.node(i).client()) {
                values.add(jedis.get(client.keyOf(name)));
            }
        }
        return values;
    }

    @Test
    void twoRegistriesOnTwoClientsExcludeEachOther() throws Exception {
        RedlockLockRegistry a = new RedlockLockRegistry(clientA);
        RedlockLockRegistry b = new RedlockLockRegistry(clientB);
        String name = name("exclusion");
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] counter = {0};
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            RedlockLockRegistry registry = w % 2 == 0 ? a : b;
            workers.add(threads.submit(() -> {
                Lock lock = registry.obtain(name);
                for (int i = 0; i < 25; i++) {
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(overlaps).hasValue(0);
        assertThat(counter[0]).isEqualTo(100);
        assertThat(clientA.isLocked(name)).isFalse();
    }

    @Test
    void reentrantUntilTheLastUnlock() throws Exception {
        String name = name("reentrant");
        Lock lock = new RedlockLockRegistry(clientA).obtain(name);
        RedlockLockRegistry other = new RedlockLockRegistry(clientB);
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.lock();
        lock.lockInterruptibly();
        assertThat(lock.tryLock()).isTrue();
        for (int i = 0; i < 3; i++) {
            lock.unlock();
            assertThat(other.obtain(name).tryLock())
                    .as("held after %s of 4 unlocks", i + 1)
                    .isFalse();
        }
        lock.unlock();
        Lock otherLock = other.obtain(name);
        assertThat(otherLock.tryLock(2, TimeUnit.SECONDS)).isTrue();
        otherLock.unlock();
    }

    @Test
    void onlyTheOwnerMayUnlock() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(clientA);
        Lock lock = registry.obtain(name("owner"));
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        Throwable fromOther = onOtherThread(() -> {
            try {
                lock.unlock();
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(fromOther).isInstanceOf(IllegalMonitorStateException.class);
        // Another thread of the same process waits on the local lock, and gets nothing while it is held.
        assertThat(onOtherThread(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)))
                .isFalse();
        lock.unlock();
        assertThat(onOtherThread(() -> {
                    boolean got = lock.tryLock(2, TimeUnit.SECONDS);
                    lock.unlock();
                    return got;
                }))
                .isTrue();
    }

    /**
     * Every node's TTL of the 3 s lease shows a renewal made since {@code t0}: above 3 s minus the time since (and a
     * little for the clocks). Read once, however slow the machine: the TTLs were below 2.6 s before {@code t0}, so
     * without a renewal each would be below that minus the time since, which fails the check.
     */
    private void assertRenewedSince(String name, long t0) {
        List<Long> ttls = pttls(clientA, name);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertThat(ttls)
                .allMatch(t -> t > 3_000 - elapsedMs - 50, "renewed to 3 s within the last " + elapsedMs + " ms");
    }

    @Test
    void theOwnersReentrantTryLockRenewsTheLeaseOnTheNodes() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(clientA, Duration.ofSeconds(3));
        String name = name("renew");
        Lock lock = registry.obtain(name);
        lock.lock();
        await().atMost(Duration.ofSeconds(3))
                .until(() -> pttls(clientA, name), ttls -> ttls.stream().allMatch(t -> t > 0 && t < 2_600));
        long t0 = System.nanoTime();
        assertThat(lock.tryLock()).isTrue();
        assertRenewedSince(name, t0);
        lock.unlock();
        await().atMost(Duration.ofSeconds(3))
                .until(() -> pttls(clientA, name), ttls -> ttls.stream().allMatch(t -> t > 0 && t < 2_600));
        t0 = System.nanoTime();
        registry.renewLock(name);
        assertRenewedSince(name, t0);
        lock.unlock();
        await().atMost(Duration.ofSeconds(1))
                .until(() -> pttls(clientA, name), ttls -> ttls.stream().allMatch(t -> t == -2));
        assertThatThrownBy(() -> registry.renewLock(name)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aForceUnlockedLeaseIsReportedByTheNextTryLockAndByUnlock() throws Exception {
        RedlockLockRegistry a = new RedlockLockRegistry(clientA);
        String name = name("forced");
        Lock lock = a.obtain(name);
        lock.lock();
        clientB.forceUnlock(name);
        Lock taken = new RedlockLockRegistry(clientB).obtain(name);
        assertThat(onOtherThread(() -> taken.tryLock(2, TimeUnit.SECONDS))).isTrue();
        // What the new holder wrote, read straight from every node: with a 200 ms per-node timeout on a loaded
        // machine, its grant may have missed a node, which is still a majority.
        List<String> newHolders = values(clientB, name);
        assertThat(newHolders.stream().filter(v -> v != null).count()).isGreaterThanOrEqualTo(3);

        assertThat(lock.tryLock())
                .as("the owner's reentrant tryLock asks the quorum")
                .isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasCauseInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        // The new holder's keys are untouched: every node that held its value still does.
        List<String> after = values(clientB, name);
        for (int i = 0; i < 5; i++) {
            if (newHolders.get(i) != null) {
                assertThat(after.get(i)).as("node %d", i).isEqualTo(newHolders.get(i));
            }
        }
        assertThat(lock.tryLock()).isFalse();
    }

    @Test
    void unlockAfterTheLeaseExpiredReleasesTheHoldAndThrows() throws Exception {
        RedlockLockRegistry shortLeases = new RedlockLockRegistry(clientA, Duration.ofMillis(400));
        String name = name("expired");
        Lock lock = shortLeases.obtain(name);
        lock.lock();
        Lock other = new RedlockLockRegistry(clientB).obtain(name);
        await().atMost(Duration.ofSeconds(5)).until(() -> onOtherThread(() -> other.tryLock(1, TimeUnit.SECONDS)));
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("released in the store due to expiration")
                .hasCauseInstanceOf(LockLostException.class);
        assertThat(clientB.isLocked(name)).as("the other owner's keys stay").isTrue();
        // The hold is gone: this thread may lock again once the other owner is done.
        otherThread.submit(other::unlock).get(5, TimeUnit.SECONDS);
        assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
    }

    @Test
    void aClosedClientEndsTheHoldAndFailsAcquisitions() throws Exception {
        RedlockClient doomed = client();
        Lock lock = new RedlockLockRegistry(doomed).obtain(name("closed"));
        lock.lock();
        doomed.close();
        assertThat(lock.tryLock()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(lock::tryLock).isInstanceOf(CannotAcquireLockException.class);
    }

    @Test
    void tooFewNodesFailsTheAcquisition() throws Exception {
        Lock lock = new RedlockLockRegistry(clientA).obtain(name("majority-down"));
        for (int i = 0; i < 3; i++) {
            REDIS.node(i).kill();
        }
        assertThatThrownBy(() -> lock.tryLock(300, TimeUnit.MILLISECONDS))
                .isInstanceOf(CannotAcquireLockException.class)
                .hasCauseInstanceOf(NotEnoughNodesException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aLeaseThatCannotBeRenewedIsGivenUpBeforeItExpires() throws Exception {
        Duration leaseTime = Duration.ofMillis(1_500);
        Lock lock = new RedlockLockRegistry(clientA, leaseTime).obtain(name("unrenewable"));
        lock.lock();
        long acquired = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            REDIS.node(i).kill();
        }
        // The owner keeps acquiring, as a leader's heartbeat does: renewals fail, and while more than a third of
        // the lease is left the owner keeps the lock.
        await().atMost(Duration.ofSeconds(3))
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    boolean held = lock.tryLock();
                    if (held) {
                        lock.unlock();
                    }
                    return !held;
                });
        Duration heldFor = Duration.ofNanos(System.nanoTime() - acquired);
        assertThat(heldFor).isGreaterThan(leaseTime.dividedBy(2)).isLessThan(leaseTime);
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .cause()
                .hasMessageContaining("given up");
    }

    @Test
    void aRenewalSchedulerKeepsTheLeaseBeyondItsTtl() throws Exception {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        try {
            RedlockLockRegistry registry = new RedlockLockRegistry(clientA, Duration.ofMillis(600));
            registry.setRenewalTaskScheduler(scheduler);
            String name = name("scheduled");
            Lock lock = registry.obtain(name);
            lock.lock();
            Lock other = new RedlockLockRegistry(clientB).obtain(name);
            await().during(Duration.ofMillis(1_500))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> !onOtherThread(other::tryLock));
            lock.unlock(); // no exception: the lease was valid to the end
            assertThat(clientA.isLocked(name)).isFalse();
        } finally {
            scheduler.shutdown();
        }
    }

    @Test
    void obtainCachesOneLockPerKeyUntilItExpiresUnused() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(clientA);
        Lock first = registry.obtain("cached");
        assertThat(registry.obtain("cached")).isSameAs(first);
        assertThat(registry.obtain("other")).isNotSameAs(first);
        first.lock();
        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain("cached")).as("held locks stay").isSameAs(first);
        first.unlock();
        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain("cached")).isNotSameAs(first);
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(first::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new RedlockLockRegistry(clientA, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void executeLockedRunsUnderTheLock() throws Exception {
        RedlockLockRegistry registry = new RedlockLockRegistry(clientA);
        String name = name("execute");
        String result = registry.executeLocked(name, Duration.ofSeconds(2), () -> {
            assertThat(clientB.isLocked(name)).isTrue();
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(clientB.isLocked(name)).isFalse();
    }
}
