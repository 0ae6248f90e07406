/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.redlock.testkit.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the packaged {@code redlock-cli.jar} as a separate process, as a user would. */
final class Cli {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Path JAR = Path.of(System.getProperty("redlock.cli.jar", "target/redlock-cli.jar"));
    static final Path WORK = Path.of("target", "cli-it");
    static final Path LAUNCHER = Path.of(System.getProperty("redlock.cli.launcher", "src/main/dist/redlock"));

    /** A finished run. */
    record Result(int exit, String out, String err) {

        /** The last line of standard error that is a JSON object. */
        JsonNode lastJsonEvent() throws IOException {
            String last = null;
            for (String line : err.split("\n")) {
                if (line.startsWith("{")) {
                    last = line;
                }
            }
            if (last == null) {
                throw new AssertionError("no JSON line on stderr: " + err);
            }
            return JSON.readTree(last);
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** A started run. */
    record Running(Process process, Path out, Path err) {

        Result await(Duration timeout) throws InterruptedException, IOException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor();
                throw new AssertionError("redlock did not finish within " + timeout + ":\n" + Files.readString(out)
                        + Files.readString(err));
            }
            return new Result(
                    process.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        }
    }

    private Cli() {}

    static Running start(Map<String, String> env, String... args) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR + " is missing: the tests run the packaged jar (mvn verify)");
        }
        List<String> cmd = new ArrayList<>(
                List.of(javaBinary(), "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        return launch(cmd, env);
    }

    /** Starts {@code cmd} with its output in files under {@link #WORK}, no input, and no REDLOCK_NODES but env's. */
    private static Running launch(List<String> cmd, Map<String, String> env) throws IOException {
        Files.createDirectories(WORK);
        Path out = Files.createTempFile(WORK, "out-", ".txt");
        Path err = Files.createTempFile(WORK, "err-", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().remove("REDLOCK_NODES");
        pb.environment().putAll(env);
        return new Running(pb.start(), out, err);
    }

    static Result run(Duration timeout, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return start(env, args).await(timeout);
    }

    static Result run(String... args) throws IOException, InterruptedException {
        return run(Duration.ofSeconds(60), Map.of(), args);
    }

    /**
     * Runs redlock through {@code sh -c}, with {@code args} as shell words after the program: a test can pass bytes
     * that its own JVM might not encode, such as {@code "$(printf 'caf\\303\\251')"}.
     *
     * @param launcher run the launcher script {@code src/main/dist/redlock} instead of {@code java -jar}
     */
    static Result sh(Duration timeout, Map<String, String> env, boolean launcher, String args)
            throws IOException, InterruptedException {
        List<String> cmd = launcher
                ? List.of("sh", "-c", "exec \"$0\" " + args, LAUNCHER.toString())
                : List.of(
                        "sh",
                        "-c",
                        "exec \"$0\" -XX:TieredStopAtLevel=1 -Xshare:auto -jar \"$1\" " + args,
                        javaBinary(),
                        JAR.toString());
        Map<String, String> all = new java.util.HashMap<>();
        all.put("JAVA_HOME", System.getProperty("java.home"));
        all.put("REDLOCK_CLI_JAR", JAR.toAbsolutePath().toString());
        all.putAll(env);
        return launch(cmd, all).await(timeout);
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static String nodes(List<RedisServer> servers) {
        return String.join(",", servers.stream().map(RedisServer::uri).toList());
    }

    /**
     * Waits until every server has been up longer than {@code lease} plus a margin: a client's restart protection
     * does not count the vote of a node up for less than the longest lease in use.
     */
    static void awaitOlderThan(List<RedisServer> servers, Duration lease) {
        long needed = lease.toSeconds() + 2;
        await().atMost(Duration.ofSeconds(needed + 10))
                .pollInterval(Duration.ofMillis(200))
                .alias("nodes up for " + needed + " s")
                .until(() -> servers.stream().allMatch(s -> uptimeSeconds(s) >= needed));
    }

    private static long uptimeSeconds(RedisServer s) {
        try (var jedis = s.client()) {
            for (String line : jedis.info("server").split("\r?\n")) {
                if (line.startsWith("uptime_in_seconds:")) {
                    return Long.parseLong(
                            line.substring("uptime_in_seconds:".length()).trim());
                }
            }
        }
        return 0;
    }

    static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file).trim() : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
