/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.RedlockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The options that say which Redis masters to talk to, shared by the commands that use existing nodes. */
public final class NodeOptions {

    /** The configuration fields that options set, by the field name that starts the library's messages. */
    private static final Map<String, String> OPTIONS = Map.of(
            "nodes", "--nodes",
            "perNodeTimeout", "--node-timeout",
            "connectTimeout", "--connect-timeout",
            "leaseTime", "--lease",
            "nodesPerLock", "--nodes-per-lock");

    /** The start of a configuration error: {@code field: } or {@code field[i]: }. */
    private static final Pattern FIELD = Pattern.compile("([A-Za-z]+)(\\[\\d+])?: ");

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--nodes",
            // Split only where the next URI starts: Sentinel and Cluster URIs list their servers with commas.
            split = ",(?=\\s*[A-Za-z][A-Za-z0-9+.-]*://)",
            splitSynopsisLabel = ",",
            paramLabel = "URI",
            defaultValue = "${env:REDLOCK_NODES}",
            description = "The independent Redis masters, comma-separated redis://[user:password@]host[:port][/db] "
                    + "or rediss:// URIs, or redis-sentinel://sentinel1[:26379],sentinel2/masterName for a "
                    + "Sentinel-managed master, or one redis-cluster://seed1:7000,seed2:7000/ for a Redis Cluster as the"
                    + " whole quorum (default: $REDLOCK_NODES). Use an odd number, at least 3.")
    List<String> nodes;

    @Option(
            names = "--node-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.NodeTimeout.class,
            defaultValue = "250ms",
            description = "How long a round waits for any one node; a short-lived process "
                    + "opens its connections in the first round, so this is above the library's 50 ms "
                    + "(1ms to 1m, below --lease; default: ${DEFAULT-VALUE}).")
    Duration nodeTimeout;

    @Option(
            names = "--connect-timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.ConnectTimeout.class,
            defaultValue = "1s",
            description = "TCP connect timeout per node (1ms to 5m; default: ${DEFAULT-VALUE}).")
    Duration connectTimeout;

    @Option(
            names = "--nodes-per-lock",
            paramLabel = "N",
            defaultValue = "${env:REDLOCK_NODES_PER_LOCK:-0}",
            description = "How many of the nodes each lock uses, chosen by its name; must match the applications'"
                    + " setting (0: every node; 3 to 99; default: $REDLOCK_NODES_PER_LOCK, else 0).")
    int nodesPerLock;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "Read the password of every node whose URI has none from FILE (its first line); "
                    + "REDLOCK_PASSWORD does the same from the environment. Either keeps the password out of the "
                    + "process list, where --nodes shows it to every user of the machine.")
    java.nio.file.Path passwordFile;

    /** The environment variables the tool reads; {@code exec} takes them out of its command's environment. */
    static final List<String> OWN_VARIABLES =
            List.of("REDLOCK_NODES", "REDLOCK_NODES_PER_LOCK", "REDLOCK_PASSWORD", "REDLOCK_LOG", "REDLOCK_CLI_JAR");

    /** Creates the options; picocli fills them in. */
    public NodeOptions() {}

    /**
     * The password for nodes whose URI has none: from {@code --password-file}, else {@code REDLOCK_PASSWORD}.
     *
     * @return the password, or null if neither gives one
     * @throws CommandLine.ParameterException naming {@code --password-file} when it cannot be read or is empty
     */
    String password() {
        if (passwordFile != null) {
            String text;
            try {
                text = java.nio.file.Files.readString(passwordFile, java.nio.charset.StandardCharsets.UTF_8);
            } catch (java.io.IOException | RuntimeException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--password-file': cannot read " + passwordFile + " ("
                                + e.getClass().getSimpleName() + ")");
            }
            String line = text.lines().findFirst().orElse("");
            if (line.isEmpty()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--password-file': " + passwordFile
                                + " is empty; its first line must be the password");
            }
            return line;
        }
        String env = System.getenv("REDLOCK_PASSWORD");
        return env == null || env.isEmpty() ? null : env;
    }

    /**
     * Puts {@code password} into a node URI that has no password of its own: {@code redis://host} becomes
     * {@code redis://:password@host}, {@code redis://user@host} becomes {@code redis://user:password@host}; the
     * password is percent-encoded.
     */
    static String withPassword(String uri, String password) {
        Matcher m = AUTHORITY.matcher(uri);
        if (password == null || !m.lookingAt()) {
            return uri;
        }
        String userInfo = m.group(2);
        if (userInfo != null && userInfo.contains(":")) {
            return uri; // the URI's own password wins
        }
        String encoded = java.net.URLEncoder.encode(password, java.nio.charset.StandardCharsets.UTF_8)
                .replace("+", "%20");
        String user = userInfo == null ? "" : userInfo;
        return m.group(1) + user + ":" + encoded + "@" + uri.substring(m.end());
    }

    /** A URI's scheme, and its user information (without the '@') if any. */
    private static final Pattern AUTHORITY = Pattern.compile("((?i)rediss?(?:-sentinel|-cluster)?://)(?:([^@/]*)@)?");

    /** Whether {@code --nodes} was typed on the command line (as opposed to taken from REDLOCK_NODES). */
    private boolean nodesOnCommandLine() {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        return parsed != null && parsed.hasMatchedOption("--nodes");
    }

    /**
     * Returns the node URIs given.
     *
     * @return at least one URI
     * @throws CommandLine.ParameterException naming {@code --nodes} when none was given
     */
    public List<String> uris() {
        List<String> uris = new ArrayList<>();
        if (nodes != null) {
            for (String n : nodes) {
                if (!n.isBlank()) {
                    uris.add(n.trim());
                }
            }
        }
        if (uris.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "Missing --nodes: give the Redis masters as --nodes redis://host1:6379,redis://host2:6379,... "
                            + "or set REDLOCK_NODES");
        }
        if (nodesOnCommandLine() && uris.stream().anyMatch(u -> !u.equals(Secrets.mask(u)))) {
            spec.commandLine()
                    .getErr()
                    .println("redlock: warning: a password given in --nodes can be read by every user of this "
                            + "machine in the process list; use REDLOCK_PASSWORD or --password-file instead");
            spec.commandLine().getErr().flush();
        }
        String password = password();
        if (password != null) {
            uris.replaceAll(u -> withPassword(u, password));
        }
        return uris;
    }

    /**
     * Builds the client configuration for these nodes; topology checks at creation are off (the {@code check} command
     * runs them on demand).
     *
     * @param settings the command's own settings (such as the lease time), applied after the nodes and timeouts
     * @return the configuration
     * @throws CommandLine.ParameterException naming the option whose value the library refused; the message never
     *     shows a password
     */
    public RedlockConfig config(UnaryOperator<RedlockConfig.Builder> settings) {
        List<String> uris = uris();
        try {
            return settings.apply(RedlockConfig.builder()
                            .nodes(uris)
                            .perNodeTimeout(nodeTimeout)
                            .connectTimeout(connectTimeout)
                            .nodesPerLock(nodesPerLock)
                            .checkTopology(false))
                    .build();
        } catch (IllegalArgumentException e) {
            throw invalid(spec.commandLine(), e);
        }
    }

    /**
     * Turns a configuration error of the library, which names the field ({@code nodes: duplicate node ...},
     * {@code perNodeTimeout: must be below ...}), into a bad-arguments error naming the option that sets that field.
     *
     * @param commandLine the command whose options were used
     * @param e the library's error
     * @return the error to throw, with the password of any URI masked
     */
    static CommandLine.ParameterException invalid(CommandLine commandLine, IllegalArgumentException e) {
        String message = Secrets.mask(String.valueOf(e.getMessage()));
        Matcher m = FIELD.matcher(message);
        String field = m.lookingAt() ? m.group(1) : null;
        if (!hasOption(commandLine, field)) {
            return new CommandLine.ParameterException(commandLine, "Invalid configuration: " + message);
        }
        // A rule between two settings ("perNodeTimeout: must be below leaseTime") names both options.
        List<String> others = new ArrayList<>();
        for (String other : OPTIONS.keySet()) {
            if (!other.equals(field)
                    && hasOption(commandLine, other)
                    && Pattern.compile("\\b" + other + "\\b").matcher(message).find()) {
                others.add(other);
            }
        }
        if (others.isEmpty()) {
            // "nodes[2]: ..." keeps its index; otherwise the field's name gives way to the option's.
            String detail = m.group(2) != null ? message : message.substring(m.end());
            return new CommandLine.ParameterException(
                    commandLine, "Invalid value for option '" + OPTIONS.get(field) + "': " + detail);
        }
        StringBuilder options = new StringBuilder("'" + OPTIONS.get(field) + "' (" + field + ")");
        for (String other : others) {
            options.append(" or '")
                    .append(OPTIONS.get(other))
                    .append("' (")
                    .append(other)
                    .append(')');
        }
        return new CommandLine.ParameterException(
                commandLine, "Invalid value for option " + options + ": " + message.substring(m.end()));
    }

    private static boolean hasOption(CommandLine commandLine, String field) {
        String option = field == null ? null : OPTIONS.get(field);
        return option != null && commandLine.getCommandSpec().findOption(option) != null;
    }
}
