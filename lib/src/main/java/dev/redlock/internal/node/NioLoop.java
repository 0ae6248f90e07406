/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector thread per client: it reads every node's replies and completes their ops, finishes connects, and
 * sweeps for stalled connections. Callers write their commands themselves, so the common path has no hand-off on
 * the way out, and a reply wakes at most this one thread on the way back.
 */
final class NioLoop {

    private static final Logger LOG = LoggerFactory.getLogger(NioLoop.class);

    /** Something the loop reacts to: a registered channel's readiness, and a periodic sweep. */
    interface Handler {
        void ready(SelectionKey key);

        void sweep(long nowNanos);

        /** Anything {@link #ready} or {@link #sweep} threw: that node fails, every other node goes on. */
        void crashed(Throwable t);
    }

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final List<Handler> handlers = new CopyOnWriteArrayList<>();
    private final long tickMillis;
    private volatile boolean stopping;

    NioLoop(String threadName, long tickMillis) {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a selector", e);
        }
        this.tickMillis = Math.max(1, tickMillis);
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    Selector selector() {
        return selector;
    }

    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    void add(Handler handler) {
        handlers.add(handler);
    }

    /** Runs {@code task} on the loop thread (registrations must happen there while it may be selecting). */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    private void run() {
        try {
            while (!stopping) {
                runTasks();
                selector.select(tickMillis);
                for (SelectionKey key : selector.selectedKeys()) {
                    Handler h = (Handler) key.attachment();
                    try {
                        if (key.isValid()) {
                            h.ready(key);
                        }
                    } catch (Throwable t) {
                        crashed(h, t);
                    }
                }
                selector.selectedKeys().clear();
                long now = System.nanoTime();
                for (Handler h : handlers) {
                    try {
                        h.sweep(now);
                    } catch (Throwable t) {
                        crashed(h, t);
                    }
                }
            }
            runTasks();
        } catch (IOException e) {
            LOG.error("Redlock I/O loop failed; nodes will answer with errors", e);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            LOG.error("Redlock I/O loop failed; nodes will answer with errors", e);
            throw e;
        } finally {
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("error closing the selector", e);
            }
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (Throwable t) {
                LOG.error("Redlock I/O loop task failed", t);
            }
        }
    }

    /** One node's failure stays that node's: whatever it threw (even an Error), the loop serves the others. */
    private static void crashed(Handler h, Throwable t) {
        try {
            h.crashed(t);
        } catch (Throwable again) {
            LOG.error("Redlock I/O loop: a node failed while failing", again);
        }
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    /** Stops the loop after its current pass and waits for the thread to end. */
    void stop(long joinMillis) {
        stopping = true;
        selector.wakeup();
        try {
            thread.join(joinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("Redlock I/O loop did not stop within {} ms", joinMillis);
        }
    }
}
