/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.history.Op;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A history kept on disk while a long run goes on: every op and fault is appended to a JSON-lines file as it happens,
 * in the format {@link History#readJsonLines(Path)} reads back for the checkers at the end. A soak's history would
 * otherwise grow in the heap that the soak watches for growth.
 *
 * <p>Thread-safe: the workload's threads and the nemesis append concurrently.
 */
public final class HistoryLog implements AutoCloseable {

    private final Path file;
    private final BufferedWriter out;
    private long lines;

    private HistoryLog(Path file, BufferedWriter out) {
        this.file = file;
        this.out = out;
    }

    /**
     * Creates (or replaces) the file.
     *
     * @param file where to write
     * @return the log
     * @throws UncheckedIOException if the file cannot be created
     */
    public static HistoryLog create(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            return new HistoryLog(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Appends an operation.
     *
     * @param op the finished operation
     * @throws UncheckedIOException if it cannot be written
     */
    public void add(Op op) {
        write(op.toJson());
    }

    /**
     * Appends a fault.
     *
     * @param event the nemesis event
     * @throws UncheckedIOException if it cannot be written
     */
    public void add(NemesisEvent event) {
        write(event.toJson());
    }

    private synchronized void write(String line) {
        try {
            out.write(line);
            out.write('\n');
            lines++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Returns how many lines were written.
     *
     * @return ops and events so far
     */
    public synchronized long lines() {
        return lines;
    }

    /**
     * Returns the file.
     *
     * @return where the lines go
     */
    public Path file() {
        return file;
    }

    /**
     * Flushes and reads the whole file back.
     *
     * @return a history holding every op and event written so far
     * @throws UncheckedIOException if the file cannot be read
     */
    public History read() {
        try {
            synchronized (this) {
                out.flush();
            }
            return History.readJsonLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Flushes and closes the file.
     *
     * @throws UncheckedIOException if it cannot be closed
     */
    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
