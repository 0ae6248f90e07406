package dev.redlock.cli;

import dev.redlock.RedlockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The options that say which Redis masters to talk to, shared by the commands that use existing nodes. */
public final class NodeOptions {

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
     * Starts a client configuration for these nodes; topology checks at creation are off (the {@code check} command
     * runs them on demand).
     *
     * @return a builder with the nodes and timeouts set
     * @throws CommandLine.ParameterException naming {@code --nodes} (or the timeout option) when a value is invalid;
     *     the message never shows a password
     */
    public RedlockConfig.Builder configBuilder() {
        List<String> uris = uris();
        try {
            return RedlockConfig.builder()
                    .nodes(uris)
                    .perNodeTimeout(nodeTimeout)
                    .connectTimeout(connectTimeout)
                    .checkTopology(false);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Invalid --nodes or timeout: " + Secrets.mask(e.getMessage()));
        }
    }
}
