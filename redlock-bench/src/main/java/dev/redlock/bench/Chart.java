/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * Bar charts as PNGs, drawn by XChart, one chart per panel stacked under a heading, each bar labeled with its value.
 * {@link Compare}'s has one panel with the single-thread acquire+release p50 latency per implementation and one with
 * the 16-thread throughput; {@link Family} draws its own panels with {@link #write(Path, String, List)}.
 */
final class Chart {

    private static final int WIDTH = 1400;
    private static final int PANEL_HEIGHT = 540;
    private static final int HEADING_HEIGHT = 60;

    private Chart() {}

    /** Which side of the comparison a bar is on: each group is one series of a panel, with its own color. */
    enum Group {
        /** The raw single-node floor, grey. */
        FLOOR("floor", new Color(0x8C8C8C)),
        /** This library, blue. */
        OURS("ours", new Color(0x2E6FBA)),
        /** Redisson, red. */
        REDISSON("Redisson", new Color(0xC8553D));

        private final String legend;
        private final Color color;

        Group(String legend, Color color) {
            this.legend = legend;
            this.color = color;
        }

        /** The group of an implementation: ours, Redisson, or anything else (the floor). */
        static Group of(String id) {
            return id.startsWith("ours") ? OURS : id.startsWith("redisson") ? REDISSON : FLOOR;
        }
    }

    /**
     * One panel of bars: its title, the y axis label, and per bar a label, a group and a value (NaN: not measured, no
     * bar).
     */
    @SuppressWarnings("ArrayRecordComponent") // a panel is drawn, never compared or hashed
    record Panel(String title, String yLabel, List<String> labels, List<Group> groups, double[] values) {}

    static void write(Path file, List<Report.Impl> impls, Results results) throws IOException {
        List<String> labels = new ArrayList<>();
        List<Group> groups = new ArrayList<>();
        double[] latency = new double[impls.size()];
        double[] throughput = new double[impls.size()];
        for (int i = 0; i < impls.size(); i++) {
            Report.Impl impl = impls.get(i);
            labels.add(impl.label());
            groups.add(Group.of(impl.id()));
            latency[i] = results.get(impl.id(), "latency", "cycle_p50");
            throughput[i] = results.get(impl.id(), "throughput_" + Compare.CPU_THREADS + "t", "cycles_per_s");
        }
        write(
                file,
                "Redlock comparison: 5 redis-server masters on loopback",
                List.of(
                        new Panel(
                                "Single-thread acquire+release latency, p50 (lower is better)",
                                "latency p50 (microseconds)",
                                labels,
                                groups,
                                latency),
                        new Panel(
                                "Throughput at " + Compare.CPU_THREADS
                                        + " threads, distinct key per thread (higher is better)",
                                "acquire+release cycles per second",
                                labels,
                                groups,
                                throughput)));
    }

    /** Draws the panels one above the other, under {@code heading}. */
    static void write(Path file, String heading, List<Panel> panels) throws IOException {
        // Headless: the harness runs on servers and in CI without a display.
        System.setProperty("java.awt.headless", "true");
        BufferedImage image =
                new BufferedImage(WIDTH, HEADING_HEIGHT + panels.size() * PANEL_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 22));
            g.drawString(heading, (WIDTH - g.getFontMetrics().stringWidth(heading)) / 2, 38);
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(
                        BitmapEncoder.getBufferedImage(chart(panels.get(i))),
                        0,
                        HEADING_HEIGHT + i * PANEL_HEIGHT,
                        null);
            }
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available for " + file);
        }
    }

    /** One panel as a bar chart: one series per group present, bars at their implementation's category. */
    static CategoryChart chart(Panel panel) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(WIDTH)
                .height(PANEL_HEIGHT)
                .title(panel.title())
                .xAxisTitle("implementation")
                .yAxisTitle(panel.yLabel())
                .build();
        CategoryStyler style = chart.getStyler();
        style.setChartBackgroundColor(Color.WHITE);
        style.setPlotBackgroundColor(Color.WHITE);
        style.setPlotBorderVisible(false);
        style.setPlotGridVerticalLinesVisible(false);
        style.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
        style.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        style.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        style.setLegendPosition(Styler.LegendPosition.InsideNE);
        // Series of different groups never share a category: overlapped, each bar is centered on its label.
        style.setOverlapped(true);
        style.setAvailableSpaceFill(0.55);
        style.setLabelsVisible(true);
        style.setLabelsPosition(1.0); // at the top of the bar
        style.setLabelsFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        style.setLabelsFontColorAutomaticEnabled(false);
        style.setLabelsFontColor(Color.BLACK);
        style.setYAxisDecimalPattern("#,##0.###"); // the bars' labels too
        style.setYAxisMin(0.0);
        if (panel.labels().size() > 6) {
            style.setXAxisLabelRotation(30);
        }
        for (Group group : Group.values()) {
            List<Double> values = new ArrayList<>();
            boolean any = false;
            for (int i = 0; i < panel.labels().size(); i++) {
                double v = panel.values()[i];
                boolean mine = panel.groups().get(i) == group && !Double.isNaN(v);
                // Rounded as the tables show it, so a bar's label reads as the tables do.
                values.add(mine ? Double.valueOf(Report.num(v).replace(",", "")) : null);
                any |= mine;
            }
            if (any) {
                chart.addSeries(group.legend, panel.labels(), values).setFillColor(group.color);
            }
        }
        return chart;
    }
}
