/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli.chaos;

import dev.redlock.FailureReason;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The timeline picture of a chaos run, drawn with XChart: one row per workload client with its leases as thick bars,
 * its acquisitions in progress as a thin grey line and a mark where an attempt ended without a lease (one kind of mark
 * per reason: the lock was busy, not enough nodes answered, anything else), one row per node (named with its port)
 * with its faults as shaded spans, and every moment two clients held the lock at once in red, with a red line across
 * the chart where it began.
 *
 * <p>{@link #describe()} says in words what the picture shows: its rows and each series with how many bars or marks
 * it has, read back from the chart that is drawn.
 */
public final class Timeline {

    /** The series of attempts that ended without a lease because other clients held the lock. */
    public static final String NOT_ACQUIRED_BUSY = "not acquired: busy";

    /** The series of attempts that ended without a lease because too few nodes answered. */
    public static final String NOT_ACQUIRED_NODES = "not acquired: not enough nodes";

    /**
     * The series of attempts that ended without a lease for another reason: validity used up by a slow round, no
     * fencing token to be had, or an error.
     */
    public static final String NOT_ACQUIRED_OTHER = "not acquired: other reason";

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
    private static final Color BUSY = new Color(0x6b6b6b);
    private static final Color NO_QUORUM = new Color(0xe6550d);
    private static final Color OTHER_FAILURE = new Color(0x7b4173);
    private static final double NANOS_PER_SECOND = 1e9;
    /** The room left of zero for the rows' names, as a share of the run's length. */
    private static final double LABEL_ROOM = 0.12;

    /** A span of time on one row, in seconds since the run's origin. */
    private record Span(double from, double to) {}

    private final XYChart chart;
    private final List<String> rows;
    /** Per series: how many bars or marks it has (a series of bars counts its spans, one of marks its points). */
    private final Map<String, Integer> items = new LinkedHashMap<>();

    private Timeline(XYChart chart, List<String> rows) {
        this.chart = chart;
        this.rows = rows;
    }

    /**
     * Draws the run.
     *
     * @param history the run's history
     * @param originNanos the run's start on the history's clock
     * @param endNanos the run's end on the history's clock
     * @param clients how many workload clients ran
     * @param nodeLabels each node's row label, by node index (e.g. {@code "node 1 (:7001)"})
     * @param title the picture's title
     * @return the drawn timeline
     */
    public static Timeline draw(
            History history, long originNanos, long endNanos, int clients, List<String> nodeLabels, String title) {
        List<String> rows = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            rows.add("client " + c);
        }
        rows.addAll(nodeLabels);
        Timeline t =
                new Timeline(chart(title, originNanos, endNanos, clients + 1 + nodeLabels.size()), List.copyOf(rows));
        t.fill(history, originNanos, endNanos, clients, nodeLabels);
        return t;
    }

    /**
     * Writes the picture as a PNG.
     *
     * @param png where to write it
     * @throws IOException if it cannot be written
     */
    public void writePng(Path png) throws IOException {
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Returns the rows' labels, top to bottom: the clients, then the nodes.
     *
     * @return the labels
     */
    public List<String> rows() {
        return rows;
    }

    /**
     * Says what the picture shows, read back from the drawn chart: the rows' labels, and per series its name, how
     * many bars or marks it has and whether the legend names it (a series with nothing to show is left out of the
     * legend).
     *
     * @return {@code {"rows": [...], "series": [{"name", "items", "inLegend"}, ...]}}, JSON-ready
     */
    public Map<String, Object> describe() {
        List<Map<String, Object>> series = new ArrayList<>();
        for (Map.Entry<String, XYSeries> e : chart.getSeriesMap().entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", e.getKey());
            m.put("items", items.getOrDefault(e.getKey(), 0));
            m.put("inLegend", e.getValue().isShowInLegend());
            series.add(m);
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("rows", rows);
        d.put("series", series);
        return d;
    }

    /**
     * Returns how many bars or marks the named series has.
     *
     * @param series a series' name, e.g. {@link #NOT_ACQUIRED_BUSY}
     * @return the count, 0 for a series that is not in the chart
     */
    public int items(String series) {
        return chart.getSeriesMap().containsKey(series) ? items.getOrDefault(series, 0) : 0;
    }

    /**
     * Sorts a failed attempt into the timeline's series of failed attempts by the reason the history records.
     *
     * @param op an operation of the history
     * @return {@link #NOT_ACQUIRED_BUSY}, {@link #NOT_ACQUIRED_NODES} or {@link #NOT_ACQUIRED_OTHER}, or empty for an
     *     attempt that acquired the lock
     */
    public static Optional<String> notAcquired(Op op) {
        if (op.outcome() == Op.Outcome.OK) {
            return Optional.empty();
        }
        if (op.outcome() == Op.Outcome.FAIL && FailureReason.BUSY.name().equals(op.failure())) {
            return Optional.of(NOT_ACQUIRED_BUSY);
        }
        if (op.outcome() == Op.Outcome.FAIL
                && FailureReason.NOT_ENOUGH_NODES.name().equals(op.failure())) {
            return Optional.of(NOT_ACQUIRED_NODES);
        }
        return Optional.of(NOT_ACQUIRED_OTHER);
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

    private static XYChart chart(String title, long originNanos, long endNanos, int rows) {
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
        // On the right, one entry a line: a horizontal legend does not wrap, and with many clients and every kind of
        // mark it ran off both edges of the picture.
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        st.setLegendLayout(Styler.LegendLayout.Vertical);
        st.setLegendBorderColor(Color.WHITE);
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        // Room left of zero for the rows' names (see fill).
        double labels = seconds * LABEL_ROOM;
        st.setXAxisMin(-labels);
        st.setXAxisMax(seconds);
        st.setxAxisTickLabelsFormattingFunction(v -> v < -1e-9 ? " " : String.format(java.util.Locale.ROOT, "%.0f", v));
        st.setYAxisMin(0.4);
        st.setYAxisMax(rows + 0.6);
        st.setYAxisTicksVisible(false);
        st.setAnnotationTextFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        st.setAnnotationTextFontColor(new Color(0x333333));
        st.setAnnotationLineColor(VIOLATION);
        st.setAnnotationLineStroke(
                new BasicStroke(1.2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f));
        st.setCursorEnabled(false);
        st.setMarkerSize(7);
        return chart;
    }

    private void fill(History history, long originNanos, long endNanos, int clients, List<String> nodeLabels) {
        int nodes = nodeLabels.size();
        int rows = clients + 1 + nodes;
        double seconds = (endNanos - originNanos) / NANOS_PER_SECOND;
        double labels = seconds * LABEL_ROOM;
        // Row names sit left of zero, as text annotations: XChart's y-axis ticks cannot be pinned to the rows.
        for (int c = 0; c < clients; c++) {
            chart.addAnnotation(new AnnotationText(this.rows.get(c), -labels / 2, clientRow(c, rows), false));
        }
        for (int n = 0; n < nodes; n++) {
            chart.addAnnotation(new AnnotationText(nodeLabels.get(n), -labels / 2, nodeRow(n, nodes), false));
        }
        float bar = 20f;

        List<List<Span>> waiting = new ArrayList<>();
        List<List<Span>> leases = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            waiting.add(new ArrayList<>());
            leases.add(new ArrayList<>());
        }
        List<double[]> lostMarks = new ArrayList<>();
        Map<String, List<double[]>> failedMarks = new LinkedHashMap<>();
        for (String series : List.of(NOT_ACQUIRED_BUSY, NOT_ACQUIRED_NODES, NOT_ACQUIRED_OTHER)) {
            failedMarks.put(series, new ArrayList<>());
        }
        for (Op op : history.ops()) {
            if (op.client() < 0 || op.client() >= clients) {
                continue;
            }
            waiting.get(op.client()).add(span(op.invokeNanos(), op.completeNanos(), originNanos, endNanos));
            notAcquired(op)
                    .ifPresent(series -> failedMarks.get(series).add(new double[] {
                        sec(op.completeNanos(), originNanos, endNanos), clientRow(op.client(), rows)
                    }));
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
        addBars("acquiring", merge(waitRows), WAITING, 3f, true);
        for (int c = 0; c < clients; c++) {
            addBars(
                    "client " + c + " holds",
                    rowSeries(leases.get(c), clientRow(c, rows)),
                    CLIENT_COLORS[c % CLIENT_COLORS.length],
                    bar,
                    true);
        }

        Map<String, List<double[]>> faults = faults(history, originNanos, endNanos, nodes);
        addBars(
                "node down",
                merge(faults.get("down")),
                DOWN,
                bar,
                !faults.get("down").isEmpty());
        addBars(
                "node stopped (SIGSTOP)",
                merge(faults.get("stopped")),
                STOPPED,
                bar,
                !faults.get("stopped").isEmpty());
        addBars(
                "writes paused",
                merge(faults.get("paused")),
                WRITES_PAUSED,
                bar,
                !faults.get("paused").isEmpty());
        addBars(
                "slow or cut link",
                merge(faults.get("slow")),
                SLOW,
                bar,
                !faults.get("slow").isEmpty());
        addMarks("data lost (FLUSHALL, restart)", faults.get("lost"), SeriesMarkers.DIAMOND, DATA_LOST);
        // Drawn over the client rows' lines and bars, where each failed attempt's grey line ends.
        addMarks(NOT_ACQUIRED_BUSY, failedMarks.get(NOT_ACQUIRED_BUSY), SeriesMarkers.TRIANGLE_DOWN, BUSY);
        addMarks(NOT_ACQUIRED_NODES, failedMarks.get(NOT_ACQUIRED_NODES), SeriesMarkers.SQUARE, NO_QUORUM);
        addMarks(NOT_ACQUIRED_OTHER, failedMarks.get(NOT_ACQUIRED_OTHER), SeriesMarkers.CIRCLE, OTHER_FAILURE);
        addMarks("lease lost", lostMarks, SeriesMarkers.CROSS, Color.BLACK);

        List<long[]> overlaps = overlaps(history, endNanos);
        List<double[]> red = new ArrayList<>();
        for (long[] o : overlaps) {
            Span s = span(o[0], o[1], originNanos, endNanos);
            red.add(rowSeries(List.of(s), clientRow((int) o[2], rows)));
            red.add(rowSeries(List.of(s), clientRow((int) o[3], rows)));
        }
        addBars("two holders at once (violation)", merge(red), VIOLATION, bar, !overlaps.isEmpty());
        overlaps.stream()
                .limit(50)
                .forEach(o -> chart.addAnnotation(new AnnotationLine(sec(o[0], originNanos, endNanos), true, false)));
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

    /** Points as marks, in the legend only when there are any. */
    private void addMarks(String name, List<double[]> pts, Marker marker, Color color) {
        if (pts.isEmpty()) {
            return;
        }
        double[][] xy = points(pts);
        XYSeries s = chart.addSeries(name, xy[0], xy[1]);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(marker);
        s.setMarkerColor(color);
        items.put(name, pts.size());
    }

    private void addBars(String name, double[] xy, Color color, float width, boolean legend) {
        int n = xy.length / 2;
        int spans = 0;
        for (int i = 0; i < n; i++) {
            spans += Double.isNaN(xy[n + i]) ? 1 : 0; // every span ends with a gap
        }
        items.put(name, spans);
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
