package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad configuration fails at build time, with a message naming the field and the allowed range. */
class RedlockConfigTest {

    private static void rejects(Executable build, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "message '" + e.getMessage() + "' lacks '" + f + "'");
        }
    }

    private static RedlockConfig.Builder three() {
        return RedlockConfig.builder().nodes("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3");
    }

    @Test
    void emptyNodeList() {
        rejects(() -> RedlockConfig.builder().build(), "nodes", "at least 1");
        rejects(() -> RedlockClient.create(new String[0]), "nodes");
    }

    @Test
    void malformedUris() {
        rejects(() -> RedlockConfig.builder().nodes("localhost:6379"), "nodes[0]", "scheme", "redis, rediss");
        rejects(() -> RedlockConfig.builder().nodes("redis://a:1", "http://a:2"), "nodes[1]", "unsupported scheme");
        rejects(() -> RedlockConfig.builder().nodes("redis://:6379"), "nodes[0]", "host");
        rejects(() -> RedlockConfig.builder().nodes("redis://a b:1"), "nodes[0]", "malformed URI");
        rejects(() -> RedlockConfig.builder().nodes("redis://host:1/x"), "nodes[0]", "database");
        rejects(() -> RedlockConfig.builder().nodes(""), "nodes[0]", "empty");
    }

    @Test
    void passwordsNeverAppearInMessages() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RedlockConfig.builder().nodes("redis://user:s3cret@host:1/x"));
        assertFalse(e.getMessage().contains("s3cret"), e.getMessage());
    }

    @Test
    void uriForms() {
        RedlockConfig c = RedlockConfig.builder()
                .nodes("redis://h1", "redis://user:pw@h2:7000/3", "rediss://:pw@h3:7001", "redis://pw@h4:7002")
                .build();
        assertEquals(java.util.List.of("h1:6379", "h2:7000/3", "h3:7001", "h4:7002"), c.nodeNames());
    }

    @Test
    void duplicateNodes() {
        rejects(() -> RedlockConfig.builder().nodes("redis://a:1", "redis://b:1", "redis://a:1").build(),
                "duplicate", "nodes[0]", "nodes[2]");
    }

    @Test
    void databasesOfOneServerAreOneNode() {
        rejects(() -> RedlockConfig.builder().nodes("redis://h:1/0", "redis://h:1/1", "redis://g:1").build(),
                "duplicate", "h:1");
        rejects(() -> RedlockConfig.builder().nodes("redis://HOST:1", "redis://host:1").build(), "duplicate");
    }

    @Test
    void passwordsKeepTheirPlusSignsAndStayHidden() {
        assertEquals("pa+ss", dev.redlock.internal.NodeSpec.parse("n", "redis://u:pa+ss@h:1").password());
        assertEquals("p@ss", dev.redlock.internal.NodeSpec.parse("n", "redis://u:p%40ss@h:1").password());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RedlockConfig.builder().nodes("redis://user:p@ssw0rd@host:1/x"));
        assertFalse(e.getMessage().contains("ssw0rd"), e.getMessage());
    }

    @Test
    void leaseTimeMustLeaveValidity() {
        // 100 ms - drift (3 ms) - perNodeTimeout (50 ms) = 47 ms: not above a 98 ms minimum validity.
        rejects(() -> three().leaseTime(Duration.ofMillis(100)).minValidity(Duration.ofMillis(98)).build(),
                "leaseTime", "can never yield a lease", "minValidity (98 ms)");
        rejects(() -> three().leaseTime(Duration.ofMillis(52)).build(), "leaseTime", "perNodeTimeout (50 ms)");
    }

    @Test
    void ttlMustBePositive() {
        rejects(() -> three().leaseTime(Duration.ZERO), "leaseTime", "at least 1 ms", "0 ms");
        rejects(() -> three().leaseTime(Duration.ofMillis(-5)), "leaseTime");
    }

    @Test
    void perNodeTimeoutMustBeBelowTtl() {
        rejects(() -> three().leaseTime(Duration.ofMillis(100)).perNodeTimeout(Duration.ofMillis(100)).build(),
                "perNodeTimeout", "below leaseTime", "100 ms");
        rejects(() -> three().perNodeTimeout(Duration.ZERO), "perNodeTimeout", "at least 1 ms");
    }

    @Test
    void driftFactorRange() {
        rejects(() -> three().driftFactor(0.5), "driftFactor", "[0, 0.5)", "0.5");
        rejects(() -> three().driftFactor(-0.01), "driftFactor");
        rejects(() -> three().driftFactor(Double.NaN), "driftFactor");
        assertEquals(0.49, three().driftFactor(0.49).build().driftFactor());
    }

    @Test
    void otherRanges() {
        rejects(() -> three().retryJitter(1.5), "retryJitter", "[0, 1]");
        rejects(() -> three().waitBudget(Duration.ofMillis(-1)), "waitBudget", ">= 0");
        rejects(() -> three().minValidity(Duration.ofSeconds(60)).build(), "minValidity", "below leaseTime");
        rejects(() -> three().retryDelay(Duration.ZERO), "retryDelay");
        rejects(() -> three().connectTimeout(Duration.ZERO), "connectTimeout");
        rejects(() -> three().circuitOpenDuration(Duration.ZERO), "circuitOpenDuration");
    }

    @Test
    void defaultsAreDocumentedConstants() {
        RedlockConfig c = three().build();
        assertEquals(RedlockConfig.DEFAULT_PER_NODE_TIMEOUT, c.perNodeTimeout());
        assertEquals(RedlockConfig.DEFAULT_LEASE_TIME, c.leaseTime());
        assertEquals(RedlockConfig.DEFAULT_DRIFT_FACTOR, c.driftFactor());
        assertEquals(RedlockConfig.DEFAULT_WAIT_BUDGET, c.waitBudget());
        assertEquals(RedlockConfig.DEFAULT_RETRY_DELAY, c.retryDelay());
        assertEquals(RedlockConfig.DEFAULT_RETRY_JITTER, c.retryJitter());
        assertEquals(c.toString(), c.toBuilder().build().toString());
        // drift = ttl * factor + 2 ms
        assertEquals(Duration.ofMillis(302).toNanos(), c.driftNanos(Duration.ofSeconds(30).toNanos()));
    }
}
