/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

/**
 * A simulated process with its own clock: a client JVM or a Redis server. Its clock runs at a fixed rate against
 * world time (clock drift) and it can be stopped for a while (SIGSTOP, a GC pause): events on its behalf wait.
 */
public class SimProcess {

    private final SimWorld world;
    private final String label;
    private final double rate;
    private final long offset;
    private long pausedFrom = Long.MAX_VALUE;
    private long pausedUntil = Long.MIN_VALUE;

    /**
     * @param label the process's name in traces
     * @param rate how many nanoseconds this process's clock advances per world nanosecond (1 = exact)
     * @param offset the clock's reading at world time 0
     */
    public SimProcess(SimWorld world, String label, double rate, long offset) {
        this.world = world;
        this.label = label;
        this.rate = rate;
        this.offset = offset;
    }

    @Override
    public String toString() {
        return label;
    }

    public SimWorld world() {
        return world;
    }

    public double rate() {
        return rate;
    }

    /** This process's monotonic clock, in nanoseconds. */
    public long clockNanos() {
        return offset + (long) (world.now() * rate);
    }

    /** The world time at which this process's clock reads {@code clock} (rounded up). */
    public long worldTimeOf(long clock) {
        double w = (clock - offset) / rate;
        return w >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(w);
    }

    /** World nanoseconds that pass while this clock advances {@code clockNanos}. */
    public long worldDelay(long clockNanos) {
        return (long) Math.ceil(clockNanos / rate);
    }

    /**
     * Stops the process from {@code from} to {@code until} (world time). A stop while already stopped only lengthens
     * the pause: events put off to the old end must not run before events due later.
     */
    public void pause(long from, long until) {
        world.trace(this + " stops for " + (until - from) / 1_000_000 + " ms");
        if (pausedAt(from)) {
            pausedUntil = Math.max(pausedUntil, until);
            return;
        }
        pausedFrom = from;
        pausedUntil = until;
    }

    /**
     * The process at this address is running from now on (another process took its place): a stop in progress ends.
     * Events it had put off run now, in the order they were due.
     */
    protected void resume() {
        if (paused()) {
            pausedUntil = world.now();
        }
    }

    boolean pausedAt(long t) {
        return t >= pausedFrom && t < pausedUntil;
    }

    long resumeAt() {
        return pausedUntil;
    }

    /** Whether the process is stopped now. */
    public boolean paused() {
        return pausedAt(world.now());
    }

    /** Schedules {@code task} after {@code clockDelay} nanoseconds of this process's own clock. */
    public SimWorld.Event afterClock(long clockDelay, Runnable task) {
        return world.at(world.now() + worldDelay(Math.max(0, clockDelay)), this, task);
    }

    /** Schedules {@code task} at world time {@code at} on behalf of this process. */
    public SimWorld.Event at(long at, Runnable task) {
        return world.at(at, this, task);
    }
}
