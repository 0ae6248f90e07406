package dev.redlock.cli.chaos;

import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.History;
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
 * {@code report.json} (settings, summary, verdicts, fault schedule), {@code timeline.png} and {@code timeline.html}
 * (the picture with the verdicts).
 *
 * @param scenario the scenario run
 * @param seed its seed
 * @param nodes how many nodes
 * @param clients how many workload clients
 * @param duration how long the workload ran
 * @param summary the history's headline numbers
 * @param verdicts each checker's result
 * @param nemesis the fault schedule
 */
public record Report(
        Scenario scenario,
        long seed,
        int nodes,
        int clients,
        Duration duration,
        History.Summary summary,
        List<CheckResult> verdicts,
        Nemesis nemesis) {

    private static final int MAX_VIOLATIONS = 20;

    /**
     * Writes every file of the report into {@code dir}.
     *
     * @param dir an existing directory
     * @param history the run's history
     * @param originNanos the run's start on the history's clock
     * @param endNanos the run's end on the history's clock
     * @throws IOException if a file cannot be written
     */
    public void write(Path dir, History history, long originNanos, long endNanos) throws IOException {
        history.writeJsonLines(dir.resolve("history.jsonl"));
        Json.MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValue(dir.resolve("report.json").toFile(), toMap(dir));
        Path png = dir.resolve("timeline.png");
        Timeline.write(history, originNanos, endNanos, clients, nodes, title(), png);
        Files.writeString(dir.resolve("timeline.html"), html(Files.readAllBytes(png)), StandardCharsets.UTF_8);
    }

    /**
     * Returns the report as a JSON-ready map.
     *
     * @param dir where the files are
     * @return settings, summary, verdicts, schedule and file names
     */
    public Map<String, Object> toMap(Path dir) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", scenario.name());
        m.put("hazard", scenario.hazard());
        m.put("seed", seed);
        m.put("nodes", nodes);
        m.put("clients", clients);
        m.put("durationMs", duration.toMillis());
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("ops", summary.ops());
        s.put("acquired", summary.acquired());
        s.put("failed", summary.failed());
        s.put("unknown", summary.unknown());
        s.put("violations", summary.violations());
        s.put("p99AcquireMs", Double.isNaN(summary.p99AcquireMs()) ? null : summary.p99AcquireMs());
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
        return "redlock chaos: " + scenario.name() + ", seed " + seed + ", " + nodes + " nodes, " + clients
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
                .append(nodes)
                .append(" --clients ")
                .append(clients)
                .append(" --duration ")
                .append(duration.toMillis())
                .append("ms</code></p>\n");
        h.append("<img alt=\"timeline: leases per client, faults per node, violations in red\" "
                        + "src=\"data:image/png;base64,")
                .append(Base64.getEncoder().encodeToString(png))
                .append("\">\n");
        h.append("<h2>Verdicts</h2>\n<p>")
                .append(esc(summary.toString()))
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
