/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The read-write lock on five real Redis masters: readers share, a writer excludes everyone, a crashed reader expires
 * alone, reentrancy as {@link java.util.concurrent.locks.ReentrantReadWriteLock} has it, and the writer preference.
 * (The write lock also passes the whole lock contract: {@link WriteLockContractTest}.)
 */
class ReadWriteLockTest extends RedisBackedTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    /** How many running nodes have {@code token} as an unexpired reader of the lock whose key is {@code key}. */
    private static int nodesWithReader(String key, String token) {
        int n = 0;
        for (int i = 0; i < 5; i++) {
            try (Jedis j = node(i).client()) {
                if (j.zscore(key + ":r", token) != null) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void readersShareAcrossClientsAndEachHoldsItsOwnEntry() throws Exception {
        String name = uniqueName("rw-share");
        List<Lease> readers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            readers.add(client().readWriteLock(name)
                    .readLock()
                    .tryAcquire(Duration.ZERO, LEASE)
                    .orElseThrow());
        }
        for (Lease r : readers) {
            assertTrue(r.isValid());
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithReader(r.key(), r.token()) == 5);
        }
        for (Lease r : readers) {
            assertTrue(r.release().completion().get(5, TimeUnit.SECONDS).released() >= 3);
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> nodesWithKey(readers.get(0).key() + ":r") == 0);
    }

    @Test
    void aWriterWaitsForEveryReaderAndReadersWaitForTheWriter() throws Exception {
        String name = uniqueName("rw-excl");
        QuorumReadWriteLock a = client().readWriteLock(name);
        QuorumReadWriteLock b = client().readWriteLock(name);
        Lease r1 = a.readLock().tryAcquire(Duration.ZERO, LEASE).orElseThrow();
        Lease r2 = b.readLock().tryAcquire(Duration.ZERO, LEASE).orElseThrow();

        AcquireResult refused = b.writeLock().attempt(Duration.ZERO, LEASE);
        assertEquals(FailureReason.BUSY, refused.reason(), refused::toString);
        assertTrue(refused.holderTtl().isPresent(), () -> "the readers' expiry comes with the refusal: " + refused);
        r1.release();
        assertFalse(b.writeLock().attempt(Duration.ZERO, LEASE).acquired(), "one reader is still in");
        r2.release();
        Lease w = b.writeLock().tryAcquire(Duration.ofSeconds(5), LEASE).orElseThrow();
        // The round decided at 3 grants; the other two nodes answer a moment later.
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(w.key(), w.token()) == 5);

        AcquireResult reader = a.readLock().attempt(Duration.ZERO, LEASE);
        assertEquals(FailureReason.BUSY, reader.reason(), reader::toString);
        assertFalse(a.writeLock().attempt(Duration.ZERO, LEASE).acquired(), "writers exclude each other");
        w.release();
        assertTrue(a.readLock().tryAcquire(Duration.ofSeconds(5), LEASE).isPresent());
    }

    @Test
    void aWaitingWriterIsWokenWhenTheLastReaderLeaves() throws Exception {
        String name = uniqueName("rw-wake");
        Lease reader = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();
        // Polls every 30 s: getting the lock within seconds of the release means the reader's release woke it.
        RedlockClient waiting = client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0));
        CompletableFuture<Optional<Lease>> writer =
                waiting.readWriteLock(name).writeLock().tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !writer.isDone());
        reader.release();
        assertTrue(writer.get(5, TimeUnit.SECONDS).isPresent());
    }

    @Test
    void everyWaitingReaderIsWokenWhenTheWriterLeaves() throws Exception {
        String name = uniqueName("rw-wake-all");
        Lease writer = client().readWriteLock(name)
                .writeLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();
        // Poll every 30 s: each reader getting in within seconds was woken, the first by the release, the next ones
        // by the reader before them (a release wakes one waiter of a client).
        QuorumLock read = client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0))
                .readWriteLock(name)
                .readLock();
        List<CompletableFuture<Optional<Lease>>> readers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            readers.add(read.tryAcquireAsync(Duration.ofSeconds(60), LEASE));
        }
        await().pollDelay(Duration.ofMillis(300))
                .atMost(Duration.ofSeconds(2))
                .until(() -> readers.stream().noneMatch(CompletableFuture::isDone));
        writer.release();
        for (CompletableFuture<Optional<Lease>> r : readers) {
            assertTrue(r.get(5, TimeUnit.SECONDS).isPresent());
        }
    }

    @Test
    void aCrashedReaderExpiresAloneWhileTheOthersStay() throws Exception {
        String name = uniqueName("rw-crash");
        RedlockClient crashing = RedlockClient.create(config().build());
        Lease crashed = crashing.readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        crashing.close(); // gone without releasing: its entry stays until its TTL
        Lease staying = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> nodesWithReader(crashed.key(), crashed.token()) == 0 || !crashed.isValid());

        QuorumLock writer = client().readWriteLock(name).writeLock();
        await().atMost(Duration.ofSeconds(5)).until(() -> !crashed.isValid());
        assertFalse(writer.attempt(Duration.ZERO, LEASE).acquired(), "the other reader is still in");
        assertTrue(staying.isValid());
        assertTrue(staying.extend(LEASE).succeeded(), "a reader extends its own entry");
        staying.release();
        assertTrue(writer.tryAcquire(Duration.ofSeconds(5), LEASE).isPresent(), "the crashed reader is gone");
    }

    @Test
    void aWriterMayTakeTheReadLockAndKeepItAfterUnlockingTheWriteLock() throws Exception {
        String name = uniqueName("rw-downgrade");
        QuorumReadWriteLock rw = client().readWriteLock(name);
        rw.writeLock().lock();
        try {
            assertTrue(rw.readLock().tryLock(1, TimeUnit.SECONDS), "the writer's own reader is let in");
            assertTrue(rw.readLock().isHeldByCurrentThread());
        } finally {
            rw.writeLock().unlock();
        }
        // Downgraded: other readers come in, writers stay out.
        QuorumReadWriteLock other = client().readWriteLock(name);
        Lease reader = other.readLock().tryAcquire(Duration.ofSeconds(5), LEASE).orElseThrow();
        assertFalse(other.writeLock().attempt(Duration.ZERO, LEASE).acquired());
        reader.release();
        rw.readLock().unlock();
        assertTrue(other.writeLock().tryAcquire(Duration.ofSeconds(5), LEASE).isPresent());
    }

    @Test
    void upgradingAReadLockThrowsInsteadOfWaitingForever() throws Exception {
        QuorumReadWriteLock rw = client().readWriteLock(uniqueName("rw-upgrade"));
        rw.readLock().lock();
        try {
            assertTrue(rw.readLock().tryLock(), "reentrant");
            assertEquals(2, rw.readLock().getHoldCount());
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> rw.writeLock().lock());
            assertTrue(e.getMessage().contains("cannot be upgraded"), e::getMessage);
            assertThrows(IllegalStateException.class, () -> rw.writeLock().tryLock(1, TimeUnit.SECONDS));
            rw.readLock().unlock();
        } finally {
            rw.readLock().unlock();
        }
        assertTrue(rw.writeLock().tryLock(5, TimeUnit.SECONDS), "free once the read lock is gone");
        rw.writeLock().unlock();
    }

    @Test
    void onlyTheWriteLockIsFenced() throws Exception {
        QuorumReadWriteLock rw = client().readWriteLock(uniqueName("rw-fence"));
        assertThrows(UnsupportedOperationException.class, () -> rw.readLock().fenced());
        Lease first = rw.writeLock().fenced().tryAcquire(Duration.ZERO, LEASE).orElseThrow();
        assertFalse(rw.readLock().attempt(Duration.ZERO, LEASE).acquired());
        first.release();
        rw.readLock().tryAcquire(Duration.ZERO, LEASE).orElseThrow().release();
        Lease second =
                rw.writeLock().fenced().tryAcquire(Duration.ofSeconds(5), LEASE).orElseThrow();
        assertTrue(second.fencingToken().orElseThrow() > first.fencingToken().orElseThrow());
    }

    @Test
    void aWaitingWriterKeepsNewReadersOutOnlyWhenWritersArePreferred() throws Exception {
        String name = uniqueName("rw-prefer");
        Lease reader = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();

        // No preference: a waiting writer does not stop new readers.
        CompletableFuture<Optional<Lease>> plainWriter =
                client().readWriteLock(name).writeLock().tryAcquireAsync(Duration.ofMillis(600), LEASE);
        await().pollDelay(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> !plainWriter.isDone());
        Lease second = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();
        assertTrue(plainWriter.get(5, TimeUnit.SECONDS).isEmpty());
        second.release();

        // Preferred: while it waits, new readers are refused; readers already in stay.
        QuorumReadWriteLock preferring = client().readWriteLock(name).preferWriters();
        assertTrue(preferring.prefersWriters());
        CompletableFuture<Optional<Lease>> writer =
                preferring.writeLock().tryAcquireAsync(Duration.ofSeconds(30), LEASE);
        QuorumLock newReader = client().readWriteLock(name).readLock();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !newReader.attempt(Duration.ZERO, LEASE).acquired());
        assertTrue(reader.isValid());
        assertFalse(writer.isDone());
        reader.release();
        Lease w = writer.get(5, TimeUnit.SECONDS).orElseThrow();
        w.release();
        assertTrue(newReader.tryAcquire(Duration.ofSeconds(5), LEASE).isPresent(), "the writer left its entry");
    }

    /**
     * A preferred writer woken by a release starts exactly one round. Seen failing about once in 40 hand-overs: the
     * wake-up cancelled the sleep while its timer was already starting the round, so two rounds ran at once; the one
     * that won was delivered under the other's token, the lease's release deleted nothing, and its keys kept everyone
     * out for the whole lease time ("4 of 5 nodes owned by another").
     */
    @Test
    void aWokenWriterRunsOneRoundAtATime() throws Exception {
        for (int i = 0; i < 60; i++) {
            String name = uniqueName("rw-handover");
            Lease reader = client().readWriteLock(name)
                    .readLock()
                    .tryAcquire(Duration.ZERO, LEASE)
                    .orElseThrow();
            CompletableFuture<Optional<Lease>> writer = client().readWriteLock(name)
                    .preferWriters()
                    .writeLock()
                    .tryAcquireAsync(Duration.ofSeconds(30), LEASE);
            QuorumLock newReader = client().readWriteLock(name).readLock();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> !newReader.attempt(Duration.ZERO, LEASE).acquired());
            reader.release();
            Lease w = writer.get(5, TimeUnit.SECONDS).orElseThrow();
            ReleaseResult released = w.release();
            assertEquals(0, released.completion().get(5, TimeUnit.SECONDS).ownedByAnother(), released::toString);
            Lease next = newReader.tryAcquire(Duration.ofSeconds(2), LEASE).orElseThrow();
            next.release();
        }
    }

    @Test
    void aPreferredWriterThatGivesUpLetsReadersInAtOnce() throws Exception {
        String name = uniqueName("rw-giveup");
        Lease reader = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, LEASE)
                .orElseThrow();
        QuorumLock writer = client().readWriteLock(name).preferWriters().writeLock();
        assertFalse(writer.tryAcquire(Duration.ofMillis(300), LEASE).isPresent());
        // Its entry would keep readers out for the queue window (at least 5 s); giving up removed it.
        QuorumLock newReader = client().readWriteLock(name).readLock();
        await().atMost(Duration.ofSeconds(2))
                .until(() -> newReader.attempt(Duration.ZERO, LEASE).acquired());
        assertTrue(reader.isValid());
    }

    /**
     * Sixteen clients, one writer each, take one write lock 10 times each, all starting at once. A round that splits
     * the votes gives back what it won without announcing it, and its writer comes back after a short random back-off
     * that doubles with each round. Seen failing before: each give-back was announced, woke a writer in every client,
     * whose rounds split the votes again (hundreds of rounds per critical section, some attempts failing a 2 s wait).
     */
    @Test
    void writersOfManyClientsDoNotStormOnASplitVote() throws Exception {
        String name = uniqueName("write-storm");
        java.util.concurrent.atomic.LongAdder rounds = new java.util.concurrent.atomic.LongAdder();
        List<Future<Integer>> done = new ArrayList<>();
        ExecutorService pool = threads();
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        for (int k = 0; k < 16; k++) {
            RedlockClient c = client(b -> b.listener(new RedlockListener() {
                @Override
                public void acquireRound(LockKind kind, RoundOutcome round) {
                    rounds.increment();
                }
            }));
            java.util.concurrent.locks.Lock writer = c.readWriteLock(name).writeLock();
            done.add(pool.submit(() -> {
                int got = 0;
                start.await();
                for (int i = 0; i < 10; i++) {
                    if (writer.tryLock(10, TimeUnit.SECONDS)) {
                        got++;
                        writer.unlock();
                    }
                }
                return got;
            }));
        }
        start.countDown();
        int acquired = 0;
        for (Future<Integer> f : done) {
            acquired += f.get(2, TimeUnit.MINUTES);
        }
        assertEquals(160, acquired, "every attempt got the write lock within its 10 s wait");
        double perCs = rounds.sum() / 160.0;
        System.out.printf("16 clients x 10 write locks: %.1f rounds per critical section%n", perCs);
        // About one round per client and release remains (a release still wakes a writer in every client): 20 to 31.
        assertTrue(perCs < 100, () -> perCs + " rounds per critical section: the writers stormed");
    }

    /** Deliberately not atomic and not volatile: only the lock makes this safe. */
    private static final class Shared {
        long value;
        int readers;
        boolean writing;
    }

    @Test
    void readersAndWritersNeverOverlapUnderContention() throws Exception {
        String name = uniqueName("rw-stress");
        List<RedlockClient> clients = List.of(client(), client(), client());
        Shared shared = new Shared();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger concurrentReads = new AtomicInteger();
        AtomicReference<String> broken = new AtomicReference<>();
        Object monitor = new Object(); // only guards the checks' bookkeeping, never the data under test
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                QuorumReadWriteLock rw = clients.get(t % clients.size()).readWriteLock(name);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        boolean write = ThreadLocalRandom.current().nextInt(4) == 0;
                        QuorumLock lock = write ? rw.writeLock() : rw.readLock();
                        assertTrue(lock.tryLock(30, TimeUnit.SECONDS), "acquire within 30 s");
                        try {
                            if (write) {
                                synchronized (monitor) {
                                    if (shared.writing || shared.readers > 0) {
                                        broken.set("a writer got in beside " + shared.readers + " readers");
                                    }
                                    shared.writing = true;
                                }
                                long v = shared.value;
                                Thread.yield();
                                shared.value = v + 1;
                                writes.incrementAndGet();
                                synchronized (monitor) {
                                    shared.writing = false;
                                }
                            } else {
                                synchronized (monitor) {
                                    if (shared.writing) {
                                        broken.set("a reader got in beside the writer");
                                    }
                                    shared.readers++;
                                    if (shared.readers > 1) {
                                        concurrentReads.incrementAndGet();
                                    }
                                }
                                Thread.yield();
                                reads.incrementAndGet();
                                synchronized (monitor) {
                                    shared.readers--;
                                }
                            }
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
        assertEquals(null, broken.get());
        assertEquals(writes.get(), shared.value);
        assertEquals(12 * 40, writes.get() + reads.get());
        assertTrue(concurrentReads.get() > 0, "readers did share the lock");
    }
}
