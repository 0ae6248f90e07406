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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One selector per client, and one thread for it: it reads every node's replies and completes their ops, finishes
 * connects, and sweeps for stalled connections. Callers write their commands themselves, so the common path has no
 * hand-off on the way out, and a reply wakes at most this one thread on the way back.
 *
 * <p>A blocking caller that is the only one waiting for a round may <em>drive</em> the loop instead ({@link
 * #drivingParking}): it runs the passes (select, replies, sweep) on its own thread until its round is decided, while
 * the loop thread stays parked. On two cores shared with the servers, a hand-off costs more than the round's own
 * work, and this is the product's hot path; the rules that keep it safe:
 *
 * <ul>
 *   <li>Whoever runs a pass holds {@link #turn}, so everything documented as "loop thread only" is touched by one
 *       thread at a time, with the lock's happens-before between them.
 *   <li>One driver at a time, never inside a pass (a completion that blocks on a round parks as before), never a
 *       virtual thread (a select would hold its carrier), and never while other callers are parked waiting for the
 *       loop to read for them: with several callers at once the loop thread reads for all of them, as before.
 *   <li>After a drive the loop thread leaves the selector to the same caller for {@link #GRACE_NANOS} (its next round
 *       usually follows at once), unless a task, an op of another thread or a parked caller needs the loop: then it
 *       takes over at once. While a caller drives, the loop thread looks only every {@link #DRIVEN_LOOK_NANOS}, so
 *       replies that come after a caller's last drive and that it does not read (stragglers of a decided round, a
 *       command it sends and waits for on a future) wait at most that plus the grace; a release notification for a
 *       caller asleep, a grace.
 * </ul>
 */
final class NioLoop {

    private static final Logger LOG = LoggerFactory.getLogger(NioLoop.class);

    /** How long the loop thread leaves the selector to the caller that drove last, if nobody else needs it. */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * How often the loop thread looks while a caller drives: replies that come after a caller's last drive and that it
     * does not read in one (stragglers of a decided round, a command its thread sends and then waits for on a future:
     * close, an inspection, a release's completion) wait at most this, plus the grace.
     */
    static final long DRIVEN_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    /** Something the loop reacts to: a registered channel's readiness, and a periodic sweep. */
    interface Handler {
        void ready(SelectionKey key);

        void sweep(long nowNanos);

        /** Anything {@link #ready} or {@link #sweep} threw: that node fails, every other node goes on. */
        void crashed(Throwable t);

        /**
         * Whether something may arrive here for a caller that is asleep, not driving (a release notification): the
         * loop thread then looks again within {@link #GRACE_NANOS} of a drive's end, not a tick.
         */
        default boolean listens() {
            return false;
        }
    }

    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final List<Handler> handlers = new CopyOnWriteArrayList<>();
    private final long tickMillis;
    private volatile boolean stopping;

    /** Held by whoever runs a pass: the loop thread, or a driving caller. */
    private final ReentrantLock turn = new ReentrantLock();
    /** The caller driving the loop now, if any. */
    private final AtomicReference<Thread> driver = new AtomicReference<>();
    /** The caller that drove last: its own ops need no loop thread, as it reads their replies when it drives again. */
    private volatile Thread lastDriver;
    /** Until when ({@link System#nanoTime}) the loop thread leaves the selector to the last driver. */
    private volatile long leftToDriverUntil = System.nanoTime();
    /** A task, or an op of a thread that will not read its replies, needs the loop thread. */
    private volatile boolean wanted;
    /** Whether the loop thread runs passes now (rather than leave them to a driver). */
    private volatile boolean loopSelecting = true;
    /** Set once the selector failed under a driver: nobody drives again. */
    private volatile boolean noDriving;
    /** Blocking callers parked for their round: someone must read for them. */
    private final AtomicInteger parked = new AtomicInteger();

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

    /** Runs {@code task} on the loop thread, or in a driver's pass (registrations must happen in a pass). */
    void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
        wanted = true;
        LockSupport.unpark(thread);
    }

    /**
     * An op was written to a node: if the loop thread left the selector to a driver and the writer is not that driver
     * (whose next pass reads the reply), the loop thread takes it back.
     */
    void sent() {
        Thread me = Thread.currentThread();
        if (me == thread || me == lastDriver || driver.get() == me) {
            return;
        }
        wanted = true;
        if (!loopSelecting) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        try {
            while (!stopping) {
                if (!loopsTurn()) {
                    loopSelecting = false;
                    if (!loopsTurn() && !stopping) {
                        // A driver runs the passes, or may come back within its grace: its exit, a task or another
                        // thread's op unparks this thread.
                        LockSupport.parkNanos(this, parkNanos());
                    }
                    continue;
                }
                loopSelecting = true;
                turn.lock();
                try {
                    if (driver.get() == null && !stopping) {
                        wanted = false;
                        pass(tickMillis);
                    }
                } finally {
                    turn.unlock();
                }
            }
            turn.lock();
            try {
                runTasks();
            } finally {
                turn.unlock();
            }
        } catch (IOException e) {
            LOG.error("Redlock I/O loop failed; nodes will answer with errors", e);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            LOG.error("Redlock I/O loop failed; nodes will answer with errors", e);
            throw e;
        } finally {
            noDriving = true; // a closed selector must not have callers select on it
            turn.lock();
            try {
                selector.close();
            } catch (IOException e) {
                LOG.debug("error closing the selector", e);
            } finally {
                turn.unlock();
            }
        }
    }

    /** Whether the loop thread should run the passes now rather than leave them to a driver. */
    private boolean loopsTurn() {
        if (driver.get() != null) {
            return false;
        }
        return wanted || parked.get() > 0 || System.nanoTime() - leftToDriverUntil >= 0;
    }

    private long parkNanos() {
        if (driver.get() != null) {
            // The driver's exit wakes this thread only if someone else needs it (a task, another thread's op, a parked
            // caller). Otherwise it looks again after DRIVEN_LOOK_NANOS: a wake every grace cost a context switch every
            // few rounds of a caller that drives back to back. While a caller sleeps until a release, the notification
            // that wakes it is read within a grace, as before.
            long tick = Math.min(TimeUnit.MILLISECONDS.toNanos(tickMillis), DRIVEN_LOOK_NANOS);
            for (Handler h : handlers) {
                if (h.listens()) {
                    return Math.min(tick, GRACE_NANOS);
                }
            }
            return tick;
        }
        return Math.max(1_000, leftToDriverUntil - System.nanoTime());
    }

    /** One pass (turn holder only): tasks, the selector's ready keys, then the sweep. */
    private void pass(long timeoutMillis) throws IOException {
        runTasks();
        if (timeoutMillis <= 0) {
            selector.selectNow();
        } else {
            selector.select(timeoutMillis);
        }
        java.util.Set<SelectionKey> selected = selector.selectedKeys();
        for (SelectionKey key : selected) {
            Handler h = (Handler) key.attachment();
            try {
                if (key.isValid()) {
                    h.ready(key);
                }
            } catch (Throwable t) {
                crashed(h, t);
            }
        }
        selected.clear();
        long now = System.nanoTime();
        for (Handler h : handlers) {
            try {
                h.sweep(now);
            } catch (Throwable t) {
                crashed(h, t);
            }
        }
    }

    /**
     * Runs passes on the calling thread until {@code done}, at most {@code nanos}, if it may drive (see the class
     * comment); returns false at once if it may not, and the caller parks as usual.
     */
    private boolean drive(long nanos, BooleanSupplier done) {
        Thread me = Thread.currentThread();
        if (me == thread
                || stopping
                || noDriving
                || turn.isHeldByCurrentThread()
                || parked.get() > 0
                || isVirtual(me)) {
            return false;
        }
        if (!driver.compareAndSet(null, me)) {
            return false;
        }
        boolean locked = false;
        try {
            if (!turn.tryLock()) {
                // The loop thread is in a pass (selecting, most likely): it lets go once the pass ends. A pass that
                // takes long (a connect, a TLS handshake) must not hold the caller past its deadline: it parks then.
                selector.wakeup();
                boolean got;
                try {
                    got = turn.tryLock(nanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    me.interrupt(); // kept for the caller, which answers it
                    got = false;
                }
                if (!got) {
                    return false;
                }
            }
            locked = true;
            long end = System.nanoTime() + nanos;
            while (!stopping && !me.isInterrupted() && !done.getAsBoolean()) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                pass(Math.min(tickMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999))));
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException e) {
            // The loop thread reports a broken selector; callers park from now on (and fail at their deadlines).
            noDriving = true;
            LOG.debug("Redlock I/O: callers stopped reading their own replies", e);
        } finally {
            lastDriver = me;
            leftToDriverUntil = System.nanoTime() + GRACE_NANOS;
            driver.set(null);
            if (locked) {
                turn.unlock();
            }
            if (wanted || parked.get() > 0 || stopping) {
                leftToDriverUntil = System.nanoTime();
                LockSupport.unpark(thread);
            }
        }
        return true;
    }

    /** {@code Thread.isVirtual()} where the JDK has it (21 and later), else null. */
    private static final java.lang.invoke.MethodHandle IS_VIRTUAL = isVirtualHandle();

    private static java.lang.invoke.MethodHandle isVirtualHandle() {
        try {
            return java.lang.invoke.MethodHandles.publicLookup()
                    .findVirtual(Thread.class, "isVirtual", java.lang.invoke.MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /**
     * A virtual thread never drives: a select would hold its carrier thread for the whole round, where parking lets
     * the carrier run other virtual threads.
     */
    private static boolean isVirtual(Thread t) {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(t);
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * How blocking callers of this client wait for their rounds: one that is alone reads its replies itself (see the
     * class comment); the others park until the loop (or the driver) has read theirs.
     */
    Parking drivingParking() {
        return new Parking() {
            @Override
            public void await(Object blocker, long nanos, BooleanSupplier done) {
                if (done.getAsBoolean() || drive(nanos, done)) {
                    return;
                }
                parked.incrementAndGet();
                try {
                    if (driver.get() == null && !loopSelecting) {
                        LockSupport.unpark(thread); // the last driver left meanwhile: the loop reads for this one
                    }
                    if (!done.getAsBoolean()) {
                        LockSupport.parkNanos(blocker, nanos);
                    }
                } finally {
                    parked.decrementAndGet();
                }
            }

            @Override
            public void unpark(Thread t) {
                LockSupport.unpark(t);
                if (driver.get() == t) {
                    selector.wakeup(); // it waits in select, not parked
                }
            }

            @Override
            public void idle() {
                if (lastDriver == Thread.currentThread()) {
                    lastDriver = null;
                    leftToDriverUntil = System.nanoTime();
                    LockSupport.unpark(thread);
                }
            }
        };
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
        LockSupport.unpark(thread);
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
