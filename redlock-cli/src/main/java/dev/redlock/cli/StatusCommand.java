/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.HolderIdentity;
import dev.redlock.LockInfo;
import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code redlock status NAME}: who holds a lock, on which nodes, for how much longer. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Show who holds a lock and for how much longer.",
            "",
            "Prints the holder's token (first 8 characters), who it is (host, process id, client name, and for a "
                    + "lease held a second or more its thread and since when), the remaining TTL on each node and "
                    + "the quorum view. A snapshot for operators, stale as soon as it is printed.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the nodes answered (locked or not: see the output)",
            "64:bad arguments",
            "69:too few nodes answered to know whether the lock is held"
        })
public final class StatusCommand implements Callable<Integer> {

    @Mixin
    NodeOptions nodes;

    @Parameters(
            index = "0",
            paramLabel = "NAME",
            converter = LockNameConverter.class,
            description = "The lock's name: not blank; a non-ASCII name needs a UTF-8 locale.")
    String name;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the command; picocli fills it in. */
    public StatusCommand() {}

    /**
     * Reads the lock on every node and prints it.
     *
     * @return {@link ExitCodes#OK}, or {@link ExitCodes#NOT_ENOUGH_NODES} when fewer than a quorum answered
     */
    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        RedlockConfig config = nodes.config(b -> b.clientName(LockChoice.clientName("status", null)));
        RedlockClient created;
        try {
            created = RedlockClient.create(config);
        } catch (IllegalArgumentException e) {
            throw NodeOptions.invalid(spec.commandLine(), e);
        }
        try (RedlockClient client = created) {
            LockInfo info;
            try {
                info = client.inspect(name);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Invalid NAME: " + e.getMessage());
            }
            int total = info.nodes().size();
            int quorum = total / 2 + 1;
            int answered = 0;
            int voting = 0;
            Map<String, String> protection = client.restartProtection();
            List<Map<String, Object>> perNode = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                NodeOutcome o = info.nodes().get(i);
                boolean ok = o.status() == NodeStatus.TAKEN || o.status() == NodeStatus.ALREADY_EXPIRED;
                String waiting = protection.get(o.node());
                if (ok) {
                    answered++;
                    voting += waiting == null ? 1 : 0;
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("node", Secrets.mask(o.node()));
                m.put(
                        "status",
                        o.status() == NodeStatus.TAKEN
                                ? "held"
                                : ok ? "free" : o.status().name());
                m.put("holder", info.holders().get(i).orElse(null));
                m.put("ttlMs", o.holderTtl().map(d -> d.toMillis()).orElse(null));
                o.error().ifPresent(e -> m.put("error", Secrets.mask(String.valueOf(e.getMessage()))));
                m.put("restartProtection", waiting == null ? null : Secrets.mask(waiting));
                perNode.add(m);
            }
            boolean known = answered >= quorum || info.locked();
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("name", name);
            doc.put("locked", info.locked());
            doc.put("holder", info.holder().orElse(null));
            doc.put(
                    "holderIdentity",
                    info.holderIdentity().map(StatusCommand::identity).orElse(null));
            doc.put("holdingNodes", info.holdingNodes());
            doc.put("quorum", quorum);
            doc.put("nodesTotal", total);
            doc.put("nodesAnswered", answered);
            doc.put("nodesVoting", voting);
            doc.put("remainingMs", info.remaining().map(d -> d.toMillis()).orElse(null));
            doc.put("nodes", perNode);
            if (json) {
                Json.println(out, doc);
            } else {
                printTable(out, info, perNode, quorum, answered, known);
                if (answered >= quorum && voting < quorum) {
                    out.printf(
                            "no lock can be had now: only %d of %d nodes vote (a quorum is %d); the others are "
                                    + "within restart protection:%n",
                            voting, total, quorum);
                }
                for (Map<String, Object> m : perNode) {
                    if (m.get("restartProtection") != null) {
                        out.printf("  WAIT %s: %s%n", m.get("node"), m.get("restartProtection"));
                    }
                }
                out.flush();
            }
            return known ? ExitCodes.OK : ExitCodes.NOT_ENOUGH_NODES;
        }
    }

    /** A holder's identity as JSON fields. */
    static Map<String, Object> identity(HolderIdentity id) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", id.host());
        m.put("pid", id.pid());
        m.put("clientName", id.clientName());
        m.put("thread", id.thread().orElse(null));
        m.put("since", id.since().map(Object::toString).orElse(null));
        return m;
    }

    private void printTable(
            PrintWriter out,
            LockInfo info,
            List<Map<String, Object>> perNode,
            int quorum,
            int answered,
            boolean known) {
        int total = perNode.size();
        if (info.locked()) {
            out.printf(
                    "lock '%s': HELD by %s… on %d of %d nodes (quorum %d), at most %s left%n",
                    name,
                    info.holder().orElseThrow(),
                    info.holdingNodes(),
                    total,
                    quorum,
                    info.remaining().map(d -> d.toMillis() + " ms").orElse("an unknown time"));
            info.holderIdentity().ifPresent(id -> out.printf("  holder: %s%n", id.describe()));
        } else if (known) {
            out.printf(
                    "lock '%s': FREE (no holder on a quorum of %d of %d nodes; most widespread on %d)%n",
                    name, quorum, total, info.holdingNodes());
        } else {
            out.printf(
                    "lock '%s': UNKNOWN (only %d of %d nodes answered; a quorum is %d)%n",
                    name, answered, total, quorum);
        }
        int width = 4;
        for (Map<String, Object> m : perNode) {
            width = Math.max(width, String.valueOf(m.get("node")).length());
        }
        out.printf("  %-" + width + "s  %-16s  %-9s  %s%n", "node", "status", "holder", "ttl");
        for (Map<String, Object> m : perNode) {
            Object ttl = m.get("ttlMs");
            String status = String.valueOf(m.get("status"));
            if (m.containsKey("error")) {
                status += " (" + m.get("error") + ")";
            }
            out.printf(
                    "  %-" + width + "s  %-16s  %-9s  %s%n",
                    m.get("node"),
                    status,
                    Optional.ofNullable(m.get("holder")).map(h -> h + "…").orElse("-"),
                    ttl == null ? "-" : ttl + " ms");
        }
        out.flush();
    }
}
