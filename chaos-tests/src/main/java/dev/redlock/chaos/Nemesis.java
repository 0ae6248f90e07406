/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault schedule: actions at fixed offsets from the start of a run, usually drawn from a seeded
 * {@link java.util.Random} so that a printed seed replays the same schedule. Runs on its own thread.
 */
public final class Nemesis {

    private static final Logger LOG = LoggerFactory.getLogger(Nemesis.class);

    /** One scheduled action. */
    public record Step(Duration at, String description, Runnable action) {}

    private final List<Step> steps = new ArrayList<>();
    private Thread thread;
    private volatile Throwable failure;

    /**
     * Adds an action at {@code at} after {@link #start(long)}.
     *
     * @return this schedule
     */
    public Nemesis at(Duration at, String description, Runnable action) {
        steps.add(new Step(at, description, action));
        return this;
    }

    /** The steps, in time order. */
    public List<Step> steps() {
        List<Step> sorted = new ArrayList<>(steps);
        sorted.sort(Comparator.comparing(Step::at));
        return sorted;
    }

    /**
     * Starts running the schedule relative to {@code originNanos} ({@link System#nanoTime()}).
     */
    public void start(long originNanos) {
        List<Step> plan = steps();
        thread = new Thread(
                () -> {
                    for (Step step : plan) {
                        long wait = originNanos + step.at().toNanos() - System.nanoTime();
                        while (wait > 0) {
                            LockSupport.parkNanos(wait);
                            if (Thread.currentThread().isInterrupted()) {
                                return;
                            }
                            wait = originNanos + step.at().toNanos() - System.nanoTime();
                        }
                        LOG.info("nemesis +{} ms: {}", step.at().toMillis(), step.description());
                        try {
                            step.action().run();
                        } catch (RuntimeException | Error e) {
                            failure = e;
                            LOG.error("nemesis step '{}' failed", step.description(), e);
                            return;
                        }
                    }
                },
                "chaos-nemesis");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits for the schedule to finish and rethrows a step's failure. */
    public void join(Duration timeout) throws InterruptedException {
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            thread.interrupt();
            throw new IllegalStateException("nemesis did not finish within " + timeout);
        }
        if (failure != null) {
            throw new IllegalStateException("a nemesis step failed", failure);
        }
    }

    /** Stops the schedule early. */
    public void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (Step step : steps()) {
            s.append(String.format("  +%5d ms  %s%n", step.at().toMillis(), step.description()));
        }
        return s.toString();
    }
}
