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
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The multi-resource lock on five real Redis masters: all names or none, on every node; it and the RedLocks of its
 * names exclude each other; clients asking for overlapping sets in any order never deadlock.
 * (It also passes the whole lock contract: {@link MultiResourceLockContractTest}.)
 */
class MultiResourceLockTest extends RedisBackedTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    /** Deliberately not atomic and not volatile: only the locks make the increments safe. */
    private static final class Counters {
        final long[] values;

        Counters(int n) {
            values = new long[n];
        }
    }

    @Test
    void overlappingSetsInAnyOrderNeverDeadlockAndExcludeEachOther() throws Exception {
        String base = uniqueName("multi-stress");
        int resources = 5;
        List<RedlockClient> clients = List.of(client(), client(), client());
        Counters counters = new Counters(resources);
        AtomicLongArray expected = new AtomicLongArray(resources);
        ExecutorService pool = Executors.newFixedThreadPool(12);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 12; t++) {
                RedlockClient c = clients.get(t % clients.size());
                done.add(pool.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 40; i++) {
                        List<Integer> picked = new ArrayList<>(List.of(0, 1, 2, 3, 4));
                        Collections.shuffle(picked, random);
                        picked = picked.subList(0, 1 + random.nextInt(3)); // one name alone is a plain RedLock
                        List<String> names = new ArrayList<>();
                        for (int r : picked) {
                            names.add(base + "/" + r);
                        }
                        QuorumLock lock = names.size() == 1 ? c.redLock(names.get(0)) : c.multiResourceLock(names);
                        assertTrue(lock.tryLock(30, TimeUnit.SECONDS), "acquire within 30 s");
                        try {
                            for (int r : picked) {
                                long v = counters.values[r];
                                Thread.yield();
                                counters.values[r] = v + 1;
                                expected.incrementAndGet(r);
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
        for (int r = 0; r < resources; r++) {
            assertEquals(expected.get(r), counters.values[r], "resource " + r);
        }
    }

    @Test
    void itAndTheRedLocksOfItsNamesExcludeEachOther() throws Exception {
        String a = uniqueName("multi-a");
        String b = uniqueName("multi-b");
        RedlockClient c = client();
        Lease single = c.redLock(a).tryAcquire(Duration.ZERO, LEASE).orElseThrow();
        AcquireResult refused = client().multiResourceLock(List.of(b, a)).attempt(Duration.ZERO, LEASE);
        assertEquals(FailureReason.BUSY, refused.reason(), refused::toString);
        single.release();
        Lease both = client().multiResourceLock(List.of(b, a))
                .tryAcquire(Duration.ofSeconds(5), LEASE)
                .orElseThrow();
        assertFalse(c.redLock(a).attempt(Duration.ZERO, LEASE).acquired());
        assertFalse(c.redLock(b).attempt(Duration.ZERO, LEASE).acquired());
        both.release();
        assertTrue(c.redLock(b).tryAcquire(Duration.ofSeconds(5), LEASE).isPresent());
    }

    @Test
    void allOrNoneOnEveryNode() throws Exception {
        String a = uniqueName("multi-all");
        String b = a + "/b";
        String c = a + "/c";
        RedlockClient client = client();
        Lease middle = client.redLock(b)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(3))
                .orElseThrow();
        AcquireResult refused = client().multiResourceLock(List.of(c, b, a)).attempt(Duration.ZERO, LEASE);
        assertFalse(refused.acquired());
        Duration ttl = refused.holderTtl().orElseThrow(() -> new AssertionError("no holder TTL: " + refused));
        assertTrue(ttl.toMillis() > 0 && ttl.toMillis() <= 3_000, ttl::toString);
        assertEquals(0, nodesWithKey(client.keyOf(a)), "nothing of a refused set is left on any node");
        assertEquals(0, nodesWithKey(client.keyOf(c)));
        middle.release();

        Lease all = client().multiResourceLock(Arrays.asList(a, b, c, a))
                .tryAcquire(Duration.ofSeconds(5), LEASE)
                .orElseThrow();
        for (String name : List.of(a, b, c)) {
            String key = client.keyOf(name);
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesHolding(key, all.token()) == 5);
        }
        all.release();
        for (String name : List.of(a, b, c)) {
            String key = client.keyOf(name);
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(key) == 0);
        }
    }

    @Test
    void anExtensionExtendsEveryResource() throws Exception {
        String a = uniqueName("multi-extend");
        RedlockClient client = client();
        Lease lease = client.multiResourceLock(List.of(a, a + "/2"))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(2))
                .orElseThrow();
        assertTrue(lease.extend(Duration.ofSeconds(30)).succeeded());
        for (String name : List.of(a, a + "/2")) {
            for (int i = 0; i < 5; i++) {
                try (Jedis j = node(i).client()) {
                    long pttl = j.pttl(client.keyOf(name));
                    assertTrue(pttl > 20_000, "node " + i + " " + name + ": pttl " + pttl);
                }
            }
        }
        lease.release();
    }

    @Test
    void badInputNamesTheFieldAndFencingIsRefused() {
        RedlockClient c = client();
        IllegalArgumentException empty =
                assertThrows(IllegalArgumentException.class, () -> c.multiResourceLock(List.of()));
        assertTrue(empty.getMessage().startsWith("names:"), empty::getMessage);
        assertThrows(NullPointerException.class, () -> c.multiResourceLock(Arrays.asList("a", null)));
        assertThrows(IllegalArgumentException.class, () -> c.multiResourceLock(List.of("a", "")));
        List<String> many = new ArrayList<>();
        for (int i = 0; i <= QuorumSemaphore.MAX_PERMITS; i++) {
            many.add("n" + i);
        }
        IllegalArgumentException tooMany =
                assertThrows(IllegalArgumentException.class, () -> c.multiResourceLock(many));
        assertTrue(tooMany.getMessage().contains(String.valueOf(QuorumSemaphore.MAX_PERMITS)), tooMany::getMessage);
        assertThrows(
                UnsupportedOperationException.class,
                () -> c.multiResourceLock(List.of("a", "b")).fenced());
        assertEquals("[a, b]", c.multiResourceLock(List.of("b", "a", "b")).name());
    }
}
