/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.util.SplittableRandom;

/**
 * The simulated world: one virtual clock, one queue of events, one seeded random source. Everything in a simulation
 * (node commands, network deliveries, the engine's timers, the workload) is an event here, run one at a time on the
 * caller's thread, so one seed replays exactly. Not thread-safe: a world belongs to one thread.
 */
public final class SimWorld {

    /** One scheduled event; cancelled events stay queued and are skipped. */
    public static final class Event {
        long at;
        final long seq;
        final Runnable task;
        final SimProcess process;
        boolean cancelled;
        boolean done;

        Event(long at, long seq, Runnable task, SimProcess process) {
            this.at = at;
            this.seq = seq;
            this.task = task;
            this.process = process;
        }

        /** Stops the event from running, if it has not run yet. */
        public boolean cancel() {
            if (done || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        public boolean isCancelled() {
            return cancelled;
        }

        public boolean isDone() {
            return done || cancelled;
        }

        /** World time at which the event runs, in nanoseconds. */
        public long at() {
            return at;
        }

        /** Whether this event runs before {@code o}: earlier, or at the same time and scheduled first. */
        boolean before(Event o) {
            return at < o.at || (at == o.at && seq < o.seq);
        }
    }

    /** The events not run yet: a binary heap ordered by time, then by scheduling order. */
    private Event[] heap = new Event[256];

    private int size;
    private final SplittableRandom random;
    private long now;
    private long seq;
    private long executed;
    private Runnable afterEach = () -> {};
    /** Where trace lines go when tracing (a replay), or null. */
    private java.util.function.Consumer<String> trace;

    public SimWorld(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** World time in nanoseconds since the simulation started. */
    public long now() {
        return now;
    }

    public SplittableRandom random() {
        return random;
    }

    /** How many events have run. */
    public long executed() {
        return executed;
    }

    /** Sends a line per simulated message and fault to {@code sink} (a replay's trace); null turns it off. */
    public void trace(java.util.function.Consumer<String> sink) {
        this.trace = sink;
    }

    public boolean tracing() {
        return trace != null;
    }

    /** Records one trace line, stamped with world time in milliseconds. */
    public void trace(String line) {
        if (trace != null) {
            trace.accept(String.format("%9.3f ms  %s", now / 1e6, line));
        }
    }

    /** Runs {@code hook} after every event (the checkers' view of each instant). */
    public void afterEach(Runnable hook) {
        this.afterEach = hook;
    }

    /** Schedules {@code task} at world time {@code at} (never earlier than now), on behalf of {@code process}. */
    public Event at(long at, SimProcess process, Runnable task) {
        Event e = new Event(Math.max(at, now), seq++, task, process);
        push(e);
        return e;
    }

    public Event after(long delayNanos, Runnable task) {
        return at(now + Math.max(0, delayNanos), null, task);
    }

    /** Runs events in time order until the queue is empty or the next one lies after {@code until}. */
    public void runUntil(long until) {
        while (size > 0 && heap[0].at <= until) {
            Event e = pop();
            if (e.cancelled) {
                continue;
            }
            if (e.process != null && e.process.pausedAt(e.at)) {
                // The process is stopped: its event runs when it resumes, in the order it was due.
                e.at = e.process.resumeAt();
                push(e);
                continue;
            }
            now = e.at;
            e.done = true;
            executed++;
            e.task.run();
            afterEach.run();
        }
        now = Math.max(now, until);
    }

    private void push(Event e) {
        if (size == heap.length) {
            heap = java.util.Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Event p = heap[parent];
            if (!e.before(p)) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = e;
    }

    private Event pop() {
        Event top = heap[0];
        Event last = heap[--size];
        heap[size] = null;
        if (size > 0) {
            int i = 0;
            int half = size >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                Event c = heap[child];
                int right = child + 1;
                if (right < size && heap[right].before(c)) {
                    child = right;
                    c = heap[right];
                }
                if (!c.before(last)) {
                    break;
                }
                heap[i] = c;
                i = child;
            }
            heap[i] = last;
        }
        return top;
    }

    /** A uniformly random long in [lo, hi]. */
    public long between(long lo, long hi) {
        return hi <= lo ? lo : lo + random.nextLong(hi - lo + 1);
    }

    /** True with probability {@code p}. */
    public boolean chance(double p) {
        return p > 0 && random.nextDouble() < p;
    }
}
