/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** {@code redlock chaos} with a fixed seed: verdicts, and a report with a real timeline picture. */
class ChaosIT {

    @Test
    void fixedSeedRunWritesAReportWithATimeline() throws Exception {
        Path out = Cli.WORK.resolve("chaos-report");
        Cli.Result r = Cli.run(
                Duration.ofSeconds(90),
                Map.of(),
                "chaos",
                "--scenario",
                "kill-minority",
                "--seed",
                "7",
                "--duration",
                "5s",
                "--nodes",
                "3",
                "--clients",
                "3",
                "--out",
                out.toString(),
                "--json");
        assertEquals(0, r.exit(), r::toString);
        JsonNode doc = Cli.JSON.readTree(r.out());
        assertEquals("kill-minority", doc.get("scenario").asText());
        assertEquals(7, doc.get("seed").asLong());
        assertTrue(doc.get("valid").asBoolean(), r::toString);
        assertTrue(doc.get("summary").get("acquired").asInt() > 5, r::toString);
        assertEquals(4, doc.get("verdicts").size());
        assertTrue(r.err().contains("violations 0"), "progress line: " + r.err());

        Path png = out.resolve("timeline.png");
        assertTrue(Files.size(png) > 10_000, "a picture, not an empty canvas");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1200, image.getWidth());
        Set<Integer> colors = new HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colors.add(image.getRGB(x, y));
            }
        }
        assertTrue(colors.size() > 20, "bars in several colours: " + colors.size());
        assertTrue(Files.readString(out.resolve("timeline.html")).contains("data:image/png;base64,"));
        assertTrue(Files.readString(out.resolve("history.jsonl")).contains("\"kill\""));
        JsonNode written = Cli.JSON.readTree(out.resolve("report.json").toFile());
        assertEquals(doc.get("timeline"), written.get("timeline"), "--json prints what report.json holds");
        assertEquals(3, doc.get("nodeLabels").size(), r::toString);

        Cli.Result list = Cli.run("chaos", "--list", "--json");
        assertEquals(0, list.exit(), list::toString);
        assertTrue(Cli.JSON.readTree(list.out()).get("scenarios").size() >= 5);
    }

    /**
     * The timeline marks every attempt that ended without a lease, busy apart from not enough nodes, and names each
     * node with its port; the text report names the nodes the same way. A majority killed for a while gives
     * not-enough-nodes failures; eight clients on one lock give busy ones. The picture's series are checked through
     * report.json, which describes the drawn chart, against the history itself.
     */
    @Test
    void timelineMarksFailedAttemptsAndNamesNodesByPort() throws Exception {
        Path out = Cli.WORK.resolve("chaos-report-failures");
        Cli.Result r = Cli.run(
                Duration.ofSeconds(90),
                Map.of(),
                "chaos",
                "--scenario",
                "kill-majority",
                "--seed",
                "11",
                "--duration",
                "6s",
                "--nodes",
                "3",
                "--clients",
                "8",
                "--out",
                out.toString());
        assertEquals(0, r.exit(), r::toString);
        JsonNode doc = Cli.JSON.readTree(out.resolve("report.json").toFile());

        // Nodes are named with the port their redis-server listens on, in the report and on the timeline's rows.
        List<String> labels = new ArrayList<>();
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            int port = doc.get("nodePorts").get(i).asInt();
            assertTrue(port > 0 && ports.add(port), "distinct ports: " + doc.get("nodePorts"));
            labels.add("node " + i + " (:" + port + ")");
            assertEquals(labels.get(i), doc.get("nodeLabels").get(i).asText());
        }
        List<String> rows = new ArrayList<>();
        doc.get("timeline").get("rows").forEach(n -> rows.add(n.asText()));
        List<String> expectedRows = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            expectedRows.add("client " + c);
        }
        expectedRows.addAll(labels);
        assertEquals(expectedRows, rows);
        assertTrue(r.out().contains("nodes: " + String.join(", ", labels)), r::toString);

        // The fault schedule names the killed nodes the same way, in the text report and in report.json.
        Matcher kill = Pattern.compile("\\+\\s*\\d+ ms  kill (node \\d \\(:\\d+\\)), (node \\d \\(:\\d+\\))")
                .matcher(r.out());
        assertTrue(kill.find(), r::toString);
        assertTrue(labels.contains(kill.group(1)) && labels.contains(kill.group(2)), r::toString);
        assertTrue(doc.get("schedule").get(0).get("fault").asText().contains(kill.group(1)), doc::toString);

        // Failed attempts on the timeline: one series per reason, one mark per attempt the history records.
        Map<String, Integer> fromHistory = new HashMap<>();
        for (String line : Files.readAllLines(out.resolve("history.jsonl"))) {
            JsonNode op = Cli.JSON.readTree(line);
            if (op.get("type").asText().equals("op")
                    && !op.get("outcome").asText().equals("OK")) {
                String reason = op.get("outcome").asText().equals("FAIL")
                        ? op.get("failure").asText()
                        : "error";
                fromHistory.merge(reason, 1, Integer::sum);
            }
        }
        Map<String, Integer> series = new HashMap<>();
        doc.get("timeline")
                .get("series")
                .forEach(s -> series.put(s.get("name").asText(), s.get("items").asInt()));
        int busy = fromHistory.getOrDefault("BUSY", 0);
        int noQuorum = fromHistory.getOrDefault("NOT_ENOUGH_NODES", 0);
        int other = fromHistory.values().stream().mapToInt(Integer::intValue).sum() - busy - noQuorum;
        assertTrue(busy > 0, "eight clients on one lock: some waited in vain " + fromHistory);
        assertTrue(noQuorum > 0, "a majority down: attempts without a quorum " + fromHistory);
        assertEquals(busy, series.get("not acquired: busy"), series::toString);
        assertEquals(noQuorum, series.get("not acquired: not enough nodes"), series::toString);
        assertEquals(other, series.getOrDefault("not acquired: other reason", 0), series::toString);
        JsonNode counted = doc.get("summary").get("notAcquired");
        assertEquals(busy, counted.get("busy").asInt());
        assertEquals(noQuorum, counted.get("notEnoughNodes").asInt());
        assertTrue(
                r.out()
                        .contains("not acquired: " + busy + " busy, " + noQuorum + " not enough nodes, " + other
                                + " other"),
                r::toString);
        assertTrue(Files.readString(out.resolve("timeline.html")).contains(labels.get(0)));
    }

    /** An --out that cannot be a directory is refused with 64 before the run starts, not after it. */
    @Test
    void outThatIsAFileIsRefusedBeforeTheRun() throws Exception {
        Path file = Files.createDirectories(Cli.WORK).resolve("chaos-out-is-a-file");
        Files.writeString(file, "not a directory");
        Cli.Result r = Cli.run(
                Duration.ofSeconds(90),
                Map.of(),
                "chaos",
                "--scenario",
                "kill-minority",
                "--seed",
                "1",
                "--duration",
                "2s",
                "--nodes",
                "3",
                "--clients",
                "1",
                "--out",
                file.toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r::toString);
        assertTrue(r.err().contains("'--out'") && r.err().contains(file.toString()), r::toString);
        assertFalse(r.err().contains("ops"), "no run started: " + r);
        assertEquals("not a directory", Files.readString(file));
    }
}
