/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The engine's scheduler inside a simulation: a delay is measured on the client's own (drifting) clock and the task
 * becomes an event of the world, run on behalf of the client (so a paused client runs it late). After
 * {@link #shutdown()} new tasks are rejected, as the real client's scheduler does once closed.
 */
final class SimScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final SimProcess client;
    private boolean shutdown;

    SimScheduler(SimProcess client) {
        this.client = client;
    }

    /** A scheduled task as the engine sees it. */
    private final class Task implements ScheduledFuture<Object> {
        final SimWorld.Event event;

        Task(long delayNanos, Runnable r) {
            this.event = client.afterClock(delayNanos, r);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(event.at() - client.world().now(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return event.cancel();
        }

        @Override
        public boolean isCancelled() {
            return event.isCancelled();
        }

        @Override
        public boolean isDone() {
            return event.isDone();
        }

        @Override
        public Object get() throws ExecutionException {
            throw new UnsupportedOperationException("a simulation never blocks");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a simulation never blocks");
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException("scheduler shut down");
        }
        return new Task(unit.toNanos(delay), command);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return (ScheduledFuture<V>) schedule(
                () -> {
                    try {
                        callable.call();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                delay,
                unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the engine");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the engine");
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // execute(): nothing is returned to wait on
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
