package dev.redlock.cli.chaos;

import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The timeline picture of a chaos run, drawn with XChart: one row per workload client with its leases as thick bars
 * (and its acquisitions in progress as a thin grey line), one row per node with its faults as shaded spans, and every
 * moment two clients held the lock at once in red, with a red line across the chart where it began.
 */
public final class Timeline {

    private static final Color[] CLIENT_COLORS = {
        new Color(0x1f77b4),
        new Color(0x2ca02c),
        new Color(0x9467bd),
        new Color(0x17becf),
        new Color(0x8c564b),
        new Color(0xe377c2),
        new Color(0x7f7f7f),
        new Color(0xbcbd22)
    };
    private static final Color WAITING = new Color(0xc8c8c8);
    private static final Color DOWN = new Color(0x505050);
    private static final Color STOPPED = new Color(0xff9f40);
    private static final Color SLOW = new Color(0xf2cf3a);
    private static final Color WRITES_PAUSED = new Color(0x9ecae1);
    private static final Color DATA_LOST = new Color(0x8e44ad);
    private static final Color VIOLATION = new Color(0xd62728);
    private static final double NANOS_PER_SECOND = 1e9;

    /** A span of time on one row, in seconds since the run's origin. */
    private record Span(double from, double to) {}

    private Timeline() {}

