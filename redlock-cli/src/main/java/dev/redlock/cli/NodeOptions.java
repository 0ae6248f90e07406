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
            "leaseTime", "--lease");

    /** The start of a configuration error: {@code field: } or {@code field[i]: }. */
    private static final Pattern FIELD = Pattern.compile("([A-Za-z]+)(\\[\\d+])?: ");

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = "--nodes",
            split = ",",
            paramLabel = "URI",
            defaultValue = "${env:REDLOCK_NODES}",
            description = "The independent Redis masters, comma-separated redis://[user:password@]host[:port][/db] "
                    + "or rediss:// URIs (default: $REDLOCK_NODES). Use an odd number, at least 3.")
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

    /** Creates the options; picocli fills them in. */
    public NodeOptions() {}

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
