package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.internal.LuaScript;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/** Commands for one key on one node apply in the order they were issued, even when a script must be reloaded. */
class ScriptOrderTest extends RedisBackedTest {

    @Test
    void aReloadedAcquireNeverRunsAfterItsRelease() throws Exception {
        RedlockClient c = client();
        QuorumLock lock = c.redLock(uniqueName("noscript-order")).fenced();
        lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow().release(); // scripts cached
        try (Jedis admin = node(0).client()) {
            admin.scriptFlush();
            // Another client's release reloads only the release script: the acquire on node 0 will get NOSCRIPT
            // while the release queued behind it runs.
            admin.scriptLoad(LuaScript.RELEASE.source());
            // Node 0 holds every write for 100 ms (half the per-node timeout), so the acquire and the release queue
            // up there in issue order, and NOSCRIPT comes back while the acquire may still be sent again.
            admin.sendCommand(Protocol.Command.CLIENT, "PAUSE", "100", "WRITE");
        }
        Lease lease = lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        lease.release();
        // Once node 0 runs what it was sent, the key must be gone there too: no orphan for the next 10 s.
        await().pollDelay(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5))
                .until(() -> !node(0).exists(lease.key()));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> !node(0).exists(lease.key()));
        assertTrue(nodesWithKey(lease.key()) == 0);
    }
}
