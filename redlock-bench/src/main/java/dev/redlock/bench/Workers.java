/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The worker threads of one measured phase. Each opens what it needs, says it is ready, and runs until the phase
 * stops it; whatever it throws is recorded in the phase's {@link Failures}, and one that does not stop in time is
 * interrupted and recorded too.
 */
final class Workers {

    /** How long the workers may take to open their handles. */
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    /** One worker's life, from opening its handles to the end of its loop. */
    @FunctionalInterface
    interface Work {
        /**
         * Runs worker {@code worker}.
         *
         * @param worker the worker's index, from 0
         * @param ready to run once the worker's handles are open (running it again does nothing)
         */
        void run(int worker, Runnable ready) throws Exception;
    }

    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch ready;
    private final Failures failures;

    private Workers(int count, Failures failures) {
        this.ready = new CountDownLatch(count);
        this.failures = failures;
    }

    /**
     * Starts {@code count} daemon threads named {@code name-<index>}, each running {@code work}; a worker that fails
     * before it is ready counts as ready, so {@link #awaitReady()} never waits for it.
     */
    static Workers start(String name, int count, Failures failures, Work work) {
        Workers workers = new Workers(count, failures);
        for (int i = 0; i < count; i++) {
            int index = i;
            Thread thread = new Thread(
                    () -> {
                        boolean[] counted = {false};
                        Runnable readyOnce = () -> {
                            if (!counted[0]) {
                                counted[0] = true;
                                workers.ready.countDown();
                            }
                        };
                        try {
                            work.run(index, readyOnce);
                        } catch (InterruptedException e) {
                            failures.error(e);
                            Thread.currentThread().interrupt();
                        } catch (Exception e) {
                            failures.error(e);
                        } finally {
                            readyOnce.run();
                        }
                    },
                    name + "-" + i);
            thread.setDaemon(true); // a stuck worker must not keep the JVM (and the redis-servers) alive
            workers.threads.add(thread);
            thread.start();
        }
        return workers;
    }

    /** Waits until every worker is ready (or failed), recording a failure if that takes more than 30 s. */
    void awaitReady() throws InterruptedException {
        if (!ready.await(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            failures.error(new IllegalStateException(
                    "workers did not open their handles within " + READY_TIMEOUT.toSeconds() + " s"));
        }
    }

    /**
     * Joins the workers, which must have been told to stop, within {@code timeout} for all of them; one still running
     * then is recorded as a failure, interrupted, and given 5 s more.
     */
    void join(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                failures.error(new IllegalStateException(
                        thread.getName() + " did not stop within " + timeout.toSeconds() + " s; interrupted"));
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(5));
            }
        }
    }
}
