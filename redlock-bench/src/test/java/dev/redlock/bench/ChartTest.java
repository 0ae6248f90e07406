/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/** The comparison chart drawn from fixed numbers (those of the README's table), without running a benchmark. */
class ChartTest {

    private static final Color FLOOR = new Color(0x8C8C8C);
    private static final Color OURS = new Color(0x2E6FBA);
    private static final Color REDISSON = new Color(0xC8553D);

    @Test
    void comparisonChartHasBothPanelsWithABarPerImplementation() throws Exception {
        List<Report.Impl> impls = List.of(
                new Report.Impl("floor", "floor: Jedis SET NX PX + EVALSHA (1 node)", "", false),
                new Report.Impl("ours-redlock", "ours: RedLock", "", true),
                new Report.Impl("ours-multilock", "ours: MultiLock", "", true),
                new Report.Impl("redisson-redlock", "Redisson RedissonRedLock", "", true),
                new Report.Impl("redisson-multilock", "Redisson RedissonMultiLock", "", true),
                new Report.Impl("redisson-rlock", "Redisson RLock (1 node)", "", false));
        double[] latency = {54.8, 337, 314, 1929, 1759, 197};
        double[] throughput = {26747, 9399, 9664, 1122, 1204, 7518};
        Results results = new Results();
        for (int i = 0; i < impls.size(); i++) {
            results.put(impls.get(i).id(), "latency", "cycle_p50", latency[i], "us", 2000);
            results.put(
                    impls.get(i).id(),
                    "throughput_" + Compare.CPU_THREADS + "t",
                    "cycles_per_s",
                    throughput[i],
                    "1/s",
                    1000);
        }
        Path dir = Files.createDirectories(Path.of("target", "chart-test"));
        Path file = dir.resolve("compare-chart.png");
        Chart.write(file, impls, results);

        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(1400, image.getWidth());
        assertEquals(60 + 2 * 540, image.getHeight());
        for (int panel = 0; panel < 2; panel++) {
            int top = 60 + panel * 540;
            for (Color group : List.of(FLOOR, OURS, REDISSON)) {
                // More than the legend's swatch: a bar.
                assertTrue(pixels(image, top, top + 540, group) > 400, "panel " + panel + " has no bar of " + group);
            }
        }
    }

    private static int pixels(BufferedImage image, int fromY, int toY, Color color) {
        int count = 0;
        for (int y = fromY; y < toY; y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == (color.getRGB() & 0xFFFFFF)) {
                    count++;
                }
            }
        }
        return count;
    }
}
