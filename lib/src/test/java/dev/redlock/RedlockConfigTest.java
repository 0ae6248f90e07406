/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.internal.node.NodeSpec;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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

    /** Durations no {@code toNanos()} (or {@code toMillis()}) can hold. */
    private static final List<Duration> HUGE = List.of(
            Duration.ofSeconds(Long.MAX_VALUE),
            ChronoUnit.FOREVER.getDuration(),
            Duration.ofSeconds(Long.MAX_VALUE / 1_000));

    private static final Duration HUGE_NEGATIVE = Duration.ofSeconds(Long.MIN_VALUE);

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
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> RedlockConfig.builder().nodes("redis://user:s3cret@host:1/x"));
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
        rejects(
                () -> RedlockConfig.builder()
                        .nodes("redis://a:1", "redis://b:1", "redis://a:1")
                        .build(),
                "duplicate",
                "nodes[0]",
                "nodes[2]");
    }

    @Test
    void databasesOfOneServerAreOneNode() {
        rejects(
                () -> RedlockConfig.builder()
                        .nodes("redis://h:1/0", "redis://h:1/1", "redis://g:1")
                        .build(),
                "duplicate",
                "h:1");
        rejects(
                () -> RedlockConfig.builder()
                        .nodes("redis://HOST:1", "redis://host:1")
                        .build(),
                "duplicate");
    }

    /** A host name longer than DNS allows is refused, and no error echoes a huge input back into the logs. */
    @Test
    void hugeHostNamesAreRefusedWithABoundedMessage() {
        String huge = "a".repeat(1_000_000);
        for (String uri : List.of(
                "redis://" + "a".repeat(254) + ":6379",
                "redis://" + huge + ":6379",
                "redis://" + huge + "!:6379",
                "redis://[" + "1:".repeat(500_000) + "]:6379")) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> RedlockConfig.builder().nodes(uri));
            String shown = uri.substring(0, 20) + "… (" + uri.length() + " chars)";
            assertTrue(e.getMessage().startsWith("nodes"), () -> shown + ": " + e.getMessage());
            assertTrue(
                    e.getMessage().length() < 600,
                    () -> shown + ": a message of " + e.getMessage().length());
        }
        assertEquals(
                253,
                NodeSpec.parse("n", "redis://" + "a".repeat(253) + ":1").host().length());
    }

    @Test
    void passwordsKeepTheirPlusSignsAndStayHidden() {
        assertEquals(
                "pa+ss",
                dev.redlock.internal.node.NodeSpec.parse("n", "redis://u:pa+ss@h:1")
                        .password());
        assertEquals(
                "p@ss",
                dev.redlock.internal.node.NodeSpec.parse("n", "redis://u:p%40ss@h:1")
                        .password());
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> RedlockConfig.builder().nodes("redis://user:p@ssw0rd@host:1/x"));
        assertFalse(e.getMessage().contains("ssw0rd"), e.getMessage());
    }

    @Test
    void leaseTimeMustLeaveValidity() {
        // 100 ms - drift (3 ms) - perNodeTimeout (50 ms) = 47 ms: not above a 98 ms minimum validity.
        rejects(
                () -> three().leaseTime(Duration.ofMillis(100))
                        .minValidity(Duration.ofMillis(98))
                        .build(),
                "leaseTime",
                "can never yield a lease",
                "minValidity (98 ms)");
        rejects(() -> three().leaseTime(Duration.ofMillis(52)).build(), "leaseTime", "perNodeTimeout (50 ms)");
    }

    @Test
    void ttlMustBePositive() {
        rejects(() -> three().leaseTime(Duration.ZERO), "leaseTime", "[1 ms, 7 days]", "0 ms");
        rejects(() -> three().leaseTime(Duration.ofMillis(-5)), "leaseTime");
    }

    @Test
    void perNodeTimeoutMustBeBelowTtl() {
        rejects(
                () -> three().leaseTime(Duration.ofMillis(100))
                        .perNodeTimeout(Duration.ofMillis(100))
                        .build(),
                "perNodeTimeout",
                "below leaseTime",
                "100 ms");
        rejects(() -> three().perNodeTimeout(Duration.ZERO), "perNodeTimeout", "[1 ms, 1 min]");
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
        assertEquals(
                Duration.ofMillis(302).toNanos(),
                c.driftNanos(Duration.ofSeconds(30).toNanos()));
    }

    @Test
    void hugeTimeoutsAndLeaseTimesFailWithTheirRange() {
        List<Duration> tooLong = new ArrayList<>(HUGE);
        tooLong.add(Duration.ofDays(7).plusMillis(1));
        for (Duration d : tooLong) {
            rejects(() -> three().leaseTime(d).build(), "leaseTime", "[1 ms, 7 days]");
            rejects(() -> three().minValidity(d).build(), "minValidity", "[0 ms, 7 days)");
            rejects(() -> three().perNodeTimeout(d).build(), "perNodeTimeout", "[1 ms, 1 min]");
            rejects(() -> three().connectTimeout(d).build(), "connectTimeout", "[1 ms, 5 min]");
            rejects(() -> three().retryDelay(d).build(), "retryDelay", "[1 ms, 1 min]");
            rejects(() -> three().circuitOpenDuration(d).build(), "circuitOpenDuration", "[1 ms, 10 min]");
            rejects(() -> three().identityCheckInterval(d).build(), "identityCheckInterval", "[1 ms, 1 day]");
            // Per-call lease times go through the same check.
            rejects(
                    () -> RedlockConfig.checkLeaseTime("leaseTime", d, Duration.ofMillis(50), 0.01, Duration.ZERO),
                    "leaseTime",
                    "[1 ms, 7 days]");
        }
        rejects(() -> three().leaseTime(Duration.ofSeconds(Long.MAX_VALUE)), "got 9223372036854775807 s");
    }

    @Test
    void theLargestAllowedValuesWork() {
        RedlockConfig c = three().leaseTime(Duration.ofDays(7))
                .perNodeTimeout(Duration.ofMinutes(1))
                .connectTimeout(Duration.ofMinutes(5))
                .retryDelay(Duration.ofMinutes(1))
                .circuitOpenDuration(Duration.ofMinutes(10))
                .identityCheckInterval(Duration.ofDays(1))
                .minValidity(Duration.ofDays(6))
                .build();
        assertEquals(Duration.ofDays(7), c.leaseTime());
        assertEquals(Duration.ofMinutes(1), c.perNodeTimeout());
        assertEquals(Duration.ofMinutes(5), c.connectTimeout());
        assertEquals(Duration.ofMinutes(1), c.retryDelay());
        assertEquals(Duration.ofMinutes(10), c.circuitOpenDuration());
        assertEquals(Duration.ofDays(1), c.identityCheckInterval());
        assertEquals(RedlockConfig.MAX_LEASE_TIME, c.leaseTime());
        assertEquals(RedlockConfig.MAX_PER_NODE_TIMEOUT, c.perNodeTimeout());
        assertEquals(RedlockConfig.MAX_CONNECT_TIMEOUT, c.connectTimeout());
        assertEquals(RedlockConfig.MAX_RETRY_DELAY, c.retryDelay());
        assertEquals(RedlockConfig.MAX_CIRCUIT_OPEN_DURATION, c.circuitOpenDuration());
        assertEquals(RedlockConfig.MAX_IDENTITY_CHECK_INTERVAL, c.identityCheckInterval());
        RedlockConfig.checkLeaseTime(
                "leaseTime", Duration.ofDays(7), c.perNodeTimeout(), c.driftFactor(), c.minValidity());
    }

    @Test
    void hugeNegativeDurationsFailWithTheirRange() {
        rejects(() -> three().leaseTime(HUGE_NEGATIVE), "leaseTime", "[1 ms, 7 days]", "-9223372036854775808 s");
        rejects(() -> three().minValidity(HUGE_NEGATIVE), "minValidity", "[0 ms, 7 days)");
        rejects(() -> three().perNodeTimeout(HUGE_NEGATIVE), "perNodeTimeout", "[1 ms, 1 min]");
        rejects(() -> three().connectTimeout(HUGE_NEGATIVE), "connectTimeout");
        rejects(() -> three().retryDelay(HUGE_NEGATIVE), "retryDelay");
        rejects(() -> three().circuitOpenDuration(HUGE_NEGATIVE), "circuitOpenDuration");
        rejects(() -> three().identityCheckInterval(HUGE_NEGATIVE), "identityCheckInterval");
        rejects(() -> three().waitBudget(HUGE_NEGATIVE), "waitBudget", ">= 0");
        rejects(() -> three().maxHoldTime(HUGE_NEGATIVE), "maxHoldTime", ">= 0");
        rejects(
                () -> RedlockConfig.checkLeaseTime(
                        "leaseTime", HUGE_NEGATIVE, Duration.ofMillis(50), 0.01, Duration.ZERO),
                "leaseTime",
                "[1 ms, 7 days]");
        rejects(
                () -> RedlockConfig.checkLeaseTime(
                        "leaseTime", Duration.ZERO, Duration.ofMillis(50), 0.01, Duration.ZERO),
                "leaseTime",
                "[1 ms, 7 days]",
                "0 ms");
    }

    @Test
    void hugeWaitBudgetsAndHoldCapsSaturate() {
        for (Duration d : HUGE) {
            RedlockConfig c = three().waitBudget(d).maxHoldTime(d).build();
            // Saturated to what a long of nanoseconds holds (292 years): "as long as it takes", "no cap".
            assertEquals(Long.MAX_VALUE, c.waitBudget().toNanos());
            assertEquals(Long.MAX_VALUE, c.maxHoldTime().toNanos());
            assertEquals(RedlockConfig.MAX_WAIT_BUDGET, c.waitBudget());
            assertEquals(RedlockConfig.MAX_HOLD_TIME, c.maxHoldTime());
            assertEquals(c.toString(), c.toBuilder().build().toString());
        }
        assertEquals(
                Duration.ofDays(365),
                three().waitBudget(Duration.ofDays(365)).build().waitBudget());
    }

    private static NodeSpec parse(String uri) {
        return NodeSpec.parse("nodes[0]", uri);
    }

    @Test
    void eachMalformedUriSaysWhatIsWrong() {
        String format = "expected redis://[user:password@]host[:port][/db]";
        rejects(() -> parse("redis://host:abc"), "nodes[0]", "port", "not a number", "[1, 65535]", format);
        rejects(() -> parse("redis://u:pw@host:abc"), "port 'abc'", "not a number", "[1, 65535]");
        rejects(() -> parse("redis://host:0"), "port", "[1, 65535]", "got 0", format);
        rejects(() -> parse("redis://host:65536"), "port", "[1, 65535]", "got 65536");
        rejects(() -> parse("redis://host:99999999999999999999"), "port", "[1, 65535]");
        rejects(() -> parse("redis://host:-1"), "port", "[1, 65535]");
        rejects(() -> parse("redis://host:1:2"), "port", "[1, 65535]");
        rejects(() -> parse("redis://:6379"), "nodes[0]", "missing host", format);
        rejects(() -> parse("redis://u:pw@"), "missing host");
        rejects(() -> parse("redis://u:pw@/1"), "missing host");
        rejects(() -> parse("redis://a b:1"), "host 'a b'", "not allowed", format);
        rejects(() -> parse("redis://h\u00f4te:1"), "host", "not allowed");
        rejects(() -> parse("redis://host:1/x"), "database 'x'", "number >= 0", format);
        rejects(() -> parse("redis://host:1/-1"), "database", "number >= 0");
        rejects(() -> parse("redis://host:1/1/2"), "database", "number >= 0");
        rejects(() -> parse("redis://host:1/99999999999"), "database", "number >= 0", "2147483647");
        rejects(() -> parse("redis://host:1?timeout=5"), "query", "not supported", format);
        rejects(() -> parse("redis://host:1/0#x"), "fragment", "not supported");
        rejects(() -> parse("ftp://host:1"), "unsupported scheme 'ftp'", "allowed: redis, rediss", format);
        rejects(() -> parse("host:6379"), "scheme", "redis, rediss", format);
        rejects(() -> parse("redis:/host:6379"), "scheme", "redis, rediss");
        rejects(() -> parse("redis://us er:pw@host"), "user info", "percent-encode", format);
        rejects(() -> parse("redis://user:p%zz@host"), "user info", "'%'", format);
        rejects(() -> parse("redis://user:p%FF@host"), "user info", "UTF-8");
        rejects(() -> parse("redis://@host"), "user info", "empty");
        rejects(() -> parse("redis://[::1"), "IPv6", "']'", format);
        rejects(() -> parse("redis://[::1]x"), "IPv6", format);
        rejects(() -> parse("redis://[]:1"), "IPv6");
        rejects(() -> parse("redis://[host]:1"), "IPv6");
        rejects(() -> parse("redis://::1:6379"), "IPv6", "brackets");
        rejects(() -> parse("  "), "nodes[0]", "empty", format);
        assertThrows(IllegalArgumentException.class, () -> parse(null));
    }

    @Test
    void sentinelUrisNameTheMasterAndItsSentinels() {
        NodeSpec node = parse("redis-sentinel://user:pw@s1,s2:26380,[::1]/mymaster/2");
        assertTrue(node.isSentinelManaged());
        assertEquals("mymaster", node.masterName());
        assertEquals(2, node.database());
        assertEquals("user", node.user());
        assertEquals("pw", node.password());
        assertEquals(
                List.of("s1:26379", "s2:26380", "[::1]:26379"),
                node.sentinels().stream().map(NodeSpec::name).toList());
        assertEquals("mymaster(s1:26379)/2", node.name());
        assertNull(node.host(), "no address until the sentinels name one");
        NodeSpec at = node.at("10.0.0.7", 6390);
        assertEquals("10.0.0.7", at.host());
        assertEquals(6390, at.port());
        assertEquals(node.name(), at.name());
        assertTrue(parse("rediss-sentinel://s1/m").sentinels().get(0).ssl());
        assertFalse(node.toString().contains("pw"));

        String format = "redis-sentinel://[user:password@]sentinel1[:26379],sentinel2.../masterName[/db]";
        rejects(() -> parse("redis-sentinel://s1,s2"), "no master name", format);
        rejects(() -> parse("redis-sentinel://s1/"), "no master name");
        rejects(() -> parse("redis-sentinel:///m"), "no sentinel address");
        rejects(() -> parse("redis-sentinel://s1,,s2/m"), "empty sentinel address");
        rejects(() -> parse("redis-sentinel://s1,s1:26379/m"), "s1:26379 is listed twice");
        rejects(() -> parse("redis-sentinel://s1/m/x"), "database 'x'");
        rejects(() -> parse("redis-sentinel://s1/m/1/2"), "more than a master name and a database");
        rejects(() -> parse("redis-sentinel://s1/m y"), "master name", "allowed");
        rejects(() -> parse("redis-sentinel://s1:0/m"), "port", "[1, 65535]");
        // A secret never shows, whatever is wrong around it.
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> parse("redis-sentinel://u:Zq7Secr3t@s1,,s2/m"));
        assertFalse(e.getMessage().contains("Zq7Secr3t"), e.getMessage());
    }

    @Test
    void clusterUrisNameTheirSeedsAndNodeCount() {
        NodeSpec cluster = parse("redis-cluster://user:pw@c1:7000,c2,[::1]:7002/?nodes=5");
        assertTrue(cluster.isCluster());
        assertFalse(cluster.isClusterSlot());
        assertEquals(5, cluster.clusterNodes());
        assertEquals(
                List.of("c1:7000", "c2:6379", "[::1]:7002"),
                cluster.clusterSeeds().stream().map(NodeSpec::name).toList());
        assertEquals("cluster(c1:7000)", cluster.name());
        assertEquals("pw", cluster.clusterSeeds().get(1).password());
        assertEquals(0, parse("redis-cluster://c1").clusterNodes(), "by default, one node per master found");
        assertTrue(parse("rediss-cluster://c1/").clusterSeeds().get(0).ssl());
        assertFalse(cluster.toString().contains("pw"));

        rejects(() -> parse("redis-cluster:///"), "no seed address");
        rejects(() -> parse("redis-cluster://c1,,c2/"), "empty seed address");
        rejects(() -> parse("redis-cluster://c1,c1:6379/"), "c1:6379 is listed twice");
        rejects(() -> parse("redis-cluster://c1/2"), "only database 0", "?nodes=5");
        rejects(() -> parse("redis-cluster://c1/?nodes=2"), "from 3 to 99", "'2'");
        rejects(() -> parse("redis-cluster://c1/?nodes=x"), "from 3 to 99");
        rejects(() -> parse("redis-cluster://c1/?size=5"), "only query parameter", "nodes=N");
        rejects(() -> parse("redis://c1/?nodes=5"), "a query");
        rejects(
                () -> RedlockConfig.builder()
                        .nodes("redis-cluster://c1/", "redis://c2")
                        .build(),
                "nodes[0]",
                "only node");
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> parse("redis-cluster://u:Zq7Secr3t@c1,,c2/"));
        assertFalse(e.getMessage().contains("Zq7Secr3t"), e.getMessage());
    }

    @Test
    void wellFormedUrisStillParse() {
        NodeSpec v6 = parse("redis://[::1]:6380/2");
        assertEquals("[::1]", v6.host());
        assertEquals(6380, v6.port());
        assertEquals(2, v6.database());
        assertEquals("[::1]:6380/2", v6.name());
        NodeSpec v6auth = parse("rediss://user:pw@[2001:DB8::1]");
        assertEquals("[2001:DB8::1]", v6auth.host());
        assertEquals(6379, v6auth.port());
        assertEquals("user", v6auth.user());
        assertEquals("pw", v6auth.password());
        assertTrue(v6auth.ssl());
        assertEquals("[2001:db8::1]:6379", v6auth.server());
        NodeSpec plain = parse("redis://redis_1.example-host.com:7000/");
        assertEquals("redis_1.example-host.com", plain.host());
        assertEquals(7000, plain.port());
        assertEquals(0, plain.database());
        assertEquals(6379, parse("redis://h:").port());
        assertEquals("p:w d", parse("redis://u:p%3Aw%20d@h").password());
        assertEquals("p\u00e4ss", parse("redis://u:p%C3%A4ss@h").password());
        assertEquals("p\u00e4ss", parse("redis://u:p\u00e4ss@h").password());
        assertEquals("pw", parse("redis://pw@h").password());
        assertEquals(null, parse("redis://pw@h").user());
        assertEquals(null, parse("redis://:pw@h").user());
        assertEquals("a!$&'()*+,;=-._~", parse("redis://u:a!$&'()*+,;=-._~@h").password());
        assertEquals(9, parse("REDIS://h/9").database());
    }

    /** A password that must never show: in messages, causes, suppressed exceptions or {@code toString()}. */
    private static final String SECRET = "Zq7Secr3t";

    @Test
    void passwordsNeverLeakFromMalformedUris() {
        List<String> malformed = List.of(
                "redis://user:Zq7Secr3t@host:abc",
                "redis://user:Zq7Secr3t@host:0",
                "redis://user:Zq7Secr3t@host:70000",
                "redis://user:Zq7Secr3t@:6379",
                "redis://user:Zq7Secr3t@",
                "redis://user:Zq7Secr3t@host:1/x",
                "redis://user:Zq7Secr3t@host:1/-1",
                "redis://user:Zq7Secr3t@host:1/99999999999",
                "redis://user:Zq7Secr3t@host:1?x=1",
                "redis://user:Zq7Secr3t@host:1#frag",
                "redis://user:Zq7Secr3t@host:1:2",
                "redis://user:Zq7Secr3t@a b:1",
                "redis://user:Zq7Secr3t@ho%st",
                "redis://user:Zq7Secr3t@[::1",
                "redis://user:Zq7Secr3t@::1",
                "http://user:Zq7Secr3t@host:1",
                "user:Zq7Secr3t@host:1",
                "Zq7Secr3t@host:1",
                "redis:/user:Zq7Secr3t@host",
                "redis:user:Zq7Secr3t@host",
                "redis://user:Zq7Secr3t /x@host",
                "redis://user:Zq7Secr3t/x@host",
                "redis://user:Zq7Secr3t#x@host",
                "redis://user:Zq7Secr3t?x@host",
                "redis://user:Zq7Secr3t%zz@host",
                "redis://user:Zq7Secr3t%FF@host",
                "redis://user:Zq7Secr3t@x@host:1",
                "redis://user:Zq7Secr3t^x@host:1",
                "redis://user:Zq7Secr3t[x]@host:1",
                "redis://user:Zq7Secr3t\\x@host:1",
                "redis://user:Zq7Secr3t\u0000x@host:1",
                "redis://user:Zq7Secr3t\uD800x@host:1",
                "redis://us er:Zq7Secr3t@host",
                "redis://Zq7Secr3t@host:1/x",
                "rediss://:Zq7Secr3t@host:99999",
                " redis://user:Zq7Secr3t@host:1/1/2 ",
                "redis://user:Zq7Secr3t");
        for (String uri : malformed) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> RedlockConfig.builder().nodes("redis://ok:1", uri),
                    uri);
            assertNoSecret(e, uri);
            assertTrue(e.getMessage().contains("nodes[1]"), e.getMessage());
            assertTrue(e.getMessage().contains("expected redis://"), e.getMessage());
        }
    }

    @Test
    void passwordsNeverLeakFromConfigsOrTheirErrors() {
        String a = "redis://user:Zq7Secr3t@a:1";
        String b = "rediss://Zq7Secr3t@b:2/3";
        NodeSpec spec = NodeSpec.parse("nodes[0]", a);
        assertEquals(SECRET, spec.password());
        assertNoSecret(spec.toString(), a);
        RedlockConfig c =
                RedlockConfig.builder().nodes(a, b, "redis://:Zq7Secr3t@c:3").build();
        assertNoSecret(c.toString(), "config");
        assertNoSecret(c.nodeNames().toString(), "names");
        assertNoSecret(c.nodeSpecs().toString(), "specs");
        assertNoSecret(c.toBuilder().toString(), "builder");
        List<Executable> bad = List.of(
                () -> RedlockConfig.builder().nodes(a, a).build(),
                () -> RedlockConfig.builder()
                        .nodes(a, "redis://other:Zq7Secr3t@A:1")
                        .build(),
                () -> RedlockConfig.builder().nodes(a).unverifiedIdentity(a).build(),
                () -> RedlockConfig.builder()
                        .nodes(a)
                        .leaseTime(Duration.ofMillis(40))
                        .build());
        for (Executable x : bad) {
            assertNoSecret(assertThrows(IllegalArgumentException.class, x), "build");
        }
    }

    private static void assertNoSecret(String text, String what) {
        assertFalse(
                text.toLowerCase(Locale.ROOT).contains(SECRET.toLowerCase(Locale.ROOT)),
                () -> what + ": '" + text + "' shows the password");
    }

    private static void assertNoSecret(Throwable e, String what) {
        List<Throwable> todo = new ArrayList<>(List.of(e));
        Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        while (!todo.isEmpty()) {
            Throwable t = todo.remove(todo.size() - 1);
            if (!seen.add(t)) {
                continue;
            }
            assertNoSecret(String.valueOf(t.getMessage()), what);
            assertNoSecret(String.valueOf(t.getLocalizedMessage()), what);
            assertNoSecret(t.toString(), what);
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            todo.addAll(List.of(t.getSuppressed()));
        }
    }

    @Test
    void keyPrefixMustEncodeLosslesslyAndStayShort() {
        rejects(() -> three().keyPrefix("app\uD800:"), "keyPrefix", "unpaired surrogate", "index 3");
        rejects(() -> three().keyPrefix("app:\uDC00"), "keyPrefix", "unpaired surrogate", "index 4");
        rejects(() -> three().keyPrefix("\uDC00\uD800"), "keyPrefix", "index 0");
        rejects(() -> three().keyPrefix("x".repeat(1025)), "keyPrefix", "1024 UTF-8 bytes", "1025");
        // 342 three-byte characters: 342 chars, 1026 bytes.
        rejects(() -> three().keyPrefix("\u20ac".repeat(342)), "keyPrefix", "1024 UTF-8 bytes", "1026");
        assertEquals(
                "x".repeat(1024), three().keyPrefix("x".repeat(1024)).build().keyPrefix());
        assertEquals("\uD83D\uDD12:", three().keyPrefix("\uD83D\uDD12:").build().keyPrefix());
        assertEquals("", three().keyPrefix("").build().keyPrefix());
        assertEquals(1024, RedlockConfig.MAX_KEY_PREFIX_BYTES);
    }

    @Test
    void maxReplyBytesHasARange() {
        RedlockConfig.Builder b = RedlockConfig.builder().node("redis://localhost:6379");
        assertEquals(RedlockConfig.DEFAULT_MAX_REPLY_BYTES, b.build().maxReplyBytes());
        IllegalArgumentException low = assertThrows(IllegalArgumentException.class, () -> b.maxReplyBytes(1024));
        assertTrue(
                low.getMessage().startsWith("maxReplyBytes: must be in [16384, 16777216], got 1024"), low::getMessage);
        assertThrows(IllegalArgumentException.class, () -> b.maxReplyBytes(Integer.MAX_VALUE));
        assertEquals(
                1 << 20, b.maxReplyBytes(1 << 20).build().toBuilder().build().maxReplyBytes());
    }
}
