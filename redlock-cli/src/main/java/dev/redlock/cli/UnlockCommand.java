/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

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
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code redlock unlock --force NAME}: deletes a lock whoever holds it, the administrator's way out. */
@Command(
        name = "unlock",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Delete a lock whoever holds it (needs --force).",
            "",
            "For a holder known to be gone or stuck: a holder releases its own lock when its command ends. The "
                    + "holder seen on each node is deleted there, so a holder that took the lock since is left "
                    + "alone. The old holder learns it at its next extension and is stopped (redlock exec exits 76); "
                    + "one with a fixed lease believes it holds until its lease ends, so protect the resource with "
                    + "fencing tokens, which keep increasing.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the lock is no longer held on a majority of the nodes (or was not held)",
            "64:bad arguments, or --force missing",
            "69:too few nodes answered: the lock may still be held"
        })
public final class UnlockCommand implements Callable<Integer> {

    @Mixin
    NodeOptions nodes;

    @Parameters(index = "0", paramLabel = "NAME", converter = LockNameConverter.class, description = "The lock's name.")
    String name;

    @Option(names = "--force", description = "Confirm: delete the lock whoever holds it.")
    boolean force;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the command; picocli fills it in. */
    public UnlockCommand() {}

    /**
     * Deletes the lock on every node that answers.
     *
     * @return {@link ExitCodes#OK}, or {@link ExitCodes#NOT_ENOUGH_NODES} when fewer than a quorum answered
     */
    @Override
    public Integer call() {
        if (!force) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "unlock deletes lock '" + name + "' whoever holds it; add --force to confirm (see redlock "
                            + "status " + name + " for who holds it)");
        }
        PrintWriter out = spec.commandLine().getOut();
        RedlockConfig config = nodes.config(b -> b.clientName(LockChoice.clientName("unlock", null)));
        RedlockClient created;
        try {
            created = RedlockClient.create(config);
        } catch (IllegalArgumentException e) {
            throw NodeOptions.invalid(spec.commandLine(), e);
        }
        try (RedlockClient client = created) {
            LockInfo before;
            List<NodeOutcome> deleted;
            try {
                before = client.inspect(name);
                deleted = client.forceUnlock(name);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "Invalid NAME: " + e.getMessage());
            }
            int answered = 0;
            int removed = 0;
            List<Map<String, Object>> perNode = new ArrayList<>();
            for (NodeOutcome o : deleted) {
                boolean ok = o.status() == NodeStatus.RELEASED
                        || o.status() == NodeStatus.ALREADY_EXPIRED
                        || o.status() == NodeStatus.OWNED_BY_ANOTHER;
                answered += ok ? 1 : 0;
                removed += o.status() == NodeStatus.RELEASED ? 1 : 0;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("node", Secrets.mask(o.node()));
                m.put(
                        "result",
                        switch (o.status()) {
                            case RELEASED -> "deleted";
                            case ALREADY_EXPIRED -> "not held";
                            case OWNED_BY_ANOTHER -> "a new holder since: left alone";
                            default -> o.status().name();
                        });
                o.error().ifPresent(e -> m.put("error", Secrets.mask(String.valueOf(e.getMessage()))));
                perNode.add(m);
            }
            int quorum = deleted.size() / 2 + 1;
            boolean done = answered >= quorum;
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("name", name);
                doc.put("holder", before.holder().orElse(null));
                doc.put(
                        "holderIdentity",
                        before.holderIdentity().map(StatusCommand::identity).orElse(null));
                doc.put("deletedOn", removed);
                doc.put("nodesAnswered", answered);
                doc.put("nodesTotal", deleted.size());
                doc.put("nodes", perNode);
                Json.println(out, doc);
            } else {
                out.printf(
                        "lock '%s': %s; deleted on %d of %d nodes%n",
                        name,
                        before.holder()
                                .map(h -> "holder " + h + "…"
                                        + before.holderIdentity()
                                                .map(id -> " (" + id.describe() + ")")
                                                .orElse(""))
                                .orElse("no holder on a majority"),
                        removed,
                        deleted.size());
                for (Map<String, Object> m : perNode) {
                    out.printf(
                            "  %s  %s%s%n",
                            m.get("node"), m.get("result"), m.containsKey("error") ? " (" + m.get("error") + ")" : "");
                }
                if (!done) {
                    out.printf(
                            "only %d of %d nodes answered: the lock may still be held there until its TTL ends%n",
                            answered, deleted.size());
                }
                out.flush();
            }
            return done ? ExitCodes.OK : ExitCodes.NOT_ENOUGH_NODES;
        }
    }
}