    /**
     * Draws the run and writes it as a PNG.
     *
     * @param history the run's history
     * @param originNanos the run's start on the history's clock
     * @param endNanos the run's end on the history's clock
     * @param clients how many workload clients ran
     * @param nodes how many nodes the cluster had
     * @param title the picture's title
     * @param png where to write the picture
     * @throws IOException if the picture cannot be written
     */
    public static void write(
            History history, long originNanos, long endNanos, int clients, int nodes, String title, Path png)
            throws IOException {
        XYChart chart = draw(history, originNanos, endNanos, clients, nodes, title);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Returns the overlapping holding windows of the history: every span during which two clients held the same lock,
     * as the mutual-exclusion checker defines it, with the two clients.
     *
     * @param history the run's history
     * @param endNanos where windows that never ended are cut
     * @return per overlap: {@code [startNanos, endNanos, clientA, clientB]}
     */
    public static List<long[]> overlaps(History history, long endNanos) {
        Map<String, List<Op>> byLock = new HashMap<>();
        for (Op op : history.ops()) {
            if (op.outcome() == Op.Outcome.OK && !op.windowEmpty()) {
                byLock.computeIfAbsent(op.lock(), k -> new ArrayList<>()).add(op);
            }
        }
        List<long[]> found = new ArrayList<>();
        for (List<Op> ops : byLock.values()) {
            ops.sort(Comparator.comparingLong(Op::windowStart).thenComparingLong(Op::windowEnd));
            Op furthest = null;
            for (Op op : ops) {
                if (furthest != null && op.windowStart() < furthest.windowEnd()) {
                    long end = Math.min(Math.min(op.windowEnd(), furthest.windowEnd()), endNanos);
                    found.add(new long[] {op.windowStart(), end, furthest.client(), op.client()});
                }
                if (furthest == null || op.windowEnd() > furthest.windowEnd()) {
                    furthest = op;
                }
            }
        }
        found.sort(Comparator.comparingLong(o -> o[0]));
        return found;
    }

    static XYChart draw(History history, long originNanos, long endNanos, int clients, int nodes, String title) {
        int rows = clients + 1 + nodes;
        double seconds = (endNanos - originNanos) / NANOS_PER_SECOND;
        int height = 170 + rows * 34;
        XYChart chart = new XYChartBuilder()
                .width(1200)
                .height(height)
                .title(title)
                .xAxisTitle("seconds since the start of the run")
                .yAxisTitle("")
                .build();
        var st = chart.getStyler();
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        st.setPlotBorderColor(new Color(0xdddddd));
        st.setPlotGridHorizontalLinesVisible(false);
        st.setPlotGridLinesColor(new Color(0xeeeeee));
        st.setChartTitleBoxVisible(false);
        st.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendLayout(Styler.LegendLayout.Horizontal);
        st.setLegendBorderColor(Color.WHITE);
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        // Row names sit left of zero, as text annotations: XChart's y-axis ticks cannot be pinned to the rows.
        double labels = seconds * 0.07;
        st.setXAxisMin(-labels);
        st.setXAxisMax(seconds);
        st.setxAxisTickLabelsFormattingFunction(v -> v < -1e-9 ? " " : String.format(java.util.Locale.ROOT, "%.0f", v));
        st.setYAxisMin(0.4);
        st.setYAxisMax(rows + 0.6);
        st.setYAxisTicksVisible(false);
        st.setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        st.setAnnotationTextFontColor(new Color(0x333333));
        for (int r = 1; r <= rows; r++) {
            String label = rowLabel(r, clients, nodes);
            if (!label.isBlank()) {
                chart.addAnnotation(new AnnotationText(label, -labels / 2, r, false));
            }
        }
        st.setAnnotationLineColor(VIOLATION);
        st.setAnnotationLineStroke(
                new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f));
        st.setCursorEnabled(false);
        float bar = 20f;

        List<List<Span>> waiting = new ArrayList<>();
        List<List<Span>> leases = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            waiting.add(new ArrayList<>());
            leases.add(new ArrayList<>());
        }
        List<double[]> lostMarks = new ArrayList<>();
        for (Op op : history.ops()) {
            if (op.client() < 0 || op.client() >= clients) {
                continue;
            }
            waiting.get(op.client()).add(span(op.invokeNanos(), op.completeNanos(), originNanos, endNanos));
            if (op.outcome() == Op.Outcome.OK && !op.windowEmpty()) {
                leases.get(op.client()).add(span(op.windowStart(), op.windowEnd(), originNanos, endNanos));
            }
            if (op.lostNanos() != Op.NONE) {
                lostMarks.add(new double[] {sec(op.lostNanos(), originNanos, endNanos), clientRow(op.client(), rows)});
            }
        }
        List<double[]> waitRows = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            waitRows.add(rowSeries(waiting.get(c), clientRow(c, rows)));
        }
        addBars(chart, "acquiring", merge(waitRows), WAITING, 3f, true);
        for (int c = 0; c < clients; c++) {
            addBars(
                    chart,
                    "client " + c + " holds",
                    rowSeries(leases.get(c), clientRow(c, rows)),
                    CLIENT_COLORS[c % CLIENT_COLORS.length],
                    bar,
                    true);
        }

        Map<String, List<double[]>> faults = faults(history, originNanos, endNanos, nodes);
        addBars(
                chart,
                "node down",
                merge(faults.get("down")),
                DOWN,
                bar,
                !faults.get("down").isEmpty());
        addBars(
                chart,
                "node stopped (SIGSTOP)",
                merge(faults.get("stopped")),
                STOPPED,
                bar,
                !faults.get("stopped").isEmpty());
        addBars(
                chart,
                "writes paused",
                merge(faults.get("paused")),
                WRITES_PAUSED,
                bar,
                !faults.get("paused").isEmpty());
        addBars(
                chart,
                "slow or cut link",
                merge(faults.get("slow")),
                SLOW,
                bar,
                !faults.get("slow").isEmpty());
        List<double[]> instants = faults.get("lost");
        if (!instants.isEmpty()) {
            double[][] xy = points(instants);
            XYSeries s = chart.addSeries("data lost (FLUSHALL, restart)", xy[0], xy[1]);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.DIAMOND);
            s.setMarkerColor(DATA_LOST);
        }
        if (!lostMarks.isEmpty()) {
            double[][] xy = points(lostMarks);
            XYSeries s = chart.addSeries("lease lost", xy[0], xy[1]);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.CROSS);
            s.setMarkerColor(Color.BLACK);
        }

        List<long[]> overlaps = overlaps(history, endNanos);
        List<double[]> red = new ArrayList<>();
        for (long[] o : overlaps) {
            Span s = span(o[0], o[1], originNanos, endNanos);
            red.add(rowSeries(List.of(s), clientRow((int) o[2], rows)));
            red.add(rowSeries(List.of(s), clientRow((int) o[3], rows)));
        }
        addBars(chart, "two holders at once (violation)", merge(red), VIOLATION, bar, !overlaps.isEmpty());
        overlaps.stream()
                .limit(50)
                .forEach(o -> chart.addAnnotation(new AnnotationLine(sec(o[0], originNanos, endNanos), true, false)));
        return chart;
    }

    private static String rowLabel(double v, int clients, int nodes) {
        long r = Math.round(v);
        if (Math.abs(v - r) > 0.01) {
            return " ";
        }
        int rows = clients + 1 + nodes;
        int fromTop = (int) (rows - r);
        if (fromTop >= 0 && fromTop < clients) {
            return "client " + fromTop;
        }
        int node = fromTop - clients - 1;
        return node >= 0 && node < nodes ? "node " + node : " ";
    }

    private static double clientRow(int client, int rows) {
        return rows - client;
    }

    private static double nodeRow(int node, int nodes) {
        return nodes - node;
    }

    /** Fault spans per kind: down (killed), stopped (SIGSTOP), paused (CLIENT PAUSE), slow (link), lost (instants). */
    private static Map<String, List<double[]>> faults(History history, long origin, long end, int nodes) {
        Map<String, List<double[]>> out = new HashMap<>();
        for (String k : List.of("down", "stopped", "paused", "slow", "lost")) {
            out.put(k, new ArrayList<>());
        }
        long[] downSince = new long[nodes];
        long[] stoppedSince = new long[nodes];
        long[] slowSince = new long[nodes];
        java.util.Arrays.fill(downSince, Op.NONE);
        java.util.Arrays.fill(stoppedSince, Op.NONE);
        java.util.Arrays.fill(slowSince, Op.NONE);
        List<NemesisEvent> events = new ArrayList<>(history.events());
        events.sort(Comparator.comparingLong(NemesisEvent::atNanos));
        for (NemesisEvent e : events) {
            int n = e.node();
            if (n < 0 || n >= nodes) {
                continue;
            }
            double row = nodeRow(n, nodes);
            long t = e.atNanos();
            switch (e.kind()) {
                case "kill" -> downSince[n] = downSince[n] == Op.NONE ? t : downSince[n];
                case "restart" -> {
                    if (downSince[n] != Op.NONE) {
                        out.get("down").add(rowSeries(List.of(span(downSince[n], t, origin, end)), row));
                        downSince[n] = Op.NONE;
                    }
                    if (e.detail() != null && e.detail().contains("without persistence")) {
                        out.get("lost").add(new double[] {sec(t, origin, end), row});
                    }
                }
                case "pause" -> stoppedSince[n] = stoppedSince[n] == Op.NONE ? t : stoppedSince[n];
                case "resume" -> {
                    if (stoppedSince[n] != Op.NONE) {
                        out.get("stopped").add(rowSeries(List.of(span(stoppedSince[n], t, origin, end)), row));
                        stoppedSince[n] = Op.NONE;
                    }
                }
                case "client-pause" ->
                    out.get("paused")
                            .add(rowSeries(
                                    List.of(span(t, t + leadingMillis(e.detail()) * 1_000_000L, origin, end)), row));
                case "latency", "freeze" -> slowSince[n] = slowSince[n] == Op.NONE ? t : slowSince[n];
                case "heal" -> {
                    if (slowSince[n] != Op.NONE) {
                        out.get("slow").add(rowSeries(List.of(span(slowSince[n], t, origin, end)), row));
                        slowSince[n] = Op.NONE;
                    }
                }
                case "flushall", "clock-jump" -> out.get("lost").add(new double[] {sec(t, origin, end), row});
                default -> {
                    // drop, clock-rate: shown in the report's schedule only
                }
            }
        }
        for (int n = 0; n < nodes; n++) {
            double row = nodeRow(n, nodes);
            if (downSince[n] != Op.NONE) {
                out.get("down").add(rowSeries(List.of(span(downSince[n], end, origin, end)), row));
            }
            if (stoppedSince[n] != Op.NONE) {
                out.get("stopped").add(rowSeries(List.of(span(stoppedSince[n], end, origin, end)), row));
            }
            if (slowSince[n] != Op.NONE) {
                out.get("slow").add(rowSeries(List.of(span(slowSince[n], end, origin, end)), row));
            }
        }
        return out;
    }

    private static long leadingMillis(String detail) {
        if (detail == null) {
            return 0;
        }
        String digits = detail.replaceAll("^(\\d+).*$", "$1");
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Span span(long from, long to, long origin, long end) {
        return new Span(sec(from, origin, end), sec(to, origin, end));
    }

    private static double sec(long nanos, long origin, long end) {
        long clipped = Math.max(origin, Math.min(nanos, end));
        return (clipped - origin) / NANOS_PER_SECOND;
    }

    /**
     * One row's spans as an XY polyline with gaps: x0, x1, NaN, x0, x1, NaN, ... on y = row. Flattened as
     * {@code [x..., y...]} halves.
     */
    private static double[] rowSeries(List<Span> spans, double row) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingDouble(Span::from));
        int n = sorted.size() * 3;
        double[] xy = new double[n * 2];
        int i = 0;
        for (Span s : sorted) {
            xy[i] = s.from();
            xy[n + i++] = row;
            xy[i] = Math.max(s.to(), s.from() + 0.004); // at least a hair wide, so a short lease still shows
            xy[n + i++] = row;
            xy[i] = s.to();
            xy[n + i++] = Double.NaN;
        }
        return xy;
    }

    private static double[] merge(List<double[]> parts) {
        int total = 0;
        for (double[] p : parts) {
            total += p.length / 2;
        }
        double[] xy = new double[total * 2];
        int at = 0;
        for (double[] p : parts) {
            int n = p.length / 2;
            System.arraycopy(p, 0, xy, at, n);
            System.arraycopy(p, n, xy, total + at, n);
            at += n;
        }
        return xy;
    }

    private static double[][] points(List<double[]> pts) {
        double[] x = new double[pts.size()];
        double[] y = new double[pts.size()];
        for (int i = 0; i < pts.size(); i++) {
            x[i] = pts.get(i)[0];
            y[i] = pts.get(i)[1];
        }
        return new double[][] {x, y};
    }

    private static void addBars(XYChart chart, String name, double[] xy, Color color, float width, boolean legend) {
        int n = xy.length / 2;
        double[] x = new double[Math.max(n, 1)];
        double[] y = new double[Math.max(n, 1)];
        if (n == 0) {
            x[0] = Double.NaN;
            y[0] = Double.NaN;
        } else {
            System.arraycopy(xy, 0, x, 0, n);
            System.arraycopy(xy, n, y, 0, n);
        }
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(color);
        s.setLineStyle(new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        s.setShowInLegend(legend);
    }
}
