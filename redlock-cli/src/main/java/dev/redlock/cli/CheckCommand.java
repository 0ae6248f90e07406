/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.TopologyReport;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code redlock check}: the topology report of the nodes, failing when the setup is unsafe for Redlock. */
@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Check that the nodes are safe for Redlock.",
            "",
            "Inspect the nodes for setups under which Redlock's guarantees do not hold: replicas, the same "
                    + "server configured twice, an eviction policy that can drop lock keys, persistence and identity "
                    + "(restart protection), scripts or commands the library needs but a node refuses, an even or too "
                    + "small number of nodes, and a lease too short for the per-node timeout.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:nothing unsafe found (nodes that could not be checked are listed as notes)",
            "1:something is unsafe (or, with --strict, a node could not be checked)",
            "64:bad arguments",
            "69:no lock can be acquired now: fewer than a majority of the nodes can take part (not reachable, "
                    + "authentication failed, unable to vote or release, or within restart protection)"
        })
public final class CheckCommand implements Callable<Integer> {

    @Mixin
    NodeOptions nodes;

    @Option(
            names = "--lease",
            paramLabel = "DURATION",
            converter = DurationConverter.Lease.class,
            defaultValue = "30s",
            description = "The lease time the applications use, checked against the per-node timeout "
                    + "(1ms to 7d; default: ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(
            names = "--strict",
            description =
                    "Fail also when a node could not be checked (unreachable, or it " + "refuses CONFIG or INFO).")
    boolean strict;

    @Option(names = "--json", description = "Print one JSON object instead of the text report.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the command; picocli fills it in. */
    public CheckCommand() {}

    /**
     * Runs the topology check and prints the report.
     *
     * @return {@link ExitCodes#FINDINGS} when something is unsafe, else {@link ExitCodes#NOT_ENOUGH_NODES} when fewer
     *     than a majority of the nodes can take part, {@link ExitCodes#OK} otherwise
     */
    @Override
    public Integer call() {
        // The report is printed below; the client's own log lines of it would only repeat it.
        System.setProperty("org.slf4j.simpleLogger.log.dev.redlock.RedlockClient", "off");
        RedlockConfig config = nodes.config(b -> b.leaseTime(lease));
        TopologyReport report;
        try (RedlockClient client = create(config)) {
            report = client.check();
        }
        List<String> failures = mask(report.failures());
        List<String> warnings = new ArrayList<>();
        for (String p : report.problems()) {
            if (!report.failures().contains(p)) {
                warnings.add(Secrets.mask(p));
            }
        }
        List<String> unchecked = mask(report.unchecked());
        boolean unsafe = !report.problems().isEmpty() || (strict && !unchecked.isEmpty());
        String noQuorum = report.noQuorum().map(Secrets::mask).orElse(null);
        List<String> quarantined = mask(report.quarantined());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("nodes", mask(config.nodeNames()));
            doc.put("safe", !unsafe);
            doc.put("quorum", noQuorum == null);
            if (noQuorum != null) {
                doc.put("noQuorum", noQuorum);
            }
            doc.put("failures", failures);
            doc.put("warnings", warnings);
            doc.put("unchecked", unchecked);
            doc.put("quarantined", quarantined);
            Json.println(out, doc);
        } else {
            out.printf(
                    "checked %d nodes: %s%n", config.nodeNames().size(), String.join(", ", mask(config.nodeNames())));
            failures.forEach(f -> out.println("FAIL  " + f));
            warnings.forEach(w -> out.println("WARN  " + w));
            unchecked.forEach(u -> out.println("NOTE  " + u));
            quarantined.forEach(q -> out.println("WAIT  " + q));
            if (noQuorum != null) {
                out.println("NO QUORUM: " + noQuorum);
            }
            out.println(
                    noQuorum != null && !unsafe
                            ? "UNAVAILABLE: no lock can be acquired now"
                            : unsafe
                                    ? "UNSAFE: " + (failures.size() + warnings.size() + (strict ? unchecked.size() : 0))
                                            + " finding(s)"
                                    : "OK: nothing unsafe found");
            out.flush();
        }
        // Something unsafe is a setup to fix; a missing quorum may pass (nodes come back, restart protection ends).
        return unsafe ? ExitCodes.FINDINGS : noQuorum != null ? ExitCodes.NOT_ENOUGH_NODES : ExitCodes.OK;
    }

    private RedlockClient create(RedlockConfig config) {
        try {
            return RedlockClient.create(config);
        } catch (IllegalArgumentException e) {
            throw NodeOptions.invalid(spec.commandLine(), e);
        }
    }

    private static List<String> mask(List<String> lines) {
        List<String> masked = new ArrayList<>();
        lines.forEach(l -> masked.add(Secrets.mask(l)));
        return masked;
    }
}
