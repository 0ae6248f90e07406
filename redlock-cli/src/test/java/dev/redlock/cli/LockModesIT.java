/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.redlock.testkit.RedisNodes;
import dev.redlock.testkit.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command line on par with flock and etcdctl: shell strings, shared and counted locks, hold, forced unlock, the busy
 * status, short options, passwords kept out of the process list, and a command that dies with redlock. Through the
 * packaged jar against three real masters.
 */
class LockModesIT {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration T = Duration.ofSeconds(30);
    private static RedisNodes nodes;
    private static String uris;

    @BeforeAll
    static void startNodes() {
        nodes = RedisNodes.start(3);
        uris = Cli.nodes(nodes.servers());
        Cli.awaitOlderThan(nodes.servers(), LEASE);
    }

    @AfterAll
    static void stopNodes() {
        if (nodes != null) {
            nodes.close();
        }
    }

    @Test
    void aShellStringRunsUnderTheLock() throws Exception {
        Cli.Result r = Cli.run(
                T,
                Map.of(),
                "exec",
                "--nodes",
                uris,
                "-k",
                "shell",
                "-l",
                "2s",
                "-c",
                "echo \"held $REDLOCK_NAME\"; exit 3");
        assertEquals(3, r.exit(), r::toString);
        assertTrue(r.out().contains("held shell"), r::toString);

        Cli.Result both = Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "shell", "-c", "true", "--", "true");
        assertEquals(ExitCodes.USAGE, both.exit(), both::toString);
        assertTrue(both.err().contains("not both"), both::toString);
        Cli.Result none = Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "shell");
        assertEquals(ExitCodes.USAGE, none.exit(), none::toString);
    }

    /** A Sentinel-managed master is one entry of --nodes, although its sentinels are separated by commas too. */
    @Test
    void aSentinelManagedMasterIsOneNode() throws Exception {
        try (dev.redlock.testkit.RedisSentinelGroup group = dev.redlock.testkit.RedisSentinelGroup.start("cli", 1, 3)) {
            String mixed = group.sentinelUri() + "," + Cli.nodes(nodes.servers().subList(0, 2));
            // The fresh master waits out restart protection: a lock wait longer than that.
            Cli.Result r = Cli.run(
                    T, Map.of(), "exec", "--nodes", mixed, "-k", "sentinel", "-l", "2s", "-w", "20s", "--", "true");
            assertEquals(0, r.exit(), r::toString);
            Cli.Result status = Cli.run(T, Map.of(), "status", "--nodes", mixed, "sentinel");
            assertTrue(status.out().contains("cli(127.0.0.1:"), status::toString);
            assertFalse(
                    status.out()
                            .contains("127.0.0.1:" + group.sentinels().get(1).port() + " "),
                    status::toString);
        }
    }

    @Test
    void aRedisClusterIsTheWholeQuorum() throws Exception {
        try (dev.redlock.testkit.RedisClusterGroup cluster = dev.redlock.testkit.RedisClusterGroup.start(3, 0)) {
            // The fresh masters wait out restart protection: a lock wait longer than that.
            Cli.Result r = Cli.run(
                    T,
                    Map.of(),
                    "exec",
                    "--nodes",
                    cluster.seedUri(),
                    "-k",
                    "cluster",
                    "-l",
                    "2s",
                    "-w",
                    "20s",
                    "--",
                    "true");
            assertEquals(0, r.exit(), r::toString);
            Cli.Result status = Cli.run(T, Map.of(), "status", "--nodes", cluster.seedUri(), "cluster");
            assertTrue(status.out().contains("/slot-"), status::toString);
        }
    }

    /** Shared holders run side by side; an exclusive one is busy meanwhile, with the status -E chose. */
    @Test
    void sharedHoldersExcludeOnlyExclusiveOnes() throws Exception {
        Cli.Running reader = Cli.start(Map.of(), "hold", "--nodes", uris, "-k", "rw", "-s", "-l", "2s");
        await().atMost(T).until(() -> Cli.read(reader.out()).equals("-"));

        Cli.Result secondReader =
                Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "rw", "-sn", "-l", "2s", "--", "true");
        assertEquals(0, secondReader.exit(), secondReader::toString);
        Cli.Result writer =
                Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "rw", "-n", "-E", "9", "-l", "2s", "--", "true");
        assertEquals(9, writer.exit(), writer::toString);
        assertTrue(writer.err().contains("busy"), writer::toString);
        Cli.Result badCode = Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "rw", "-E", "0", "--", "true");
        assertEquals(ExitCodes.USAGE, badCode.exit(), badCode::toString);
        Cli.Result sharedFenced = Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "rw", "-s", "-f", "--", "true");
        assertEquals(ExitCodes.USAGE, sharedFenced.exit(), sharedFenced::toString);

        reader.process().destroy(); // SIGTERM: released
        Cli.Result held = reader.await(T);
        assertEquals(0, held.exit(), held::toString);
        Cli.Result writerAfter =
                Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "rw", "-n", "-l", "2s", "--", "true");
        assertEquals(0, writerAfter.exit(), writerAfter::toString);
    }

    /** --permits 2: two holders at once, a third is busy. */
    @Test
    void permitsCountHolders() throws Exception {
        List<Cli.Running> holders = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Cli.Running h = Cli.start(Map.of(), "hold", "--nodes", uris, "-k", "sem", "-p", "2", "-l", "2s");
            holders.add(h);
            await().atMost(T).until(() -> Cli.read(h.out()).matches("\\d+"));
        }
        Cli.Result third =
                Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "sem", "-p", "2", "-n", "-l", "2s", "--", "true");
        assertEquals(ExitCodes.NOT_ACQUIRED, third.exit(), third::toString);
        Cli.Result wrongRange = Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "sem", "-p", "0", "--", "true");
        assertEquals(ExitCodes.USAGE, wrongRange.exit(), wrongRange::toString);
        holders.get(0).process().destroy();
        assertEquals(0, holders.get(0).await(T).exit());
        Cli.Result nowFree =
                Cli.run(T, Map.of(), "exec", "--nodes", uris, "-k", "sem", "-p", "2", "-n", "-l", "2s", "--", "true");
        assertEquals(0, nowFree.exit(), nowFree::toString);
        holders.get(1).process().destroy();
        assertEquals(0, holders.get(1).await(T).exit());
    }

    /**
     * hold prints a fencing token and keeps the lock; status names its host, process and client; unlock needs --force,
     * then frees the lock, and the holder learns it lost the lease (76).
     */
    @Test
    void holdShowsWhoHoldsAndForcedUnlockTakesItAway() throws Exception {
        Cli.Running holder = Cli.start(Map.of(), "hold", "--nodes", uris, "-k", "held", "-l", "2s");
        await().atMost(T).until(() -> Cli.read(holder.out()).matches("\\d+"));
        long token = Long.parseLong(Cli.read(holder.out()));
        assertTrue(token > 0);

        Cli.Result status = Cli.run(T, Map.of(), "status", "--nodes", uris, "held", "--json");
        assertEquals(0, status.exit(), status::toString);
        JsonNode who = Cli.JSON.readTree(status.out()).get("holderIdentity");
        assertEquals(holder.process().pid(), who.get("pid").asLong(), status::toString);
        assertEquals("redlock hold", who.get("clientName").asText(), status::toString);
        assertFalse(who.get("host").asText().isBlank(), status::toString);
        Cli.Result text = Cli.run(T, Map.of(), "status", "--nodes", uris, "held");
        assertTrue(text.out().contains("pid " + holder.process().pid()), text::toString);

        Cli.Result refused = Cli.run(T, Map.of(), "unlock", "--nodes", uris, "held");
        assertEquals(ExitCodes.USAGE, refused.exit(), refused::toString);
        assertTrue(refused.err().contains("--force"), refused::toString);
        Cli.Result forced = Cli.run(T, Map.of(), "unlock", "--nodes", uris, "held", "--force");
        assertEquals(0, forced.exit(), forced::toString);
        assertTrue(forced.out().contains("deleted on 3 of 3 nodes"), forced::toString);
        assertTrue(forced.out().contains("pid " + holder.process().pid()), forced::toString);

        Cli.Result lost = holder.await(T);
        assertEquals(ExitCodes.LEASE_LOST, lost.exit(), lost::toString);
    }

    /**
     * A password comes from REDLOCK_PASSWORD or --password-file, never needs to be on the command line (which warns),
     * and reaches neither output nor the command's environment.
     */
    @Test
    void passwordsStayOutOfTheProcessListAndTheCommand() throws Exception {
        String secret = "Pw-S3cret";
        try (RedisNodes guarded = RedisNodes.start(3, List.of("--requirepass", secret))) {
            String bare = Cli.nodes(guarded.servers());
            Cli.awaitOlderThan(guarded.servers(), LEASE);
            Cli.Result fromEnv = Cli.run(
                    T,
                    Map.of("REDLOCK_PASSWORD", secret),
                    "exec",
                    "--nodes",
                    bare,
                    "-k",
                    "pw",
                    "-l",
                    "2s",
                    "--",
                    "env");
            assertEquals(0, fromEnv.exit(), fromEnv::toString);
            assertFalse(fromEnv.out().contains(secret) || fromEnv.err().contains(secret), fromEnv::toString);
            assertFalse(fromEnv.out().contains("REDLOCK_PASSWORD"), fromEnv::toString);

            Path file = Files.createTempFile(Files.createDirectories(Cli.WORK), "password-", ".txt");
            Files.writeString(file, secret + "\n");
            Cli.Result fromFile =
                    Cli.run(T, Map.of(), "status", "--nodes", bare, "--password-file", file.toString(), "pw", "--json");
            assertEquals(0, fromFile.exit(), fromFile::toString);
            assertFalse(fromFile.out().contains(secret), fromFile::toString);

            Cli.Result wrong = Cli.run(T, Map.of(), "status", "--nodes", bare, "pw");
            assertEquals(ExitCodes.NOT_ENOUGH_NODES, wrong.exit(), wrong::toString);

            List<String> inline = new ArrayList<>();
            for (RedisServer s : guarded.servers()) {
                inline.add("redis://:" + secret + "@127.0.0.1:" + s.port());
            }
            Cli.Result warned = Cli.run(T, Map.of(), "status", "--nodes", String.join(",", inline), "pw");
            assertEquals(0, warned.exit(), warned::toString);
            assertTrue(warned.err().contains("process list"), warned::toString);
            assertFalse(warned.out().contains(secret) || warned.err().contains(secret), warned::toString);
        }
    }

    /** redlock killed with SIGKILL: nothing keeps the lease any more, and the command dies with it. */
    @Test
    void theCommandDiesWithRedlock() throws Exception {
        Path pid = Cli.WORK.resolve("orphan-pid");
        Files.deleteIfExists(pid);
        Cli.Running run = Cli.start(
                Map.of(),
                "exec",
                "--nodes",
                uris,
                "-k",
                "orphan",
                "-l",
                "2s",
                "--",
                "sh",
                "-c",
                "echo $$ > \"$1\"; exec sleep 300",
                "sh",
                pid.toString());
        await().atMost(T).until(() -> Cli.read(pid).matches("\\d+"));
        ProcessHandle child = ProcessHandle.of(Long.parseLong(Cli.read(pid))).orElseThrow();
        run.process().destroyForcibly(); // SIGKILL: no hook runs
        run.process().waitFor();
        await().atMost(Duration.ofSeconds(10)).until(() -> !child.isAlive());
    }

    /** On masters started moments ago, status says that no lock can be had yet, which nodes wait, and for how long. */
    @Test
    void statusSaysWhichNodesDoNotVoteYet() throws Exception {
        try (RedisNodes fresh = RedisNodes.start(3)) {
            String freshUris = Cli.nodes(fresh.servers());
            Cli.Result json = Cli.run(T, Map.of(), "status", "--nodes", freshUris, "anything", "--json");
            assertEquals(0, json.exit(), json::toString);
            JsonNode doc = Cli.JSON.readTree(json.out());
            assertEquals(0, doc.get("nodesVoting").asInt(), json::toString);
            for (JsonNode node : doc.get("nodes")) {
                assertTrue(node.get("restartProtection").asText().contains("restart protection"), json::toString);
            }
            Cli.Result text = Cli.run(T, Map.of(), "status", "--nodes", freshUris, "anything");
            assertTrue(text.out().contains("no lock can be had now"), text::toString);
            assertTrue(text.out().contains("WAIT "), text::toString);
        }
    }

    /** The distribution archive installs as bin/redlock and lib/, and the launcher finds its jar there. */
    @Test
    void theDistributionArchiveRuns() throws Exception {
        Path archive = Path.of(System.getProperty("redlock.cli.dist", "target/none.tar.gz"));
        assertTrue(Files.isRegularFile(archive), "missing " + archive + ": the tests run after package");
        Path into = Files.createTempDirectory(Files.createDirectories(Cli.WORK), "install-");
        Process tar = new ProcessBuilder("tar", "xzf", archive.toAbsolutePath().toString(), "-C", into.toString())
                .inheritIO()
                .start();
        assertEquals(0, tar.waitFor());
        Path launcher;
        try (var dirs = Files.list(into)) {
            launcher = dirs.findFirst().orElseThrow().resolve("bin/redlock");
        }
        assertTrue(Files.isExecutable(launcher), launcher::toString);
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--version").redirectErrorStream(true);
        pb.environment().remove("REDLOCK_CLI_JAR");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.startsWith("redlock "), out);
    }
}
