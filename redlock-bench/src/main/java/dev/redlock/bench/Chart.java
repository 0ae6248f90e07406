package dev.redlock.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Draws bar charts as PNGs with plain Java2D, bars labeled with their values. {@link Compare}'s has one panel with the
 * single-thread acquire+release p50 latency per implementation and one with the 16-thread throughput; {@link Family}
 * draws its own panels with {@link #write(Path, String, List)}.
 */
final class Chart {

    private static final int WIDTH = 1400;
    private static final int PANEL_HEIGHT = 540;
    private static final int TITLE_HEIGHT = 60;
    private static final int LEFT = 120;
    private static final int RIGHT = 40;
    private static final int TOP = 50;
    private static final int BOTTOM = 110;

    private static final Color FLOOR = new Color(0x8C8C8C);
    private static final Color OURS = new Color(0x2E6FBA);
    private static final Color REDISSON = new Color(0xC8553D);

    private Chart() {
    }

    static void write(Path file, List<Report.Impl> impls, Results results) throws IOException {
        List<String> labels = new ArrayList<>();
        List<Color> colors = new ArrayList<>();
        double[] latency = new double[impls.size()];
        double[] throughput = new double[impls.size()];
        for (int i = 0; i < impls.size(); i++) {
            Report.Impl impl = impls.get(i);
            labels.add(impl.label());
            colors.add(colorOf(impl.id()));
            latency[i] = results.get(impl.id(), "latency", "cycle_p50");
            throughput[i] = results.get(impl.id(), "throughput_" + Compare.CPU_THREADS + "t", "cycles_per_s");
        }
        write(file, "Redlock comparison: 5 redis-server masters on loopback", List.of(
                new Panel("Single-thread acquire+release latency, p50 (lower is better)", "latency p50 (microseconds)",
                        labels, colors, latency),
                new Panel("Throughput at " + Compare.CPU_THREADS + " threads, distinct key per thread (higher is better)",
                        "acquire+release cycles per second", labels, colors, throughput)));
    }

    /**
     * One panel of bars: its title, the y axis label, and per bar a label, a color and a value (NaN: not measured).
     */
    record Panel(String title, String yLabel, List<String> labels, List<Color> colors, double[] values) {
    }

    /** The bar color of an implementation: ours blue, Redisson red, anything else (the floor) grey. */
    static Color colorOf(String id) {
        return id.startsWith("ours") ? OURS : id.startsWith("redisson") ? REDISSON : FLOOR;
    }

    /** Draws the panels one above the other, under {@code heading}. */
    static void write(Path file, String heading, List<Panel> panels) throws IOException {
        // Headless: the harness runs on servers and in CI without a display.
        System.setProperty("java.awt.headless", "true");
        BufferedImage image = new BufferedImage(WIDTH, TITLE_HEIGHT + panels.size() * PANEL_HEIGHT,
                BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 22));
            centered(g, heading, WIDTH / 2, 38);
            for (int i = 0; i < panels.size(); i++) {
                Panel p = panels.get(i);
                panel(g, TITLE_HEIGHT + i * PANEL_HEIGHT, p.title(), p.yLabel(), p.labels(), p.colors(), p.values());
            }
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer available for " + file);
        }
    }

    private static void panel(Graphics2D g, int y0, String title, String yLabel, List<String> labels,
            List<Color> colors, double[] values) {
        int plotLeft = LEFT;
        int plotRight = WIDTH - RIGHT;
        int plotTop = y0 + TOP;
        int plotBottom = y0 + PANEL_HEIGHT - BOTTOM;
        int plotHeight = plotBottom - plotTop;

        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 17));
        centered(g, title, (plotLeft + plotRight) / 2, y0 + 30);

        double max = 0;
        for (double v : values) {
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
            }
        }
        double step = niceStep(max > 0 ? max * 1.12 : 1, 5);
        double top = Math.ceil((max > 0 ? max * 1.12 : 1) / step) * step;

        // Grid and y ticks.
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        FontMetrics fm = g.getFontMetrics();
        for (double tick = 0; tick <= top + step / 2; tick += step) {
            int y = plotBottom - (int) Math.round(tick / top * plotHeight);
            g.setColor(new Color(0xE4E4E4));
            g.drawLine(plotLeft, y, plotRight, y);
            g.setColor(Color.DARK_GRAY);
            String text = Report.num(tick);
            g.drawString(text, plotLeft - 8 - fm.stringWidth(text), y + fm.getAscent() / 2 - 1);
        }

        // Axes.
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(plotLeft, plotTop, plotLeft, plotBottom);
        g.drawLine(plotLeft, plotBottom, plotRight, plotBottom);

        // Y axis label, rotated.
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        centered(g, yLabel, -(plotTop + plotBottom) / 2, plotLeft - 78);
        g.setTransform(saved);

        // Bars, value on top, label below.
        int n = values.length;
        double slot = (double) (plotRight - plotLeft) / n;
        int barWidth = (int) (slot * 0.55);
        for (int i = 0; i < n; i++) {
            int cx = plotLeft + (int) Math.round(slot * (i + 0.5));
            double v = values[i];
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
            if (Double.isNaN(v)) {
                g.setColor(Color.GRAY);
                centered(g, "n/a", cx, plotBottom - 8);
            } else {
                int h = (int) Math.round(v / top * plotHeight);
                g.setColor(colors.get(i));
                g.fillRect(cx - barWidth / 2, plotBottom - h, barWidth, h);
                g.setColor(Color.BLACK);
                centered(g, Report.num(v), cx, plotBottom - h - 6);
            }
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            int lineY = plotBottom + 20;
            for (String line : wrap(labels.get(i), g.getFontMetrics(), (int) (slot - 10))) {
                centered(g, line, cx, lineY);
                lineY += 16;
            }
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        centered(g, "implementation", (plotLeft + plotRight) / 2, plotBottom + 92);
    }

    /** A round step (1, 2 or 5 times a power of ten) giving about {@code ticks} intervals up to {@code max}. */
    private static double niceStep(double max, int ticks) {
        double raw = max / ticks;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double norm = raw / magnitude;
        double nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
        return nice * magnitude;
    }

    private static List<String> wrap(String text, FontMetrics fm, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            String candidate = line.length() == 0 ? word : line + " " + word;
            if (fm.stringWidth(candidate) > width && line.length() > 0) {
                lines.add(line.toString());
                line = new StringBuilder(word);
            } else {
                line = new StringBuilder(candidate);
            }
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static void centered(Graphics2D g, String text, int cx, int baseline) {
        g.drawString(text, cx - g.getFontMetrics().stringWidth(text) / 2, baseline);
    }
}
