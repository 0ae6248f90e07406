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
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Who holds a lock: each client's entry on the nodes, and what an inspection makes of it. */
class HolderIdentityTest extends RedisBackedTest {

    @Test
    void aLockHeldForAWhileNamesItsHostProcessClientThreadAndStart() throws Exception {
        RedlockClient holder = client(b -> b.clientName("orders-service"));
        String name = uniqueName("who");
        Instant before = Instant.now();
        Future<Lease> taken = threads().submit(() -> {
            Thread.currentThread().setName("order-worker-7");
            return holder.redLock(name)
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                    .orElseThrow();
        });
        Lease lease = taken.get();
        RedlockClient operator = client(b -> b.clientName("ops"));
        HolderIdentity who = await().atMost(Duration.ofSeconds(5))
                .until(
                        () -> operator.inspect(name).holderIdentity().orElse(null),
                        id -> id != null && id.thread().isPresent());
        assertEquals("orders-service", who.clientName());
        assertEquals(ProcessHandle.current().pid(), who.pid());
        assertFalse(who.host().isBlank());
        assertEquals(Optional.of("order-worker-7"), who.thread());
        Instant since = who.since().orElseThrow();
        assertFalse(since.isBefore(before.minusMillis(1)) || since.isAfter(Instant.now()), who::toString);
        LockInfo info = operator.inspect(name);
        assertTrue(info.toString().contains("order-worker-7"), info::toString);
        for (Optional<HolderIdentity> perNode : info.identities()) {
            assertEquals(Optional.of(who), perNode);
        }
        lease.release();
        assertTrue(operator.inspect(name).holderIdentity().isEmpty());
    }

    @Test
    void aShortLeaseShowsItsClientWithoutThread() throws Exception {
        RedlockClient holder = client(b -> b.clientName("batch"));
        String name = uniqueName("short");
        try (Lease lease = holder.redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow()) {
            HolderIdentity who = client().inspect(name).holderIdentity().orElseThrow();
            assertEquals("batch", who.clientName());
            assertTrue(who.thread().isEmpty() && who.since().isEmpty(), who::toString);
            assertTrue(lease.isValid());
        }
    }

    @Test
    void aClosedClientTakesItsEntryWithIt() throws Exception {
        RedlockConfig config = config().clientName("leaving").build();
        String entry;
        try (RedlockClient c = RedlockClient.create(config)) {
            String name = uniqueName("entry");
            Lease lease = c.redLock(name)
                    .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                    .orElseThrow();
            entry = config.keyPrefix() + "client:" + lease.token().substring(16);
            await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(entry) == 5);
        }
        assertEquals(0, nodesWithKey(entry), "the entry outlived its client");
    }

    @Test
    void aHolderWithoutAnEntryHasNoIdentity() {
        String name = uniqueName("foreign");
        String key = client().keyOf(name);
        for (int i = 0; i < 5; i++) {
            try (var jedis = node(i).client()) {
                jedis.set(key, "0123456789abcdef0123456789abcdef");
            }
        }
        LockInfo info = client().inspect(name);
        assertTrue(info.locked(), info::toString);
        assertTrue(info.holderIdentity().isEmpty(), info::toString);
        for (int i = 0; i < 5; i++) {
            try (var jedis = node(i).client()) {
                jedis.del(key);
            }
        }
    }

    @Test
    void aBadClientNameIsRefusedNamingTheField() {
        for (String bad : new String[] {"", "  ", "a\tb", "x".repeat(201)}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> RedlockConfig.builder().clientName(bad));
            assertTrue(e.getMessage().startsWith("clientName: "), e.getMessage());
        }
        assertTrue(RedlockConfig.builder()
                        .nodes("redis://localhost:1")
                        .build()
                        .clientName()
                        .length()
                > 0);
    }
}
