/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every number the comparison produced, in the order it was measured, plus free-text notes per phase. */
final class Results {

    /** One measured value; {@code samples} is what it was computed from (cycles, latencies, attempts). */
    record Row(String impl, String phase, String metric, double value, String unit, long samples) {}

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    synchronized void put(String impl, String phase, String metric, double value, String unit, long samples) {
        rows.add(new Row(impl, phase, metric, value, unit, samples));
    }

    /** Returns the value, or NaN if it was not measured. */
    synchronized double get(String impl, String phase, String metric) {
        for (Row row : rows) {
            if (row.impl().equals(impl)
                    && row.phase().equals(phase)
                    && row.metric().equals(metric)) {
                return row.value();
            }
        }
        return Double.NaN;
    }

    synchronized void note(String impl, String phase, String text) {
        if (!text.isEmpty()) {
            notes.put(impl + "|" + phase, text);
        }
    }

    synchronized String note(String impl, String phase) {
        return notes.getOrDefault(impl + "|" + phase, "");
    }

    synchronized List<Row> rows() {
        return List.copyOf(rows);
    }

    /** Notes as (impl, phase, text), in the order they were made. */
    synchronized List<String[]> notes() {
        List<String[]> out = new ArrayList<>();
        notes.forEach((key, text) -> {
            int bar = key.indexOf('|');
            out.add(new String[] {key.substring(0, bar), key.substring(bar + 1), text});
        });
        return out;
    }
}
