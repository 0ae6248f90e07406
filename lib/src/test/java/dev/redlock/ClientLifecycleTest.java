/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The client owns its threads and connections, and closing it leaves nothing running. */
class ClientLifecycleTest extends RedisBackedTest {

    private static List<String> libraryThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> n.startsWith("redlock-"))
                .collect(Collectors.toList());
    }

    @Test
    void closeStopsEveryThreadTheClientStarted() throws Exception {
        RedlockClient client = RedlockClient.create(config().build());
        QuorumLock lock = client.redLock(uniqueName("threads"));
        lock.tryAcquire().orElseThrow().release();
        lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(5))
                .get(5, TimeUnit.SECONDS)
                .orElseThrow()
                .releaseAsync()
                .get(5, TimeUnit.SECONDS);
        List<String> running = libraryThreads();
        assertTrue(
                running.stream().anyMatch(n -> n.endsWith("-io"))
                        && running.stream().anyMatch(n -> n.endsWith("-scheduler")),
                "an I/O loop and a scheduler: " + running);

        client.close();
        assertEquals(List.of(), libraryThreads());
        client.close(); // idempotent
        assertTrue(client.isClosed());
    }

    @Test
    void closedClientRefusesWork() throws Exception {
        RedlockClient client = RedlockClient.create(config().build());
        QuorumLock lock = client.redLock(uniqueName("closed"));
        client.close();
        assertThrows(IllegalStateException.class, () -> lock.tryAcquire());
        ExecutionException e = assertThrows(
                ExecutionException.class,
                () -> lock.attemptAsync(Duration.ZERO, Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    }

    @Test
    void asyncAcquisitionWaitingBetweenRoundsFailsWhenTheClientCloses() throws Exception {
        String name = uniqueName("close-async");
        client().redLock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        RedlockClient waiter =
                RedlockClient.create(config().retryDelay(Duration.ofMillis(200)).build());
        CompletableFuture<AcquireResult> pending =
                waiter.redLock(name).attemptAsync(Duration.ofSeconds(30), Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(5)).until(() -> !pending.isDone());
        waiter.close();
        ExecutionException e = assertThrows(ExecutionException.class, () -> pending.get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    }

    @Test
    void closeFlushesQueuedReleases() throws Exception {
        RedlockClient client = RedlockClient.create(config().build());
        Lease lease = client.redLock(uniqueName("flush")).tryAcquire().orElseThrow();
        lease.releaseAsync();
        client.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> nodesWithKey(lease.key()) == 0);
        assertEquals(List.of(), libraryThreads());
    }
}
