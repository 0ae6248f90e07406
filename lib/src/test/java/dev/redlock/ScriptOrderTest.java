/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.internal.script.LuaScript;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** Commands for one key on one node apply in the order they were issued, even when a script must be reloaded. */
class ScriptOrderTest extends RedisBackedTest {

    @Test
    void aReloadedAcquireNeverRunsAfterItsRelease() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.redLock(uniqueName("noscript-order")).fenced();
        lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .orElseThrow()
                .release(); // scripts cached
        try (Jedis admin = node(0).client()) {
            admin.scriptFlush();
            // Another client's release reloads only the release script: the acquire on node 0 will get NOSCRIPT
            // while the release queued behind it runs.
            admin.scriptLoad(LuaScript.RELEASE.source());
            // Node 0 holds every write for 100 ms (half the per-node timeout), so the acquire and the release queue
            // up there in issue order, and NOSCRIPT comes back while the acquire may still be sent again.
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "100", "WRITE");
        }
        Lease lease =
                lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        lease.release();
        // Once node 0 runs what it was sent, the key must be gone there too: no orphan for the next 10 s.
        await().pollDelay(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !node(0).exists(lease.key()));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> !node(0).exists(lease.key()));
        assertTrue(nodesWithKey(lease.key()) == 0);
    }

    /**
     * Two extensions of one lease can reach a node out of order (the older one went out on a connection that was then
     * dropped): the older one, with a shorter TTL, must not undo the newer.
     */
    @Test
    void anOlderExtensionArrivingLastDoesNotShortenTheKey() {
        String key = "redlock:{" + uniqueName("extend-order") + "}";
        try (Jedis admin = node(0).client()) {
            admin.set(
                    key, "tok", redis.clients.jedis.params.SetParams.setParams().px(10_000));
            List<String> keys = List.of(key, key + ":x");
            assertEquals(1L, admin.eval(LuaScript.EXTEND.source(), keys, List.of("tok", "30000", "2")));
            assertEquals(1L, admin.eval(LuaScript.EXTEND.source(), keys, List.of("tok", "2000", "1")));
            assertTrue(admin.pttl(key) > 20_000, "round 2's 30 s stand: " + admin.pttl(key));
            // A newer round still applies, whatever its TTL.
            assertEquals(1L, admin.eval(LuaScript.EXTEND.source(), keys, List.of("tok", "5000", "3")));
            assertTrue(admin.pttl(key) <= 5_000);
        }
    }
}
