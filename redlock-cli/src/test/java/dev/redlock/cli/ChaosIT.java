package dev.redlock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
        Cli.JSON.readTree(out.resolve("report.json").toFile());

        Cli.Result list = Cli.run("chaos", "--list", "--json");
        assertEquals(0, list.exit(), list::toString);
        assertTrue(Cli.JSON.readTree(list.out()).get("scenarios").size() >= 5);
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
