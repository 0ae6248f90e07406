/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofDays;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.NotEnoughNodesException;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The provider against five real Redis masters. Each test plays two or three application instances, each with its own
 * {@link RedlockClient}, as separate processes would be.
 */
class RedlockLockProviderTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(Nodes.SIZE);

    /**
     * Long enough that a loaded machine's stalls do not fail rounds (a round that times out on every node is "not
     * enough nodes", which {@code lock} reports with an exception); the shortest lease is then 508 ms.
     */
    private static final Duration PER_NODE_TIMEOUT = ofMillis(500);

    private final List<RedlockClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(RedlockClient::close);
        clients.clear();
    }

    private RedlockClient client(Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder builder = Nodes.config(REDIS, PER_NODE_TIMEOUT);
        tweak.accept(builder);
        RedlockClient client = RedlockClient.create(builder.build());
        clients.add(client);
        return client;
    }

    /** An application instance: a client of its own and a provider over it. */
    private RedlockLockProvider instance() {
        return new RedlockLockProvider(client(b -> {}));
    }

    private static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    /**
     * Polls {@code provider} (one round per poll) until it grants the lock, and returns it. A poll that a stalled
     * machine fails with {@link LockException} is retried: the grant is what is awaited.
     */
    private static SimpleLock awaitLock(RedlockLockProvider provider, LockConfiguration config, Duration atMost) {
        AtomicReference<SimpleLock> won = new AtomicReference<>();
        await().atMost(atMost)
                .pollInterval(ofMillis(10))
                .ignoreException(LockException.class)
                .until(() -> {
                    provider.lock(config).ifPresent(won::set);
                    return won.get() != null;
                });
        return won.get();
    }

    @Test
    void aHeldLockKeepsEveryOtherInstanceOutUntilItIsUnlocked() {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();

        SimpleLock held = a.lock(config("report", ofSeconds(30), ZERO)).orElseThrow();
        String key = keyOf(a, "report");
        // The round is decided by the first three grants; the other two may still be in flight.
        await().atMost(ofSeconds(2)).until(() -> Nodes.nodesWithKey(REDIS, key) == Nodes.SIZE);
        assertEquals(1, Nodes.holders(REDIS, key).size(), "one token on all five nodes");

        assertTrue(b.lock(config("report", ofSeconds(30), ZERO)).isEmpty(), "another instance");
        assertTrue(a.lock(config("report", ofSeconds(30), ZERO)).isEmpty(), "the same instance: not reentrant");
        assertTrue(
                b.lock(config("other-report", ofSeconds(30), ZERO))
                        .map(l -> {
                            l.unlock();
                            return true;
                        })
                        .orElse(false),
                "another name is another lock");

        held.unlock();
        assertTrue(Nodes.quorumHolder(REDIS, key).isEmpty());
        SimpleLock next = b.lock(config("report", ofSeconds(30), ZERO))
                .orElseThrow(() -> new AssertionError("unlock released at once"));
        next.unlock();
    }

    @Test
    void unlockCutsTheTtlToWhatIsLeftOfLockAtLeastForInsteadOfReleasing() {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();
        // lockAtLeastFor counts from the configuration's creation: 5 s leaves room for a slow lock and unlock (with too
        // little left of it, the provider keeps the lease as it is rather than cut it to a sliver).
        LockConfiguration config = config("cleanup", ofSeconds(30), ofSeconds(5));

        a.lock(config).orElseThrow().unlock();

        String key = keyOf(a, "cleanup");
        // The round is decided by the first three nodes; the other two may still be in flight.
        await().atMost(ofSeconds(2)).untilAsserted(() -> {
            List<Long> ttls = Nodes.ttlsMillis(REDIS, key);
            assertEquals(Nodes.SIZE, ttls.size(), "kept on every node: " + ttls);
            assertTrue(ttls.stream().allMatch(ttl -> ttl <= 5_000), "TTL cut to lockAtLeastFor: " + ttls);
        });
        assertTrue(b.lock(config("cleanup", ofSeconds(30), ZERO)).isEmpty(), "still held after unlock");

        SimpleLock next = awaitLock(b, config("cleanup", ofSeconds(30), ZERO), ofSeconds(10));
        assertFalse(ClockProvider.now().isBefore(config.getLockAtLeastUntil()), "not before lockAtLeastUntil");
        next.unlock();
    }

    @Test
    void aLockAtLeastForRemainderBelowTheShortestLeaseIsReleasedWhenItEnds() {
        // A 1 s per-node timeout makes the shortest lease 1013 ms, so 900 ms left cannot be set as a TTL.
        RedlockLockProvider a = new RedlockLockProvider(client(b -> b.perNodeTimeout(ofSeconds(1))));
        assertEquals(ofMillis(1013), a.minimumLockAtMostFor());
        RedlockLockProvider b = instance();
        LockConfiguration config = config("digest", ofSeconds(30), ofMillis(900));

        a.lock(config).orElseThrow().unlock();

        String key = keyOf(a, "digest");
        List<Long> ttls = Nodes.ttlsMillis(REDIS, key);
        assertTrue(
                ttls.size() >= Nodes.QUORUM && ttls.stream().allMatch(ttl -> ttl > 20_000),
                "keys left as they were until lockAtLeastUntil: " + ttls);
        assertTrue(b.lock(config("digest", ofSeconds(30), ZERO)).isEmpty(), "still held after unlock");

        SimpleLock next = awaitLock(b, config("digest", ofSeconds(30), ZERO), ofSeconds(5));
        assertFalse(ClockProvider.now().isBefore(config.getLockAtLeastUntil()), "not before lockAtLeastUntil");
        next.unlock();
    }

    @Test
    void aLockThatIsNeverUnlockedExpiresAfterLockAtMostForAndItsLateUnlockLeavesTheNextHolderAlone() {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();
        LockConfiguration config = config("import", ofMillis(600), ZERO);
        SimpleLock stale = a.lock(config).orElseThrow();
        assertTrue(b.lock(config("import", ofSeconds(30), ZERO)).isEmpty());

        SimpleLock next = awaitLock(b, config("import", ofSeconds(30), ZERO), ofSeconds(5));
        assertFalse(ClockProvider.now().isBefore(config.getLockAtMostUntil()), "not before lockAtMostUntil");

        String key = keyOf(b, "import");
        String holder = Nodes.quorumHolder(REDIS, key).orElseThrow();
        int holding = Nodes.holders(REDIS, key).get(holder);
        stale.unlock(); // logs a WARN: the task outlived lockAtMostFor
        assertEquals(holding, Nodes.holders(REDIS, key).get(holder), "the late unlock deleted none of its keys");
        next.unlock();
    }

    @Test
    void extendKeepsTheLockPastItsFirstLockAtMostForAndRetiresTheOldLock() {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();
        LockConfiguration config = config("sync", ofMillis(600), ZERO);
        SimpleLock first = a.lock(config).orElseThrow();

        SimpleLock extended = first.extend(ofSeconds(10), ZERO).orElseThrow();
        assertThrows(IllegalStateException.class, first::unlock);
        assertThrows(IllegalStateException.class, () -> first.extend(ofSeconds(10), ZERO));

        await().during(ofSeconds(1))
                .atMost(ofSeconds(3))
                .pollInterval(ofMillis(50))
                .until(() -> b.lock(config("sync", ofSeconds(30), ZERO)).isEmpty());
        assertTrue(ClockProvider.now().isAfter(config.getLockAtMostUntil()), "held past the first lockAtMostFor");
        List<Long> ttls = Nodes.ttlsMillis(REDIS, keyOf(a, "sync"));
        assertTrue(ttls.stream().allMatch(ttl -> ttl > 5_000), "TTL of the extension: " + ttls);

        extended.unlock();
        b.lock(config("sync", ofSeconds(30), ZERO)).orElseThrow().unlock();
    }

    @Test
    void extendFailsOnceTheLeaseExpiredAndNeverTouchesTheNextHolder() {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();
        SimpleLock stale = a.lock(config("billing", ofMillis(600), ZERO)).orElseThrow();
        SimpleLock next = awaitLock(b, config("billing", ofSeconds(2), ZERO), ofSeconds(5));
        String key = keyOf(b, "billing");
        String holder = Nodes.quorumHolder(REDIS, key).orElseThrow();
        int holding = Nodes.holders(REDIS, key).get(holder);

        assertTrue(stale.extend(ofSeconds(10), ZERO).isEmpty());
        assertThrows(IllegalStateException.class, stale::unlock);

        assertEquals(holding, Nodes.holders(REDIS, key).get(holder), "none of its keys deleted");
        List<Long> ttls = Nodes.ttlsMillis(REDIS, key);
        assertTrue(ttls.stream().allMatch(ttl -> ttl <= 2_000), "the next holder's TTL was not prolonged: " + ttls);
        next.unlock();
    }

    /**
     * The case a single Redis cannot survive: a provider over one Redis loses its lock with that node (or, after a
     * failover to a replica the key had not reached, lets a second instance run the job). Here the job holds the lock
     * on five masters, two of them are killed mid-run, and the lock stays held by the three survivors: other
     * instances keep skipping the job. The job then hangs past its lockAtMostFor; once the lease has expired, the
     * job is scheduled again on the three survivors (a quorum of the five configured nodes), and the hung job's late
     * unlock does not disturb the new run's lock.
     */
    @Test
    void theLockOutlivesTwoOfFiveMastersAndTheSurvivorsScheduleTheJobAgainAfterTheLease() throws Exception {
        RedlockLockProvider a = instance();
        RedlockLockProvider b = instance();
        LockingTaskExecutor executorA = new DefaultLockingTaskExecutor(a);
        LockingTaskExecutor executorB = new DefaultLockingTaskExecutor(b);
        String key = keyOf(a, "nightly");
        Duration lockAtMostFor = ofSeconds(2);

        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch hang = new CountDownLatch(1);
        LockConfiguration first = config("nightly", lockAtMostFor, ZERO);
        ExecutorService jobThread = Executors.newSingleThreadExecutor();
        try {
            Runnable job = () -> {
                running.countDown();
                awaitUninterruptibly(hang);
            };
            CompletableFuture<Void> hungJob =
                    CompletableFuture.runAsync(() -> executorA.executeWithLock(job, first), jobThread);
            assertTrue(running.await(10, TimeUnit.SECONDS));
            String holder = Nodes.quorumHolder(REDIS, key).orElseThrow();

            await().atMost(ofSeconds(2)).until(() -> Nodes.nodesWithKey(REDIS, key) == Nodes.SIZE);

            REDIS.node(0).kill();
            REDIS.node(1).kill();
            assertEquals(Map.of(holder, 3), Nodes.holders(REDIS, key), "the three survivors hold the job's lock");

            AtomicInteger runsOfB = new AtomicInteger();
            AtomicReference<Instant> ranAt = new AtomicReference<>();
            Runnable jobOfB = () -> {
                ranAt.compareAndSet(null, ClockProvider.now());
                runsOfB.incrementAndGet();
            };
            executorB.executeWithLock(jobOfB, config("nightly", lockAtMostFor, ZERO));
            RedlockLockProvider c = instance(); // an instance started after the failure
            assertTrue(c.lock(config("nightly", lockAtMostFor, ZERO)).isEmpty());
            assertEquals(0, runsOfB.get(), "skipped while the job holds the lock on the survivors");

            await().atMost(ofSeconds(10))
                    .pollInterval(ofMillis(50))
                    .ignoreException(LockException.class)
                    .until(() -> {
                        executorB.executeWithLock(jobOfB, config("nightly", lockAtMostFor, ZERO));
                        return runsOfB.get() == 1;
                    });
            assertFalse(
                    ranAt.get().isBefore(first.getLockAtMostUntil()),
                    "ran again only after the job's lease, at " + ranAt.get() + ", lease until "
                            + first.getLockAtMostUntil());

            SimpleLock heldByC = c.lock(config("nightly", ofSeconds(30), ZERO))
                    .orElseThrow(() -> new AssertionError("the survivors grant the lock again"));
            String newHolder = Nodes.quorumHolder(REDIS, key).orElseThrow();
            hang.countDown();
            hungJob.get(10, TimeUnit.SECONDS); // its unlock comes after its lease: a WARN, and nothing deleted
            assertEquals(Map.of(newHolder, 3), Nodes.holders(REDIS, key));
            heldByC.unlock();
        } finally {
            hang.countDown();
            jobThread.shutdownNow();
        }
    }

    @Test
    void tooFewNodesIsALockExceptionAndTheTaskDoesNotRun() {
        RedlockLockProvider a = instance();
        REDIS.node(0).kill();
        REDIS.node(1).kill();
        REDIS.node(2).kill();

        LockException e = assertThrows(LockException.class, () -> a.lock(config("ledger", ofSeconds(30), ZERO)));
        NotEnoughNodesException cause = assertInstanceOf(NotEnoughNodesException.class, e.getCause());
        assertEquals(3, cause.lastRound().unavailable());

        AtomicInteger runs = new AtomicInteger();
        assertThrows(
                LockException.class,
                () -> new DefaultLockingTaskExecutor(a)
                        .executeWithLock((Runnable) runs::incrementAndGet, config("ledger", ofSeconds(30), ZERO)));
        assertEquals(0, runs.get());
    }

    @Test
    void extendWithTooFewNodesThrowsAndLeavesTheOldLockUsable() {
        RedlockLockProvider a = instance();
        SimpleLock held = a.lock(config("ledger", ofSeconds(30), ZERO)).orElseThrow();
        REDIS.node(0).kill();
        REDIS.node(1).kill();
        REDIS.node(2).kill();

        LockException e = assertThrows(LockException.class, () -> held.extend(ofSeconds(60), ZERO));
        assertInstanceOf(NotEnoughNodesException.class, e.getCause());

        held.unlock(); // usable: no IllegalStateException; logs that the release was not confirmed by a quorum
        assertThrows(IllegalStateException.class, held::unlock);
    }

    @Test
    void lockAtMostForMustBeALeaseTheClientCanGrant() {
        RedlockClient defaults = client(b -> b.perNodeTimeout(RedlockConfig.DEFAULT_PER_NODE_TIMEOUT));
        RedlockLockProvider provider = new RedlockLockProvider(defaults);
        Duration minimum = provider.minimumLockAtMostFor();
        assertEquals(ofMillis(53), minimum, "50 ms per-node timeout, 1% + 2 ms drift");
        assertThrows(
                IllegalArgumentException.class,
                () -> defaults.redLock("probe").attempt(ZERO, minimum.minusMillis(1)),
                "the library's own limit");

        IllegalArgumentException tooShort = assertThrows(
                IllegalArgumentException.class, () -> provider.lock(config("probe", minimum.minusMillis(1), ZERO)));
        assertTrue(tooShort.getMessage().contains("53 ms"), tooShort.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> provider.lock(config("probe", ofDays(7).plusMillis(1), ZERO)));

        SimpleLock shortest = provider.lock(config("probe", minimum, ZERO)).orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> shortest.extend(ofMillis(10), ZERO));
        shortest.unlock(); // still usable after the refused extension
        assertTrue(Nodes.quorumHolder(REDIS, keyOf(provider, "probe")).isEmpty());
    }

    @Test
    void shedLockNamesArePrefixedRedlockNames() throws Exception {
        RedlockClient client = client(b -> {});
        RedlockLockProvider prefixed = new RedlockLockProvider(client);
        RedlockLockProvider bare = new RedlockLockProvider(client, "");
        assertEquals("shedlock:orders", prefixed.lockNameOf("orders"));
        assertEquals("orders", bare.lockNameOf("orders"));

        SimpleLock held = prefixed.lock(config("orders", ofSeconds(30), ZERO)).orElseThrow();
        assertTrue(client.isLocked("shedlock:orders"));
        assertFalse(client.redLock("shedlock:orders").tryLock(), "the library sees the same lock");
        SimpleLock other = bare.lock(config("orders", ofSeconds(30), ZERO))
                .orElseThrow(() -> new AssertionError("another prefix is another lock"));
        assertTrue(client.isLocked("orders"));
        other.unlock();
        held.unlock();
        assertFalse(client.isLocked("shedlock:orders"));
    }

    @Test
    void theProviderNeverClosesItsClient() {
        RedlockClient client = client(b -> {});
        RedlockLockProvider provider = new RedlockLockProvider(client);
        provider.lock(config("audit", ofSeconds(30), ZERO)).orElseThrow().unlock();
        provider.lock(config("audit", ofSeconds(30), ofMillis(20)))
                .orElseThrow()
                .unlock();
        assertFalse(client.isClosed());

        client.close();
        assertThrows(IllegalStateException.class, () -> provider.lock(config("audit", ofSeconds(30), ZERO)));
    }

    @Test
    void anUnlockedOrExtendedLockActsOnceEvenWhenThreadsRace() throws Exception {
        RedlockLockProvider a = instance();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            race(a, threads);
        } finally {
            threads.shutdownNow();
        }
    }

    private void race(RedlockLockProvider a, ExecutorService threads) throws Exception {
        for (int i = 0; i < 20; i++) {
            SimpleLock held = a.lock(config("race", ofSeconds(30), ZERO)).orElseThrow();
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger acted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            Runnable unlock = () -> act(start, held::unlock, acted, refused);
            Runnable extend = () ->
                    act(start, () -> held.extend(ofSeconds(30), ZERO).ifPresent(SimpleLock::unlock), acted, refused);
            CompletableFuture<Void> one = CompletableFuture.runAsync(unlock, threads);
            CompletableFuture<Void> two = CompletableFuture.runAsync(extend, threads);
            start.countDown();
            CompletableFuture.allOf(one, two).get(10, TimeUnit.SECONDS);
            assertEquals(1, acted.get(), "round " + i);
            assertEquals(1, refused.get(), "round " + i);
            assertTrue(Nodes.quorumHolder(REDIS, keyOf(a, "race")).isEmpty(), "round " + i);
        }
    }

    private static void act(CountDownLatch start, Runnable action, AtomicInteger acted, AtomicInteger refused) {
        awaitUninterruptibly(start);
        try {
            action.run();
            acted.incrementAndGet();
        } catch (IllegalStateException e) {
            refused.incrementAndGet();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The key of ShedLock lock {@code name}; every client of this class has the default key prefix. */
    private String keyOf(RedlockLockProvider provider, String name) {
        return clients.get(0).keyOf(provider.lockNameOf(name));
    }
}
