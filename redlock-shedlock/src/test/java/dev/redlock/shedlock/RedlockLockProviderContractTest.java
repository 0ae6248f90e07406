/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.RedlockClient;
import dev.redlock.testkit.RedisNodesExtension;
import java.util.Optional;
import java.util.Set;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ShedLock's own abstract tests for extensible providers (shedlock-test-support), run against five real Redis masters.
 * "Locked" means one token is on a quorum of the nodes; "unlocked" means no more than {@code N - quorum} nodes still
 * have the key, so a new acquisition can win.
 *
 * <p>Every test runs with a 500 ms per-node timeout, so that a loaded machine's stalls do not fail rounds (a round
 * whose nodes all time out is "not enough nodes", which {@code lock} reports with an exception), except the two
 * tests of short leases: ShedLock's {@code shouldTimeout} locks for 50 ms, so it runs, unchanged, with a 40 ms
 * per-node timeout, which makes the shortest lease 43 ms. Only {@link #shouldNotBeAbleToExtendExpiredLock()} is
 * overridden; see there why.
 */
class RedlockLockProviderContractTest extends AbstractExtensibleLockProviderIntegrationTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(Nodes.SIZE);

    private static final Set<String> SHORT_LEASE_TESTS = Set.of("shouldTimeout", "shouldNotBeAbleToExtendExpiredLock");

    private RedlockClient client;
    private RedlockLockProvider provider;

    @BeforeEach
    void startClient(TestInfo test) {
        boolean shortLeases =
                SHORT_LEASE_TESTS.contains(test.getTestMethod().orElseThrow().getName());
        client = RedlockClient.create(
                Nodes.config(REDIS, ofMillis(shortLeases ? 40 : 500)).build());
        provider = new RedlockLockProvider(client);
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return provider;
    }

    @Override
    protected void assertLocked(String lockName) {
        String key = key(lockName);
        assertTrue(Nodes.quorumHolder(REDIS, key).isPresent(), "no token on a quorum: " + Nodes.holders(REDIS, key));
    }

    @Override
    protected void assertUnlocked(String lockName) {
        String key = key(lockName);
        assertTrue(
                Nodes.nodesWithKey(REDIS, key) <= Nodes.SIZE - Nodes.QUORUM,
                "key still on too many nodes: " + Nodes.holders(REDIS, key));
    }

    private String key(String lockName) {
        return client.keyOf(provider.lockNameOf(lockName));
    }

    /**
     * ShedLock's version locks for 2 ms, then expects the lock to have been granted. No quorum lease can be that
     * short: it must outlast a round that takes the whole per-node timeout, plus the clock drift allowance, or the
     * round could grant a lease that has already expired. So a 2 ms {@code lockAtMostFor} is refused with
     * {@link IllegalArgumentException}, and the scenario runs at the shortest lease this client accepts: lock, let it
     * expire on every node, extend, expect nothing.
     */
    @Override
    @Test
    public void shouldNotBeAbleToExtendExpiredLock() {
        assertEquals(ofMillis(43), provider.minimumLockAtMostFor());
        assertThrows(IllegalArgumentException.class, () -> provider.lock(lockConfig(LOCK_NAME1, ofMillis(2), ZERO)));
        assertUnlocked(LOCK_NAME1);

        Optional<SimpleLock> lock = provider.lock(lockConfig(LOCK_NAME1, provider.minimumLockAtMostFor(), ZERO));
        assertTrue(lock.isPresent());
        await().atMost(ofSeconds(5))
                .pollInterval(ofMillis(5))
                .until(() -> Nodes.nodesWithKey(REDIS, key(LOCK_NAME1)) == 0);

        assertTrue(lock.get().extend(ofSeconds(10), ZERO).isEmpty());
        assertUnlocked(LOCK_NAME1);
    }
}
