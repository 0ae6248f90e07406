/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli.chaos;

import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.Op;
import dev.redlock.cli.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files a chaos run leaves behind: {@code history.jsonl} (every operation and fault, as the harness writes it),
 * {@code report.json} (settings, nodes, summary, verdicts, fault schedule, what the timeline shows),
 * {@code timeline.png} and {@code timeline.html} (the picture with the verdicts).
 *
 * @param scenario the scenario run
 * @param seed its seed
 * @param nodes the nodes, by index
 * @param clients how many workload clients
 * @param duration how long the workload ran
 * @param summary the history's headline numbers
 * @param notAcquired the attempts that ended without a lease, by reason
 * @param verdicts each checker's result
 * @param nemesis the fault schedule
 */
public record Report(
        Scenario scenario,
        long seed,
        List<Node> nodes,
        int clients,
        Duration duration,
        History.Summary summary,
        NotAcquired notAcquired,
        List<CheckResult> verdicts,
        Nemesis nemesis) {

    private static final int MAX_VIOLATIONS = 20;

    /**
     * One node of the run.
     *
     * @param index its index (the history's node number)
     * @param label how the report and the timeline name it, e.g. {@code "node 1 (:7001)"}
     * @param port the port its {@code redis-server} listens on (the same across restarts)
     * @param clientPort the port the clients connect to: {@code port}, or a fault proxy's
     */
    public record Node(int index, String label, int port, int clientPort) {}

    /**
     * The attempts that ended without a lease, by the reason the history records.
     *
     * @param busy the lock was held by others for the whole wait ({@code BUSY})
     * @param notEnoughNodes too few nodes answered for a quorum ({@code NOT_ENOUGH_NODES})
     * @param other any other reason: validity used up, no fencing token, an error
     */
    public record NotAcquired(int busy, int notEnoughNodes, int other) {

        /**
         * Counts a history's failed attempts, sorted as the timeline marks them ({@link Timeline#notAcquired}).
         *
         * @param history the run's history
         * @return the counts
         */
        public static NotAcquired of(History history) {
            int busy = 0;
            int nodes = 0;
            int other = 0;
            for (Op op : history.ops()) {
                String series = Timeline.notAcquired(op).orElse("");
                switch (series) {
                    case Timeline.NOT_ACQUIRED_BUSY -> busy++;
                    case Timeline.NOT_ACQUIRED_NODES -> nodes++;
                    case Timeline.NOT_ACQUIRED_OTHER -> other++;
                    default -> {
                        // acquired
                    }
                }
            }
            return new NotAcquired(busy, nodes, other);
        }

        /**
         * One line such as {@code 40 busy, 3 not enough nodes, 0 other}.
         *
         * @return the counts in words
         */
        @Override
        public String toString() {
            return busy + " busy, " + notEnoughNodes + " not enough nodes, " + other + " other";
        }
    }

    /**
     * Writes every file of the report into {@code dir}.
     *
     * @param dir an existing directory
     * @param history the run's history
     * @param originNanos the run's start on the history's clock
     * @param endNanos the run's end on the history's clock
     * @return what {@code report.json} holds: {@link #toMap(Path)} and a description of the timeline
     * @throws IOException if a file cannot be written
     */
    public Map<String, Object> write(Path dir, History history, long originNanos, long endNanos) throws IOException {
        history.writeJsonLines(dir.resolve("history.jsonl"));
        Timeline timeline = Timeline.draw(
                history,
                originNanos,
                endNanos,
                clients,
                nodes.stream().map(Node::label).toList(),
                title());
        Map<String, Object> doc = toMap(dir);
        doc.put("timeline", timeline.describe());
        Json.MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValue(dir.resolve("report.json").toFile(), doc);
        Path png = dir.resolve("timeline.png");
        timeline.writePng(png);
        Files.writeString(dir.resolve("timeline.html"), html(Files.readAllBytes(png)), StandardCharsets.UTF_8);
        return doc;
    }

    /**
     * Returns the report as a JSON-ready map.
     *
     * @param dir where the files are
     * @return settings, nodes, summary, verdicts, schedule and file names
     */
    public Map<String, Object> toMap(Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", scenario.name());
        m.put("hazard", scenario.hazard());
        m.put("seed", seed);
        m.put("nodes", nodes.size());
        m.put("nodeLabels", nodes.stream().map(Node::label).toList());
        m.put("nodePorts", nodes.stream().map(Node::port).toList());
        m.put("clientPorts", nodes.stream().map(Node::clientPort).toList());
        m.put("clients", clients);
        m.put("durationMs", duration.toMillis());
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("ops", summary.ops());
        s.put("acquired", summary.acquired());
        s.put("failed", summary.failed());
        s.put("unknown", summary.unknown());
        s.put("violations", summary.violations());
        s.put("p99AcquireMs", Double.isNaN(summary.p99AcquireMs()) ? null : summary.p99AcquireMs());
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("busy", notAcquired.busy());
        n.put("notEnoughNodes", notAcquired.notEnoughNodes());
        n.put("other", notAcquired.other());
        s.put("notAcquired", n);
        m.put("summary", s);
        m.put("valid", verdicts.stream().noneMatch(r -> r.validity() == CheckResult.Validity.INVALID));
        List<Map<String, Object>> v = new ArrayList<>();
        for (CheckResult r : verdicts) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("checker", r.checker());
            e.put("validity", r.validity().name());
            e.put("summary", r.summary());
            e.put("violations", r.violations().stream().limit(MAX_VIOLATIONS).toList());
            e.put("violationCount", r.violations().size());
            v.add(e);
        }
        m.put("verdicts", v);
        List<Map<String, Object>> steps = new ArrayList<>();
        for (Nemesis.Step step : nemesis.steps()) {
            steps.add(Map.of("atMs", step.at().toMillis(), "fault", step.description()));
        }
        m.put("schedule", steps);
        Map<String, Object> files = new LinkedHashMap<>();
        for (String f : List.of("history.jsonl", "report.json", "timeline.png", "timeline.html")) {
            files.put(
                    f.substring(0, f.indexOf('.')) + (f.endsWith(".html") ? "Html" : f.endsWith(".png") ? "Png" : ""),
                    dir.resolve(f).toString());
        }
        m.put("files", files);
        return m;
    }

    private String title() {
        long violations =
                verdicts.stream().mapToLong(r -> r.violations().size()).sum();
        return "redlock chaos: " + scenario.name() + ", seed " + seed + ", " + nodes.size() + " nodes, " + clients
                + " clients, " + duration.toSeconds() + " s: " + summary.acquired() + " leases of " + summary.ops()
                + " attempts, " + (violations == 0 ? "no violation" : violations + " VIOLATION(S)");
    }

    private String html(byte[] png) {
        StringBuilder h = new StringBuilder(png.length * 4 / 3 + 4096);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(esc(title()))
                .append("</title>\n<style>body{font-family:sans-serif;margin:1.5em;color:#222}"
                        + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
                        + "text-align:left;vertical-align:top}.VALID{color:#2ca02c}.INVALID{color:#d62728;"
                        + "font-weight:bold}.UNKNOWN{color:#888}img{max-width:100%}</style></head><body>\n");
        h.append("<h1>").append(esc(title())).append("</h1>\n");
        h.append("<p>")
                .append(esc(scenario.description()))
                .append(". Replay: <code>redlock chaos --scenario ")
                .append(esc(scenario.name()))
                .append(" --seed ")
                .append(seed)
                .append(" --nodes ")
                .append(nodes.size())
                .append(" --clients ")
                .append(clients)
                .append(" --duration ")
                .append(duration.toMillis())
                .append("ms</code></p>\n");
        h.append("<img alt=\"timeline: leases and failed attempts per client, faults per node, violations in red\" "
                        + "src=\"data:image/png;base64,")
                .append(Base64.getEncoder().encodeToString(png))
                .append("\">\n");
        h.append("<h2>Verdicts</h2>\n<p>")
                .append(esc(summary.toString()))
                .append("<br>not acquired: ")
                .append(esc(notAcquired.toString()))
                .append("</p>\n<table><tr><th>checker</th>"
                        + "<th>verdict</th><th>summary</th><th>violations</th></tr>\n");
        for (CheckResult r : verdicts) {
            h.append("<tr><td>")
                    .append(esc(r.checker()))
                    .append("</td><td class=\"")
                    .append(r.validity())
                    .append("\">")
                    .append(r.validity())
                    .append("</td><td>")
                    .append(esc(r.summary()))
                    .append("</td><td>");
            r.violations().stream()
                    .limit(MAX_VIOLATIONS)
                    .forEach(v -> h.append(esc(v)).append("<br>"));
            if (r.violations().size() > MAX_VIOLATIONS) {
                h.append("… ").append(r.violations().size() - MAX_VIOLATIONS).append(" more");
            }
            h.append("</td></tr>\n");
        }
        h.append("</table>\n<h2>Nodes</h2>\n<table><tr><th>node</th><th>redis-server port</th>"
                + "<th>clients connect to</th></tr>\n");
        for (Node node : nodes) {
            h.append("<tr><td>")
                    .append(esc(node.label()))
                    .append("</td><td>")
                    .append(node.port())
                    .append("</td><td>")
                    .append(node.clientPort() == node.port() ? "the same" : ":" + node.clientPort() + " (fault proxy)")
                    .append("</td></tr>\n");
        }
        h.append("</table>\n<h2>Fault schedule</h2>\n<table><tr><th>at</th><th>fault</th></tr>\n");
        for (Nemesis.Step step : nemesis.steps()) {
            h.append("<tr><td>+")
                    .append(step.at().toMillis())
                    .append(" ms</td><td>")
                    .append(esc(step.description()))
                    .append("</td></tr>\n");
        }
        h.append("</table>\n<p>Every operation and fault: <a href=\"history.jsonl\">history.jsonl</a>; "
                + "settings and verdicts: <a href=\"report.json\">report.json</a>.</p>\n</body></html>\n");
        return h.toString();
    }

    private static String esc(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
