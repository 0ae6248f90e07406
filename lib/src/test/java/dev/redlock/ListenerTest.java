/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Listeners hear every acquisition, acquire round, failed extension and lost lease, on real Redis; a listener that
 * throws changes nothing; the client counts its held and watched leases; {@code withLock} fills the MDC.
 */
class ListenerTest extends RedisBackedTest {

    /** Records every event as a line. */
    static final class Recorder implements RedlockListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void acquisitionEnded(LockKind kind, AcquireResult result, Duration elapsed) {
            events.add("acquisition " + kind + " " + (result.acquired() ? "acquired" : result.reason()));
        }

        @Override
        public void acquireRound(LockKind kind, RoundOutcome round) {
            events.add("round " + kind + " " + round.granted() + "/"
                    + round.nodes().size());
        }

        @Override
        public void extensionFailed(Lease lease, RoundOutcome round) {
            events.add("extension failed " + round.reason());
        }

        @Override
        public void leaseLost(Lease lease, LockLostException cause) {
            events.add("lost " + cause.reason());
        }
    }

    @Test
    void acquisitionsAndRoundsAreHeardWithTheirKindAndOutcome() throws Exception {
        Recorder recorder = new Recorder();
        RedlockClient c = client(b -> b.listener(recorder));
        String name = uniqueName("listened");
        Lease lease = c.redLock(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        assertFalse(
                c.redLock(name).attempt(Duration.ZERO, Duration.ofSeconds(10)).acquired());
        c.fairLock(uniqueName("fair"))
                .tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(10))
                .get(5, TimeUnit.SECONDS)
                .orElseThrow()
                .release();
        lease.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> recorder.events.size() >= 6);
        assertTrue(recorder.events.contains("acquisition REDLOCK acquired"), recorder.events::toString);
        assertTrue(recorder.events.contains("acquisition REDLOCK BUSY"), recorder.events::toString);
        assertTrue(recorder.events.contains("acquisition FAIR acquired"), recorder.events::toString);
        assertTrue(
                recorder.events.stream().anyMatch(e -> e.startsWith("round REDLOCK ") && e.endsWith("/5")),
                recorder.events::toString);
    }

    @Test
    void failedExtensionsAndLostLeasesAreHeard() throws Exception {
        Recorder recorder = new Recorder();
        RedlockClient c = client(b -> b.listener(recorder).leaseTime(Duration.ofSeconds(1)));
        String name = uniqueName("lost");
        QuorumLock lock = c.redLock(name);
        Lease lease = lock.tryAcquire(Duration.ZERO).orElseThrow(); // auto-extended
        assertEquals(1, c.activeLeases());
        assertEquals(1, c.autoExtendedLeases());
        c.forceUnlock(name); // every node drops it: the watchdog's next extension fails, and the lease is lost
        await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> recorder.events.stream().anyMatch(e -> e.startsWith("lost ")));
        assertTrue(
                recorder.events.stream().anyMatch(e -> e.startsWith("extension failed ")), recorder.events::toString);
        assertEquals(0, c.activeLeases());
        assertEquals(0, c.autoExtendedLeases());
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        RedlockListener broken = new RedlockListener() {
            @Override
            public void acquisitionEnded(LockKind kind, AcquireResult result, Duration elapsed) {
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void acquireRound(LockKind kind, RoundOutcome round) {
                throw new IllegalStateException("broken listener");
            }
        };
        Recorder after = new Recorder();
        RedlockClient c = client(b -> b.listener(broken).listener(after));
        Lease lease = c.redLock(uniqueName("broken"))
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(10))
                .orElseThrow();
        assertTrue(lease.isValid());
        assertTrue(after.events.contains("acquisition REDLOCK acquired"), "the next listener still hears it");
        lease.release();
        assertEquals(0, c.activeLeases());
    }

    @Test
    void withLockPutsTheLockAndItsFencingTokenInTheMdc() throws Exception {
        RedlockClient c = client();
        String name = uniqueName("mdc");
        MDC.put(RedlockClient.MDC_LOCK, "outer");
        try {
            String seen = c.withLock(
                            name,
                            LockOptions.defaults().fenced(true),
                            () -> MDC.get(RedlockClient.MDC_LOCK) + " " + MDC.get(RedlockClient.MDC_FENCING_TOKEN))
                    .orElseThrow();
            assertTrue(seen.startsWith(name + " ") && !seen.endsWith(" null"), seen);
            assertEquals("outer", MDC.get(RedlockClient.MDC_LOCK), "the caller's value comes back");
            assertNull(MDC.get(RedlockClient.MDC_FENCING_TOKEN));
        } finally {
            MDC.remove(RedlockClient.MDC_LOCK);
        }
    }
}
