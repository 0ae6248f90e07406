/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Help, bad arguments, password masking and {@code redlock check}, through the packaged jar. */
class ArgumentsIT {

    @Test
    void everyCommandHasHelp() throws Exception {
        for (String command : List.of("exec", "status", "check", "chaos")) {
            Cli.Result r = Cli.run(command, "--help");
            assertEquals(0, r.exit(), r::toString);
            assertTrue(r.out().startsWith("Usage: redlock " + command), r::toString);
            assertTrue(r.out().contains("Exit status:"), r::toString);
        }
        Cli.Result top = Cli.run("--help");
        assertTrue(top.out().contains("76") && top.out().contains("75"), top::toString);
    }

    @Test
    void badArgumentsExitWith64AndNameTheOption() throws Exception {
        Cli.Result duration =
                Cli.run("exec", "--nodes", "redis://127.0.0.1:1", "--name", "x", "--wait", "10q", "--", "true");
        assertEquals(ExitCodes.USAGE, duration.exit(), duration::toString);
        assertTrue(duration.err().contains("--wait") && duration.err().contains("10q"), duration::toString);

        Cli.Result noName = Cli.run("exec", "--nodes", "redis://127.0.0.1:1", "--", "true");
        assertEquals(ExitCodes.USAGE, noName.exit(), noName::toString);
        assertTrue(noName.err().contains("--name"), noName::toString);

        Cli.Result noNodes = Cli.run("status", "x");
        assertEquals(ExitCodes.USAGE, noNodes.exit(), noNodes::toString);
        assertTrue(noNodes.err().contains("--nodes") && noNodes.err().contains("REDLOCK_NODES"), noNodes::toString);

        Cli.Result scenario = Cli.run("chaos", "--scenario", "nope");
        assertEquals(ExitCodes.USAGE, scenario.exit(), scenario::toString);
        assertTrue(
                scenario.err().contains("--scenario") && scenario.err().contains("kill-minority"), scenario::toString);

        Cli.Result lease =
                Cli.run("exec", "--nodes", "redis://127.0.0.1:1", "--name", "x", "--lease", "10ms", "--", "true");
        assertEquals(ExitCodes.USAGE, lease.exit(), lease::toString);
        assertTrue(lease.err().contains("--lease"), lease::toString);

        Cli.Result missing = Cli.run(
                "exec", "--nodes", "redis://127.0.0.1:1", "--name", "x", "--wait", "0s", "--", "/no/such/command");
        assertTrue(
                missing.exit() == ExitCodes.COMMAND_NOT_FOUND || missing.exit() == ExitCodes.NOT_ENOUGH_NODES,
                missing::toString);
    }

