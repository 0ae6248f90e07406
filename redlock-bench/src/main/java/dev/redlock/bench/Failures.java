/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.util.Map;
import java.util.TreeMap;

/** Counts what went wrong in a phase: busy answers, and exceptions by type with the first message. Thread-safe. */
final class Failures {

    private long busy;
    private long errors;
    private long releaseErrors;
    private final Map<String, Long> byType = new TreeMap<>();
    private String first;

    synchronized void busy() {
        busy++;
    }

    synchronized void error(Throwable e) {
        errors++;
        record("acquire", e);
    }

    synchronized void releaseError(Throwable e) {
        releaseErrors++;
        record("release", e);
    }

    private void record(String op, Throwable e) {
        byType.merge(op + " " + e.getClass().getSimpleName(), 1L, Long::sum);
        if (first == null) {
            String message = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
            first = op + " " + e.getClass().getName() + ": "
                    + (message.length() > 200 ? message.substring(0, 200) + "..." : message);
        }
    }

    synchronized long busyCount() {
        return busy;
    }

    synchronized long errorCount() {
        return errors;
    }

    synchronized long releaseErrorCount() {
        return releaseErrors;
    }

    synchronized boolean isEmpty() {
        return busy == 0 && errors == 0 && releaseErrors == 0;
    }

    /** One line: "busy N; acquire X ×N; ...; first: ...", or "" if nothing went wrong. */
    synchronized String summary() {
        StringBuilder out = new StringBuilder();
        if (busy > 0) {
            out.append("busy/false ×").append(busy);
        }
        byType.forEach((type, count) -> {
            if (out.length() > 0) {
                out.append("; ");
            }
            out.append(type).append(" ×").append(count);
        });
        if (first != null) {
            out.append("; first: ").append(first);
        }
        return out.toString();
    }
}
