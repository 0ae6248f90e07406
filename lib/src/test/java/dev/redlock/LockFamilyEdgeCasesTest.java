/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Edge cases of the lock family (read-write, fair, multi-resource locks, the asynchronous semaphore) on five real
 * Redis masters. Each test states a guarantee from the README or the javadoc and attacks it: a client closed
 * mid-wait, names whose keys join alike, a writer waiting among readers, a waiter that gives up or began earlier.
 */
class LockFamilyEdgeCasesTest extends RedisBackedTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    /** Script calls node {@code i} has served so far (EVALSHA and EVAL). */
    private static long scriptCalls(int i) {
        try (Jedis j = node(i).client()) {
            long n = 0;
            for (String line : j.info("commandstats").split("\r?\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    String calls = line.substring(line.indexOf("calls=") + 6);
                    n += Long.parseLong(calls.substring(0, calls.indexOf(',')));
                }
            }
            return n;
        }
    }

    /** Places in the fair lock's queue (key {@code key}) on node {@code i}. */
    private static long places(int i, String key) {
        try (Jedis j = node(i).client()) {
            return j.zcard(key + ":q");
        }
    }

    private static boolean everyQueueHas(String key, long n) {
        for (int i = 0; i < 5; i++) {
            if (places(i, key) != n) {
                return false;
            }
        }
        return true;
    }

    /** Whether node 0's release-notification subscriber listens on {@code key} (the key has a waiter there). */
    private static boolean subscribed(String key) {
        try (Jedis j = node(0).client()) {
            return j.pubsubNumSub(key).getOrDefault(key, 0L) > 0;
        }
    }

    /** Whether every node's release-notification subscriber listens on at least one of {@code keys}. */
    private static boolean subscribedEverywhere(String... keys) {
        for (int i = 0; i < 5; i++) {
            try (Jedis j = node(i).client()) {
                long n = 0;
                for (long subscribers : j.pubsubNumSub(keys).values()) {
                    n += subscribers;
                }
                if (n == 0) {
                    return false;
                }
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------------ semaphore

    /**
     * QuorumSemaphore#tryAcquireAsync: "It fails ... with IllegalStateException if the client closes." A waiter that is
     * between two passes sleeps in a task on the client's scheduler, which close() drops (shutdownNow); nothing else
     * completes its future, so it never completes.
     */
    @Test
    void anAsyncSemaphoreWaiterSleepingBetweenPassesFailsWhenTheClientCloses() throws Exception {
        String name = uniqueName("rv-sem-close");
        client().semaphore(name, 1)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                .orElseThrow();
        RedlockClient c = RedlockClient.create(
                config().retryDelay(Duration.ofSeconds(30)).retryJitter(0).build());
        long[] before = new long[5];
        for (int i = 0; i < 5; i++) {
            before[i] = scriptCalls(i);
        }
        CompletableFuture<Optional<Lease>> waiting =
                c.semaphore(name, 1).tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        // Its first pass (one round: one acquire per node) ran on every node: it now sleeps up to 30 s.
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            for (int i = 0; i < 5; i++) {
                if (scriptCalls(i) <= before[i]) {
                    return false;
                }
            }
            return true;
        });
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        c.close();
        try {
            waiting.get(5, TimeUnit.SECONDS);
            fail("the permit was granted after the client closed");
        } catch (TimeoutException e) {
            fail("tryAcquireAsync's future did not complete within 5 s of close(): its next pass was a task on the "
                    + "client's scheduler, dropped by close(); it will never complete");
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof IllegalStateException, e::toString);
        }
    }

    /**
     * RedlockClient#close: "Acquisitions in progress on other threads fail with IllegalStateException", and the engine
     * wakes its sleeping waiters at close ("sleeping callers see the client closed now, not at their next poll"). A
     * blocking semaphore waiter sleeps in its own loop, which close() does not wake: it keeps its thread until its next
     * pass, up to a retry delay (1 min at most) later.
     */
    @Test
    void aBlockingSemaphoreWaiterFailsPromptlyWhenTheClientCloses() throws Exception {
        String name = uniqueName("rv-sem-close-sync");
        client().semaphore(name, 1)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                .orElseThrow();
        RedlockClient c = RedlockClient.create(
                config().retryDelay(Duration.ofSeconds(30)).retryJitter(0).build());
        long[] before = new long[5];
        for (int i = 0; i < 5; i++) {
            before[i] = scriptCalls(i);
        }
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return c.semaphore(name, 1).tryAcquire(Duration.ofSeconds(60), LEASE);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            for (int i = 0; i < 5; i++) {
                if (scriptCalls(i) <= before[i]) {
                    return false;
                }
            }
            return true;
        });
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        long closedAt = System.nanoTime();
        c.close();
        try {
            waiting.get(3, TimeUnit.SECONDS);
            fail("the permit was granted after the client closed");
        } catch (TimeoutException e) {
            fail("the blocking semaphore waiter was still asleep "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt)
                    + " ms after close(): it sleeps out its retry delay (30 s) before it notices");
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof IllegalStateException, e::toString);
        }
    }

    // ------------------------------------------------------------------------------------------------ multi-resource

    /**
     * Hold state of a multi-resource lock is keyed by its keys joined with '|': the set {a, b} and the single name
     * {@code a}|<prefix>{b} (whose key is {@code <prefix>{a}|<prefix>{b}}) share it. A thread that holds {a, b} then
     * "re-enters" the other lock without any round, while another client holds that lock's only key: two holders.
     */
    @Test
    void twoMultiResourceLocksWhoseKeysJoinAlikeDoNotShareAHold() throws Exception {
        RedlockClient c = client();
        String a = uniqueName("rv-a");
        String b = uniqueName("rv-b");
        String glued = a + "}|" + RedlockConfig.DEFAULT_KEY_PREFIX + "{" + b;
        QuorumLock ab = c.multiResourceLock(List.of(a, b));
        QuorumLock gluedLock = c.multiResourceLock(List.of(glued));
        assertEquals(c.keyOf(a) + "|" + c.keyOf(b), c.keyOf(glued));
        Lease theirs = client().redLock(glued).tryAcquire(Duration.ZERO, LEASE).orElseThrow();
        assertTrue(ab.tryLock());
        try {
            boolean got = gluedLock.tryLock();
            try {
                assertFalse(
                        got,
                        "lock " + gluedLock.name() + " was granted without a round while another client "
                                + "holds its only key " + c.keyOf(glued) + " (holder "
                                + theirs.token().substring(0, 8)
                                + "): its hold id collides with that of " + ab.name());
            } finally {
                if (got) {
                    gluedLock.unlock();
                }
            }
        } finally {
            ab.unlock();
        }
    }

    /**
     * Javadoc of multiResourceLock: "Waiters are woken by the release of the set's first name (in sorted order)". With
     * the names {@code acct:1} and {@code acct:10} the first name is {@code acct:1}, but the first of their keys sorted
     * is {@code redlock:{acct:10}} ('0' sorts before '}'): a waiter that listens there sleeps through the release of
     * {@code acct:1} until its next poll (30 s here, past its 20 s budget).
     */
    @Test
    void aMultiResourceWaiterIsWokenByItsFirstNameWhenThatNameIsAPrefixOfAnother() throws Exception {
        String first = uniqueName("rv-acct:1");
        String second = first + "0";
        Lease holder = client().redLock(first)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                .orElseThrow();
        RedlockClient c = client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0));
        QuorumLock both = c.multiResourceLock(List.of(second, first));
        assertEquals("[" + first + ", " + second + "]", both.name());
        CompletableFuture<Optional<Lease>> waiter = both.tryAcquireAsync(Duration.ofSeconds(20), LEASE);
        // Refused by the holder, the waiter listens (on one of the two keys) on every node.
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribedEverywhere(c.keyOf(first), c.keyOf(second)));
        holder.release();
        long released = System.nanoTime();
        try {
            waiter.get(5, TimeUnit.SECONDS).orElseThrow().release();
        } catch (TimeoutException e) {
            fail("the multi-resource waiter of " + both.name() + " was still waiting "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released) + " ms after the release of its "
                    + "first name " + first + " (node 0 listens on " + c.keyOf(first) + ": "
                    + subscribed(c.keyOf(first))
                    + ", on " + c.keyOf(second) + ": " + subscribed(c.keyOf(second)) + ")");
        } finally {
            waiter.cancel(false);
        }
    }

    // ------------------------------------------------------------------------------------------------ read-write

    /**
     * README: "A reader that gets in after waiting wakes the client's next waiter, so all the readers behind a writer
     * follow its release." When this client's waiters are [reader R1, writer W, reader R2], R1 gets in and wakes W
     * (the next waiter), W is refused and does not pass the wake on, and R2 sleeps on: it gets in only at its next
     * poll (its place in the room times the retry delay, up to ten: here past its 20 s budget), although the lock is
     * readable all that time.
     */
    @Test
    void everyReaderBehindAWriterFollowsItsReleaseEvenWithAWriterWaitingAmongThem() throws Exception {
        String name = uniqueName("rv-rw-chain");
        RedlockClient c = client(b -> b.retryDelay(Duration.ofSeconds(10)).retryJitter(0));
        QuorumReadWriteLock rw = c.readWriteLock(name);
        // The writer is of the same client: its release goes out on each node's connection ahead of the rounds it
        // wakes, so every node has run it by then (no round is half refused by the writer's key).
        Lease x =
                rw.writeLock().tryAcquire(Duration.ZERO, Duration.ofSeconds(60)).orElseThrow();
        CompletableFuture<Optional<Lease>> r1 = rw.readLock().tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribed(x.key())); // R1 waits in the client's room
        CompletableFuture<Optional<Lease>> w = rw.writeLock().tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        CompletableFuture<Optional<Lease>> r2 = rw.readLock().tryAcquireAsync(Duration.ofSeconds(20), LEASE);
        x.release();
        Lease first = r1.get(5, TimeUnit.SECONDS).orElseThrow();
        try {
            Optional<Lease> second = r2.get(5, TimeUnit.SECONDS);
            assertTrue(second.isPresent());
            second.get().release();
        } catch (TimeoutException e) {
            fail("reader R2 was still waiting 5 s after the writer's release although reader R1 holds the lock and "
                    + "nothing keeps readers out (writer W waiting between them took R1's wake-up and did not pass "
                    + "it on)");
        } finally {
            first.release();
            w.cancel(false);
        }
    }

    /**
     * README: a preferred writer's entry "goes when the writer ... gives up", and the writer "that gives up lets readers
     * in at once". The entry goes, but the readers it refused (told "-1: unknown when it frees") are not told: giving up
     * publishes nothing and wakes no one, so they sleep out their retry delay (up to ten of them) with the lock free.
     */
    @Test
    void readersRefusedByAPreferredWriterGetInSoonAfterItGivesUp() throws Exception {
        String name = uniqueName("rv-rw-giveup");
        Lease reader = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                .orElseThrow();
        CompletableFuture<Optional<Lease>> writer =
                client().readWriteLock(name).preferWriters().writeLock().tryAcquireAsync(Duration.ofSeconds(2), LEASE);
        QuorumLock probe = client().readWriteLock(name).readLock();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !probe.attempt(Duration.ZERO, LEASE).acquired());
        RedlockClient slow = client(b -> b.retryDelay(Duration.ofSeconds(10)).retryJitter(0));
        CompletableFuture<Optional<Lease>> waitingReader =
                slow.readWriteLock(name).readLock().tryAcquireAsync(Duration.ofSeconds(30), LEASE);
        assertTrue(writer.get(5, TimeUnit.SECONDS).isEmpty(), "the writer gave up");
        long gaveUp = System.nanoTime();
        try {
            assertTrue(waitingReader.get(3, TimeUnit.SECONDS).isPresent());
        } catch (TimeoutException e) {
            fail("a reader refused only by the preferred writer's entry was still waiting "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - gaveUp) + " ms after the writer gave up "
                    + "(a new reader gets in: "
                    + probe.attempt(Duration.ZERO, LEASE).acquired() + ")");
        } finally {
            reader.release();
        }
    }

    /**
     * Javadoc of QuorumReadWriteLock: "by default a reader is admitted whenever no writer holds the lock". A writer of
     * this client waits for another client's reader; no writer holds the lock, yet a new reader of this client queues
     * behind that writer in the client's wait room before its first round, for its place times the retry delay (here
     * past its 20 s budget), and only the writer's wake-ups would end that sleep.
     */
    @Test
    void aNewReaderIsNotHeldBackByAWriterOfItsClientWaitingForAnotherClientsReader() throws Exception {
        String name = uniqueName("rv-rw-reader-passes");
        Lease theirs = client().readWriteLock(name)
                .readLock()
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(60))
                .orElseThrow();
        RedlockClient c = client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0));
        QuorumReadWriteLock rw = c.readWriteLock(name);
        CompletableFuture<Optional<Lease>> writer = rw.writeLock().tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        // Refused by the other client's reader, the writer waits in this client's room (and listens on every node).
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribedEverywhere(theirs.key()));
        long start = System.nanoTime();
        AcquireResult reader = rw.readLock().attempt(Duration.ofSeconds(20), LEASE);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        try {
            assertTrue(reader.acquired(), reader::toString);
            assertTrue(
                    took < 5_000,
                    () -> "a new reader got the lock, which no writer holds, only after " + took + " ms ("
                            + reader.rounds() + " round(s)): the writer of its client waiting for another client's "
                            + "reader held it back");
            assertFalse(writer.isDone(), "the writer still waits for both readers");
        } finally {
            reader.lease().ifPresent(Lease::release);
            writer.cancel(false);
            theirs.release();
        }
    }

    /**
     * README: "the writer's thread may take the read lock (its own writer's token lets it in) and keep it after
     * unlocking the write lock". Another writer of the same client waits for the write lock; the holder's own reader,
     * which every node admits at once (with or without writer preference), must not queue behind that waiting writer
     * in the client's wait room: the thread that would release the lock for it would sleep for its place times the
     * retry delay (here past its 20 s budget).
     */
    @ParameterizedTest(name = "writers preferred: {0}")
    @ValueSource(booleans = {false, true})
    void aDowngradeIsNotHeldBackByAWriterOfItsClientWaitingForTheWriteLock(boolean preferWriters) throws Exception {
        String name = uniqueName("rv-rw-downgrade");
        RedlockClient c = client(b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0));
        QuorumReadWriteLock rw = preferWriters ? c.readWriteLock(name).preferWriters() : c.readWriteLock(name);
        rw.writeLock().lock();
        String key = rw.writeLock().currentLease().orElseThrow().key();
        CompletableFuture<Optional<Lease>> other = rw.writeLock().tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        boolean read = false;
        try {
            // Refused by this thread's writer, the other writer waits in the client's room (and listens everywhere).
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedEverywhere(key));
            long start = System.nanoTime();
            read = rw.readLock().tryLock(20, TimeUnit.SECONDS);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(read, "the writer's own reader is let in");
            assertTrue(
                    took < 5_000,
                    () -> "the write lock's holder got the read lock only after " + took + " ms: the other writer "
                            + "of its client, waiting for the write lock this thread holds, held it back");
        } finally {
            rw.writeLock().unlock(); // the downgrade: the read lock, if taken, stays
            other.cancel(false);
            if (read) {
                rw.readLock().unlock();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ fair

    /**
     * README: a fair waiter "that gives up (or is cancelled) removes its place at once"; only "a waiter that dies holds
     * the queue up" for the queue window. A waiter whose client is closed (a graceful shutdown, whose close() flushes
     * queued releases) keeps its place: leaveQueue() returns early once the engine is closed, so every later waiter of
     * every other client waits for the window (here 9 s; 45 min with retryDelay = 1 min).
     */
    @Test
    void closingAClientTakesItsFairWaitersPlacesOutOfTheQueue() throws Exception {
        String name = uniqueName("rv-fair-close");
        Lease holder = client().fairLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(30))
                .orElseThrow();
        String key = holder.key();
        // retryDelay 200 ms with jitter 0.5: a queue window of 30 * 300 ms = 9 s.
        RedlockClient closing =
                RedlockClient.create(config().retryDelay(Duration.ofMillis(200)).build());
        CompletableFuture<Optional<Lease>> early =
                closing.fairLock(name).tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> everyQueueHas(key, 2));
        CompletableFuture<Optional<Lease>> late =
                client().fairLock(name).tryAcquireAsync(Duration.ofSeconds(60), LEASE);
        await().atMost(Duration.ofSeconds(5)).until(() -> everyQueueHas(key, 3));
        closing.close();
        try {
            early.get(5, TimeUnit.SECONDS);
            fail("the closed client's acquisition succeeded");
        } catch (ExecutionException e) {
            assertTrue(e.getCause() instanceof IllegalStateException, e::toString);
        }
        holder.release();
        try {
            assertTrue(late.get(3, TimeUnit.SECONDS).isPresent());
        } catch (TimeoutException e) {
            fail("the next waiter was still not granted 3 s after the release: the closed client's waiter kept its "
                    + "place at the head of every queue (places per node: " + placesEverywhere(key) + ")");
        }
    }

    /**
     * Javadoc of fairLock: "Within one client, places follow the order in which acquisitions began"; README: "Within
     * one client this is exact start order". An acquisition that finds other waiters of its client for the lock
     * sleeps behind them before its first round, so it has no place on any node meanwhile; a later acquisition of the
     * same client that tries once finds the lock free and itself at the head of every queue, and is granted first.
     */
    @Test
    void aFairAcquisitionNeverOvertakesAnEarlierWaiterOfTheSameClient() throws Exception {
        String name = uniqueName("rv-fair-order");
        Duration shortLease = Duration.ofSeconds(2);
        Lease holder =
                client().fairLock(name).tryAcquire(Duration.ZERO, shortLease).orElseThrow();
        String key = holder.key();
        RedlockClient c = client(b -> b.retryDelay(Duration.ofSeconds(10)).retryJitter(0));
        // W0 waits (its place is in every queue); it gets the lock when the holder's key expires, and never releases.
        CompletableFuture<Optional<Lease>> w0 = c.fairLock(name).tryAcquireAsync(Duration.ofSeconds(60), shortLease);
        await().atMost(Duration.ofSeconds(5)).until(() -> everyQueueHas(key, 2) && subscribed(key));
        // A begins now, behind W0 in this client's wait room.
        CompletableFuture<Optional<Lease>> a = c.fairLock(name).tryAcquireAsync(Duration.ofSeconds(60), shortLease);
        Lease w0Lease = w0.get(10, TimeUnit.SECONDS).orElseThrow();
        // W0's key expires (no release): A, which began before B below, either has the lock by now (it woke when the
        // refusing holder's TTL ran out) or is still waiting with its place ahead of B's. Either way B is refused.
        await().atMost(Duration.ofSeconds(10)).until(() -> nodesWithKey(key) == 0 || a.isDone());
        Optional<Lease> b = c.fairLock(name).tryAcquire(Duration.ZERO, shortLease);
        try {
            assertTrue(
                    b.isEmpty(),
                    "B, begun after A (which is still waiting), was granted the fair lock first; "
                            + "places on node 0: " + places(0, key) + "; A done: " + a.isDone());
        } finally {
            b.ifPresent(Lease::release);
            a.cancel(false);
            assertFalse(w0Lease.isValid());
        }
    }

    private static String placesEverywhere(String key) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            s.append(i == 0 ? "" : ",").append(places(i, key));
        }
        return s.toString();
    }
}