    /**
     * A duration beyond an option's range, in any form, is refused with 64 naming the option and the range, before
     * anything could overflow (a --grace that overflowed on SIGTERM used to orphan the command and keep the lock).
     */
    @Test
    void outOfRangeDurationsExitWith64NamingTheOptionAndRange() throws Exception {
        String dead = "redis://127.0.0.1:1";
        String huge = "PT9223372036854775807S";
        List<List<String>> cases = List.of(
                List.of("--grace", "exec", "--nodes", dead, "--name", "x", "--grace", huge, "--", "true"),
                List.of("--grace", "exec", "--nodes", dead, "--name", "x", "--grace", "2h", "--", "true"),
                List.of("--lease", "exec", "--nodes", dead, "--name", "x", "--lease", huge, "--", "true"),
                List.of("--wait", "exec", "--nodes", dead, "--name", "x", "--wait", huge, "--", "true"),
                List.of(
                        "--wait",
                        "exec",
                        "--nodes",
                        dead,
                        "--name",
                        "x",
                        "--wait",
                        "99999999999999999999999d",
                        "--",
                        "true"),
                List.of("--lease", "check", "--nodes", dead, "--lease", huge),
                List.of("--node-timeout", "status", "--nodes", dead, "--node-timeout", huge, "x"),
                List.of("--connect-timeout", "status", "--nodes", dead, "--connect-timeout", huge, "x"),
                List.of("--duration", "chaos", "--duration", huge),
                List.of("--duration", "chaos", "--duration", "PT99999999999999999999S"));
        for (List<String> c : cases) {
            Cli.Result r = Cli.run(
                    Duration.ofSeconds(20), Map.of(), c.subList(1, c.size()).toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), () -> c + "\n" + r);
            assertTrue(r.err().contains("'" + c.get(0) + "'") && r.err().contains(" to "), () -> c + "\n" + r);
            assertFalse(r.err().contains("overflow") || r.err().contains("Exception"), () -> c + "\n" + r);
        }
        // The upper bounds themselves are accepted: the dead node is what fails.
        Cli.Result bounds = Cli.run(
                "exec", "--nodes", dead, "--name", "x", "--grace", "1h", "--lease", "7d", "--wait", "0s", "--", "true");
        assertEquals(ExitCodes.NOT_ENOUGH_NODES, bounds.exit(), bounds::toString);
    }

    /** A bare 0 is a duration (the help says "--wait 0 tries once"); other numbers still need a unit. */
    @Test
    void waitZeroTriesOnce() throws Exception {
        String dead = "redis://127.0.0.1:1";
        Cli.Result zero = Cli.run("exec", "--nodes", dead, "--name", "x", "--wait", "0", "--json", "--", "true");
        assertEquals(ExitCodes.NOT_ENOUGH_NODES, zero.exit(), zero::toString);
        assertEquals(1, zero.lastJsonEvent().get("rounds").asInt(), zero::toString);

        Cli.Result five = Cli.run("exec", "--nodes", dead, "--name", "x", "--wait", "5", "--", "true");
        assertEquals(ExitCodes.USAGE, five.exit(), five::toString);
        assertTrue(five.err().contains("--wait") && five.err().contains("not a duration"), five::toString);

        Cli.Result lease = Cli.run("exec", "--nodes", dead, "--name", "x", "--lease", "0", "--", "true");
        assertEquals(ExitCodes.USAGE, lease.exit(), lease::toString);
        assertTrue(lease.err().contains("--lease") && lease.err().contains("1ms to 7d"), lease::toString);
    }

    /**
     * A configuration the library refuses exits 64 in every command, naming the option that is actually wrong (both,
     * when a rule spans two).
     */
    @Test
    void configurationErrorsNameTheOptionThatIsWrong() throws Exception {
        String dup = "redis://h1:1,redis://H1:1";
        String three = "redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3";
        String nodes = "option '--nodes': ";
        String timeout = "option '--node-timeout': ";
        String both = "option '--node-timeout' (perNodeTimeout) or '--lease' (leaseTime): ";
        String lease = "option '--lease' (leaseTime) or '--node-timeout' (perNodeTimeout): ";
        String perLock = "option '--nodes-per-lock': ";
        List<List<String>> cases = List.of(
                List.of(perLock, "status", "--nodes", three, "--nodes-per-lock", "2", "x"),
                List.of(
                        "option '--nodes-per-lock' (nodesPerLock) or '--nodes' (nodes): ",
                        "exec",
                        "--nodes",
                        three,
                        "--nodes-per-lock",
                        "5",
                        "--name",
                        "x",
                        "--",
                        "true"),
                List.of(nodes, "status", "--nodes", dup, "x"),
                List.of(nodes, "exec", "--nodes", dup, "--name", "x", "--", "true"),
                List.of(nodes, "check", "--nodes", dup),
                List.of(nodes, "status", "--nodes", "redis://h1:notaport", "x"),
                List.of(timeout, "status", "--nodes", three, "--node-timeout", "40s", "x"),
                List.of(both, "exec", "--nodes", three, "--name", "x", "--node-timeout", "40s", "--", "true"),
                List.of(both, "check", "--nodes", three, "--node-timeout", "40s"),
                List.of(both, "exec", "--nodes", three, "--name", "x", "--lease", "200ms", "--", "true"),
                List.of(lease, "exec", "--nodes", three, "--name", "x", "--lease", "252ms", "--", "true"));
        for (List<String> c : cases) {
            Cli.Result r = Cli.run(c.subList(1, c.size()).toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), () -> c + "\n" + r);
            assertTrue(r.err().startsWith("redlock: Invalid value for " + c.get(0)), () -> c + "\n" + r);
            assertFalse(r.err().contains("Exception"), () -> c + "\n" + r);
        }
    }

    /**
     * An unknown option is what gets reported, also when exec took it for the start of the command and so never saw
     * the --name after it.
     */
    @Test
    void unknownOptionsAreReportedBeforeMissingOnes() throws Exception {
        Cli.Result r = Cli.run("exec", "--nodes", "redis://127.0.0.1:1", "--ttl", "5s", "--name", "x", "--", "true");
        assertEquals(ExitCodes.USAGE, r.exit(), r::toString);
        assertTrue(r.err().contains("'--ttl'"), r::toString);
        assertFalse(r.err().contains("Missing required option"), r::toString);

        Cli.Result status = Cli.run("status", "--bogus", "x");
        assertEquals(ExitCodes.USAGE, status.exit(), status::toString);
        assertTrue(status.err().contains("'--bogus'"), status::toString);
    }

    /**
     * {@code check} exits 69 when no lock can be had: a majority of the nodes down, or wrong credentials everywhere
     * (named as such, not as "not reachable"). Seen failing before: exit 0 ("OK") in both cases.
     */
    @Test
    void checkExitsUnavailableWithoutAQuorumAndNamesWrongCredentials() throws Exception {
        try (RedisNodes up = RedisNodes.start(2)) {
            List<String> uris = new java.util.ArrayList<>(up.uris());
            for (int i = 0; i < 3; i++) {
                try (java.net.ServerSocket s =
                        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                    uris.add("redis://127.0.0.1:" + s.getLocalPort());
                }
            }
            Cli.Result down = Cli.run(Duration.ofSeconds(60), Map.of(), "check", "--nodes", String.join(",", uris));
            assertEquals(ExitCodes.NOT_ENOUGH_NODES, down.exit(), down::toString);
            // 2 of 5 at most: the two fresh servers may still be within restart protection.
            assertTrue(down.out().contains("NO QUORUM: no lock can be acquired now: "), down::toString);
            assertTrue(down.out().contains("of 5 nodes can take part, and a RedLock needs 3"), down::toString);

            String secret = "not-the-password";
            String wrong =
                    "redis://nobody:" + secret + "@127.0.0.1:" + up.get(0).port() + ",redis://nobody:" + secret
                            + "@127.0.0.1:" + up.get(1).port() + "," + uris.get(2);
            Cli.Result auth = Cli.run(Duration.ofSeconds(60), Map.of(), "check", "--nodes", wrong, "--json");
            assertEquals(ExitCodes.NOT_ENOUGH_NODES, auth.exit(), auth::toString);
            assertTrue(auth.out().contains("authentication failed"), auth::toString);
            assertTrue(auth.out().contains("\"quorum\":false"), auth::toString);
            assertFalse(auth.out().contains(secret) || auth.err().contains(secret), auth::toString);
        }
    }

    @Test
    void passwordsNeverAppearInOutput() throws Exception {
        String secret = "s3cret-pw";
        Cli.Result badUri = Cli.run("status", "--nodes", "redis://:" + secret + "@127.0.0.1:notaport", "x");
        assertEquals(ExitCodes.USAGE, badUri.exit(), badUri::toString);
        assertFalse(badUri.out().contains(secret) || badUri.err().contains(secret), badUri::toString);

        try (RedisNodes nodes = RedisNodes.start(1)) {
            String uri = "redis://:" + secret + "@127.0.0.1:" + nodes.get(0).port();
            for (String[] args : List.of(
                    new String[] {"status", "--nodes", uri, "x", "--json"},
                    new String[] {"check", "--nodes", uri, "--json"},
                    new String[] {"exec", "--nodes", uri, "--name", "x", "--wait", "0s", "--json", "--", "true"})) {
                Cli.Result r = Cli.run(Duration.ofSeconds(30), Map.of("REDLOCK_LOG", "debug"), args);
                assertFalse(r.out().contains(secret) || r.err().contains(secret), r::toString);
            }
        }
    }

    /**
     * A password may hold '/', '@' or (quoted) a space: whatever echoes the URI back (an unmatched argument, an invalid
     * value, a malformed node) masks everything between the scheme and the URI's last '@'.
     */
    @Test
    void passwordsWithSlashesAtSignsOrSpacesNeverAppearInErrors() throws Exception {
        Map<String, List<String>> secrets = Map.of(
                "redis://:My/Secret@10.0.0.1:6379", List.of("Secret"),
                "redis://:p@ssw0rd@10.0.0.1:6379", List.of("ssw0rd", ":p@"),
                "redis://:pass word@10.0.0.1", List.of("pass word", ":pass"),
                "REDISS://admin:Top/S3cret@10.0.0.1", List.of("S3cret", "Top/"));
        for (Map.Entry<String, List<String>> e : secrets.entrySet()) {
            String uri = e.getKey();
            for (String[] args : List.of(
                    new String[] {"status", "x", uri},
                    new String[] {"status", "--nodes", uri, "x"},
                    new String[] {"status", "--nodes", "redis://127.0.0.1:1," + uri, "x"},
                    new String[] {"status", "--nodes", "redis://127.0.0.1:1", "--node-timeout", uri, "x"},
                    new String[] {"exec", "--nodes", "redis://127.0.0.1:1", "--name", "x", "--bogus", uri, "--", "true"
                    },
                    new String[] {"check", "--nodes", "redis://127.0.0.1:1", uri})) {
                Cli.Result r = Cli.run(args);
                assertEquals(ExitCodes.USAGE, r.exit(), r::toString);
                for (String secret : e.getValue()) {
                    assertFalse(r.out().contains(secret) || r.err().contains(secret), () -> secret + " shown:\n" + r);
                }
            }
        }
    }

    /** Healthy independent masters with the default settings: nothing unsafe, exit 0, as parseable JSON. */
    @Test
    void checkPassesOnHealthyNodes() throws Exception {
        try (RedisNodes nodes = RedisNodes.start(3)) {
            String[] args = {
                "check", "--nodes", String.join(",", nodes.uris()), "--lease", "2s", "--node-timeout", "100ms", "--json"
            };
            // Freshly started: restart protection keeps their votes out for a lease (plus drift and two timeouts).
            Cli.Result fresh = Cli.run(args);
            assertEquals(ExitCodes.NOT_ENOUGH_NODES, fresh.exit(), fresh::toString);
            JsonNode doc = Cli.JSON.readTree(fresh.out());
            assertTrue(doc.get("safe").asBoolean(), fresh::toString);
            assertFalse(doc.get("quorum").asBoolean(), fresh::toString);
            assertTrue(doc.get("quarantined").toString().contains("restart protection"), fresh::toString);
            // Then, by itself, the setup passes.
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> Cli.run(args).exit() == ExitCodes.OK);
            Cli.Result r = Cli.run(args);
            assertEquals(0, r.exit(), r::toString);
            assertTrue(Cli.JSON.readTree(r.out()).get("safe").asBoolean(), r::toString);
            assertTrue(Cli.JSON.readTree(r.out()).get("quorum").asBoolean(), r::toString);
        }
    }

    /** The same server under two names is unsafe: exit 1 and a warning naming both, as parseable JSON. */
    @Test
    void checkFindsTheSameServerTwice() throws Exception {
        try (RedisNodes nodes = RedisNodes.start(2)) {
            RedisServer a = nodes.get(0);
            String list = a.uri() + ",redis://localhost:" + a.port() + ","
                    + nodes.get(1).uri();
            Cli.Result r = Cli.run("check", "--nodes", list, "--json");
            assertEquals(ExitCodes.FINDINGS, r.exit(), r::toString);
            JsonNode doc = Cli.JSON.readTree(r.out());
            assertFalse(doc.get("safe").asBoolean());
            assertTrue(doc.get("warnings").toString().contains("same Redis server"), r::toString);

            Cli.Result text = Cli.run("check", "--nodes", list);
            assertEquals(ExitCodes.FINDINGS, text.exit(), text::toString);
            assertTrue(text.out().contains("UNSAFE"), text::toString);
        }
    }
}
