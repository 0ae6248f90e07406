/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/**
 * Inputs at the edge of their range, against real nodes: lock names must reach Redis unchanged and within a bounded
 * size, and durations no {@code long} of nanoseconds holds either saturate (waits) or fail with a message that names
 * the field and its range (lease times), never with {@link ArithmeticException}.
 */
class InputValidationTest extends RedisBackedTest {

    private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();
    private static final Duration HUGE_NEGATIVE = Duration.ofSeconds(Long.MIN_VALUE);
    private static final Duration TTL = Duration.ofSeconds(10);

    private static IllegalArgumentException rejects(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "message '" + e.getMessage() + "' lacks '" + f + "'");
        }
        return e;
    }

    /**
     * Whether every node holds {@code key}, read with the key's exact UTF-8 bytes. A round decided by a quorum may
     * not have heard every node yet, so this waits for them.
     */
    private static boolean everyNodeHolds(String key) {
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> holdsEverywhere(key));
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            return false;
        }
    }

    private static boolean holdsEverywhere(String key) {
        byte[] raw = key.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 5; i++) {
            try (Jedis j = node(i).client()) {
                if (!j.exists(raw)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Releases and checks that no node failed or held another owner's key. */
    private static void assertReleased(Lease lease) {
        ReleaseResult r = lease.release();
        assertTrue(r.released() > 0 && r.failed() == 0 && r.ownedByAnother() == 0, r::toString);
    }

    // ------------------------------------------------------------------------------------------------ lock names

    @Test
    void namesWithUnpairedSurrogatesAreRejectedWithTheirIndex() {
        RedlockClient c = client();
        // Both would be sent as "lock?" and share one key.
        rejects(() -> c.redLock("lock\uD800"), "name", "unpaired surrogate", "index 4");
        rejects(() -> c.redLock("lock\uDC00"), "name", "unpaired surrogate", "index 4");
        rejects(() -> c.multiLock("\uDC00\uD83D\uDD12"), "name", "index 0");
        rejects(() -> c.lock("a\uD83Db", QuorumPolicy.MAJORITY), "name", "index 1");
        rejects(() -> c.keyOf("x\uD800"), "name", "index 1");
        AtomicBoolean ran = new AtomicBoolean();
        rejects(() -> c.withLock("w\uDFFF", LockOptions.defaults(), () -> ran.set(true)), "name", "index 1");
        assertFalse(ran.get());
    }

    @Test
    void namesReachRedisUnchanged() throws Exception {
        RedlockClient c = client();
        String name = uniqueName("\uD83D\uDD12-\u00e9t\u00e9-\u6f22");
        QuorumLock lock = c.redLock(name);
        assertEquals("redlock:{" + name + "}", lock.key());
        Lease lease = lock.tryAcquire(Duration.ZERO, TTL).orElseThrow();
        assertTrue(everyNodeHolds(lock.key()));
        // A name differing only in the last code point is another lock.
        assertTrue(
                c.redLock(name + "\uD83D\uDD13").tryAcquire(Duration.ZERO, TTL).isPresent());
        assertReleased(lease);
    }

    @Test
    void namesHaveABoundedUtf8Length() throws Exception {
        RedlockClient c = client();
        assertEquals(4096, RedlockClient.MAX_LOCK_NAME_BYTES);
        String longest = "n".repeat(4096);
        QuorumLock lock = c.redLock(longest);
        Lease lease = lock.tryAcquire(Duration.ZERO, TTL).orElseThrow();
        assertTrue(everyNodeHolds(lock.key()));
        assertReleased(lease);

        rejects(() -> c.redLock("n".repeat(4097)), "name", "4096 UTF-8 bytes", "4097");
        rejects(() -> c.multiLock("n".repeat(100_000)), "name", "4096 UTF-8 bytes", "100000");
        // 1366 characters of 3 bytes each: short in chars, 4098 bytes on the wire.
        rejects(() -> c.lock("\u20ac".repeat(1366), QuorumPolicy.ALL), "name", "4096 UTF-8 bytes", "4098");
        // 1025 four-byte code points: 2050 chars, 4100 bytes.
        rejects(() -> c.redLock("\uD83D\uDD12".repeat(1025)), "name", "4096 UTF-8 bytes", "4100");
        rejects(() -> c.keyOf("n".repeat(4097)), "name", "4096");
        AtomicBoolean ran = new AtomicBoolean();
        rejects(
                () -> c.withLock("n".repeat(5000), LockOptions.defaults(), () -> ran.set(true)),
                "name",
                "4096",
                "5000");
        assertFalse(ran.get());
        rejects(() -> c.redLock(""), "name", "empty");
        assertThrows(NullPointerException.class, () -> c.redLock(null));
    }

    @Test
    void theKeyPrefixAndTheNameTogetherStayLossless() throws Exception {
        RedlockClient c = client(b -> b.keyPrefix("\uD83D\uDD10app:"));
        QuorumLock lock = c.redLock(uniqueName("p"));
        assertTrue(lock.key().startsWith("\uD83D\uDD10app:{"));
        Lease lease = lock.tryAcquire(Duration.ZERO, TTL).orElseThrow();
        assertTrue(everyNodeHolds(lock.key()));
        assertReleased(lease);
    }

    // ------------------------------------------------------------------------------------------------ lease times

    @Test
    void hugePerCallLeaseTimesFailWithTheRange() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.redLock(uniqueName("huge-lease"));
        for (Duration d : List.of(HUGE, FOREVER, Duration.ofDays(8))) {
            rejects(() -> lock.tryAcquire(Duration.ZERO, d), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> lock.tryAcquire(HUGE, d), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> lock.attempt(FOREVER, d), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> lock.tryAcquireAsync(Duration.ZERO, d), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> lock.attemptAsync(Duration.ZERO, d), "leaseTime", "[1 ms, 7 days]");
            AtomicBoolean ran = new AtomicBoolean();
            rejects(
                    () -> c.withLock(lock.name(), LockOptions.defaults().leaseTime(d), () -> ran.set(true)),
                    "leaseTime",
                    "[1 ms, 7 days]");
            assertFalse(ran.get());
        }
        rejects(() -> lock.tryAcquire(Duration.ZERO, HUGE_NEGATIVE), "leaseTime", "[1 ms, 7 days]");
        rejects(
                () -> lock.tryLock(Long.MAX_VALUE, Long.MAX_VALUE, TimeUnit.DAYS),
                "leaseTime",
                "[1 ms, 7 days]",
                "9223372036854775807 DAYS");
        rejects(() -> lock.tryLock(0, Long.MAX_VALUE, TimeUnit.MILLISECONDS), "leaseTime", "[1 ms, 7 days]");
        rejects(() -> lock.tryLock(0, Long.MIN_VALUE, TimeUnit.DAYS), "leaseTime", "[1 ms, 7 days]");
        rejects(() -> lock.tryLock(0, 8, TimeUnit.DAYS), "leaseTime", "[1 ms, 7 days]", "691200000 ms");
        assertFalse(lock.isHeldByCurrentThread());
        assertEquals(0, nodesWithKey(lock.key()));

        // The largest allowed lease time works, and is what the nodes were told.
        assertTrue(lock.tryLock(0, 7, TimeUnit.DAYS));
        try (Jedis j = node(0).client()) {
            assertTrue(j.pttl(lock.key()) > TimeUnit.DAYS.toMillis(7) - 60_000);
        }
        lock.unlock();
    }

    @Test
    void hugeExtensionsFailWithTheRangeAndKeepTheLease() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.redLock(uniqueName("huge-extend"));
        Lease lease = lock.tryAcquire(Duration.ZERO, TTL).orElseThrow();
        for (Duration d : List.of(HUGE, FOREVER, HUGE_NEGATIVE, Duration.ofDays(8))) {
            rejects(() -> lease.extend(d), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> lease.extendAsync(d), "leaseTime", "[1 ms, 7 days]");
        }
        assertTrue(lease.isValid());
        assertTrue(lease.extend(Duration.ofDays(7)).succeeded());
        assertReleased(lease);

        assertTrue(lock.tryLock(0, 10, TimeUnit.SECONDS));
        rejects(() -> lock.extend(FOREVER), "leaseTime", "[1 ms, 7 days]");
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
    }

    // ------------------------------------------------------------------------------------------------ waits

    @Test
    void hugeWaitsMeanWaitAsLongAsItTakes() throws Exception {
        RedlockClient holderClient = client();
        RedlockClient c = client();
        String name = uniqueName("huge-wait");
        QuorumLock lock = c.redLock(name);

        // Free lock: every huge wait acquires at once.
        assertTrue(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS));
        lock.unlock();
        assertTrue(lock.tryLock(Long.MAX_VALUE, 10, TimeUnit.SECONDS));
        lock.unlock();
        assertReleased(lock.tryAcquire(FOREVER, TTL).orElseThrow());
        assertReleased(lock.tryAcquire(HUGE).orElseThrow());
        assertReleased(lock.attempt(HUGE, TTL).lease().orElseThrow());
        assertReleased(
                lock.tryAcquireAsync(FOREVER, TTL).get(10, TimeUnit.SECONDS).orElseThrow());
        assertReleased(lock.tryAcquire(HUGE_NEGATIVE, TTL).orElseThrow());

        // Busy lock: a huge wait waits (it does not wrap around into "no time left") until the holder's key expires.
        holderClient
                .redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        long t0 = System.nanoTime();
        Lease lease = lock.tryAcquire(FOREVER, TTL).orElseThrow();
        assertTrue(System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(300), "acquired before the key expired");
        assertReleased(lease);

        holderClient
                .redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        assertTrue(lock.tryLock(Long.MAX_VALUE, 10_000, TimeUnit.MILLISECONDS));
        lock.unlock();
    }

    @Test
    void aHugeConfiguredWaitBudgetWaitsAsLongAsItTakes() throws Exception {
        RedlockClient holderClient = client();
        RedlockClient c = client(b -> b.waitBudget(FOREVER));
        assertEquals(Long.MAX_VALUE, c.config().waitBudget().toNanos());
        String name = uniqueName("huge-budget");

        holderClient
                .redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        assertEquals(
                Boolean.TRUE,
                c.withLock(name, LockOptions.defaults(), () -> true).orElseThrow());

        holderClient
                .redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        Lease lease = c.redLock(name).tryAcquire().orElseThrow();
        // The holder's key expires on each node at its own moment: a node whose copy outlived the round that granted
        // the lease may still hold it at the release (owned by another), which is not a failure.
        ReleaseResult r = lease.release();
        assertTrue(r.released() > 0 && r.failed() == 0, r::toString);
    }

    @Test
    void aHugeMaxHoldTimeMeansNoCap() throws Exception {
        RedlockClient c = client(b -> b.maxHoldTime(HUGE));
        assertEquals(Long.MAX_VALUE, c.config().maxHoldTime().toNanos());
        QuorumLock lock = c.redLock(uniqueName("huge-hold"));
        lock.lock();
        assertTrue(lock.isHeldByCurrentThread());
        lock.unlock();
        assertNotEquals(0, c.config().maxHoldTime().toNanos());
    }

    @Test
    void aHugeWaitInLockOptionsWaitsAsLongAsItTakes() throws Exception {
        RedlockClient holderClient = client();
        RedlockClient c = client();
        String name = uniqueName("huge-options-wait");
        holderClient
                .redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofMillis(800))
                .orElseThrow();
        assertEquals(
                Boolean.TRUE,
                c.withLock(name, LockOptions.defaults().waitTime(FOREVER), () -> true)
                        .orElseThrow());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> LockOptions.defaults().leaseTime(Duration.ofDays(8)));
        assertTrue(e.getMessage().startsWith("leaseTime: must be in [1 ms, 7 days]"), e::getMessage);
    }

    @Test
    void theFencedViewCannotReenterAHoldTakenWithoutAToken() throws Exception {
        QuorumLock plain = client().redLock(uniqueName("plain-then-fenced"));
        assertTrue(plain.tryLock());
        try {
            IllegalStateException e = assertThrows(
                    IllegalStateException.class, () -> plain.fenced().tryLock());
            assertTrue(e.getMessage().contains("without a fencing token"), e::getMessage);
            assertEquals(1, plain.getHoldCount());
        } finally {
            plain.unlock();
        }
        QuorumLock fenced = plain.fenced();
        assertTrue(fenced.tryLock());
        assertTrue(fenced.currentLease().orElseThrow().fencingToken().isPresent());
        fenced.unlock();
    }
}
