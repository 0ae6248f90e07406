/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Blocking acquisitions from 10,000 virtual threads on one RedLock over five real Redis masters: mutual exclusion
 * holds, no thread is left stuck, and no virtual thread pins its carrier thread while it blocks in the library (JFR's
 * {@code jdk.VirtualThreadPinned}, recorded with threshold 0 and stack traces).
 *
 * <p>Compiled for Java 17: virtual threads are reached through method handles ({@code Thread.ofVirtual()}), so on
 * Java 17 this test is skipped by assumption. The build's JDK 25 run sets {@value #REQUIRED}, and there a missing
 * {@code Thread.ofVirtual()} fails the test instead.
 *
 * <p>All 10,000 threads start at once and each waits for the lock, inside the library, until a shared deadline (only
 * the first few waiters of a client poll the nodes; the others wait for their turn). The deadline decides how many of
 * the 10,000 get the lock; a lock that works serves hundreds a second.
 *
 * <p>A control proves that the recording sees pinning on the running JVM: one virtual thread sleeps inside a class
 * initializer, which pins its carrier on every JDK with virtual threads (JDK 24 stopped {@code synchronized} from
 * pinning, not class initializers). For the same reason a pin under the JVM's own linkage of a call site (the first
 * run of an {@code invokedynamic}, such as a string concatenation) or under a class initializer is the JDK's, once
 * per site, and is printed but not counted: the warm-up runs the common path first, so these are rare.
 */
class VirtualThreadPinningTest extends RedisBackedTest {

    /** System property: fail, not skip, where virtual threads are missing. */
    static final String REQUIRED = "redlock.test.requireVirtualThreads";

    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final int THREADS = 10_000;
    /** Every thread gives up waiting this long after the start (counted, not a failure). */
    private static final Duration BUDGET = Duration.ofSeconds(6);
    /** A floor far below what a working lock serves within the budget, and far above a collapse (a few a second). */
    private static final int MIN_ACQUIRED = 600;
    /** Short, with no watchdog: a holder that somehow never released frees the lock soon. */
    private static final long LEASE_MILLIS = 2_000;

    private static final String WORKER_PREFIX = "redlock-vt-";
    private static final String CONTROL_PREFIX = "pinning-control-";
    /** Frames under which a pin is the JVM's (an upcall from the VM sits below them), not the library's. */
    private static final List<String> JVM_UPCALLS = List.of(
            "java.lang.invoke.MethodHandleNatives.linkCallSite",
            "java.lang.invoke.MethodHandleNatives.linkDynamicConstant",
            "java.lang.invoke.MethodHandleNatives.linkMethodHandleConstant",
            "java.lang.invoke.MethodHandleNatives.findMethodHandleType",
            ".<clinit>");

    /** Deliberately not atomic and not volatile: only the lock makes the increments safe. */
    private static final class Counter {
        long value;
    }

    @Test
    void tenThousandVirtualThreadsAcquireOneLockWithoutPinningTheirCarriers() throws Exception {
        ThreadFactory workers = virtualThreads(WORKER_PREFIX);
        ThreadFactory control = virtualThreads(CONTROL_PREFIX);
        QuorumLock lock = client().redLock(uniqueName("virtual"));

        // Warm-up outside the recording: the classes and call sites on the common path are initialized and linked
        // here, so that the recording sees the library's steady state.
        Result warm = contend(workers, lock, 100, Duration.ofSeconds(20));
        warm.assertSound(100);
        assertEquals(100, warm.acquired.get(), "the warm-up's 100 threads all get the lock");

        Path file = Files.createTempFile("virtual-thread-pinning", ".jfr");
        Result run;
        List<RecordedEvent> pinned;
        try {
            try (Recording recording = new Recording()) {
                recording.setName("virtual-thread-pinning");
                recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
                recording.start();
                pinOnPurpose(control);
                run = contend(workers, lock, THREADS, BUDGET);
                recording.stop();
                recording.dump(file);
            }
            pinned = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals(PINNED))
                    .collect(Collectors.toList());
        } finally {
            Files.deleteIfExists(file);
        }
        List<RecordedEvent> byJvm =
                pinned.stream().filter(e -> !isControl(e) && underJvmUpcall(e)).collect(Collectors.toList());
        List<RecordedEvent> byLibrary =
                pinned.stream().filter(e -> !isControl(e) && !underJvmUpcall(e)).collect(Collectors.toList());

        System.out.printf(
                "%,d virtual threads on one RedLock over 5 masters, Java %s:"
                        + " %,d acquired and released in %,d ms (%.0f/s), %,d gave up at the %d s deadline;"
                        + " pinned: %d outside the JVM's linkage, %d under it%n",
                THREADS,
                Runtime.version(),
                run.acquired.get(),
                run.elapsedMillis,
                run.acquired.get() * 1000.0 / Math.max(1, run.elapsedMillis),
                run.gaveUp.get(),
                BUDGET.toSeconds(),
                byLibrary.size(),
                byJvm.size());
        byJvm.forEach(e -> System.out.println("pinned under the JVM's linkage (not counted): " + describe(e)));

        assertTrue(
                pinned.stream().anyMatch(VirtualThreadPinningTest::isControl),
                "the control pinned its carrier but the recording saw no " + PINNED
                        + " event: this JVM's recording cannot see pinning, so its silence proves nothing");
        if (!byLibrary.isEmpty()) {
            fail(byLibrary.size() + " " + PINNED + " event(s) while virtual threads used the lock; the first:\n"
                    + byLibrary.stream()
                            .limit(3)
                            .map(VirtualThreadPinningTest::describe)
                            .collect(Collectors.joining("\n")));
        }
        run.assertSound(THREADS);
        assertTrue(
                run.acquired.get() >= MIN_ACQUIRED,
                () -> "only " + run.acquired.get() + " of " + THREADS + " acquired within " + BUDGET);
    }

    /** What one contention run saw. */
    private static final class Result {
        final AtomicInteger acquired = new AtomicInteger();
        final AtomicInteger gaveUp = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final Counter counter = new Counter();
        final List<Thread> stuck = new ArrayList<>();
        long elapsedMillis;

        void assertSound(int threads) {
            if (!stuck.isEmpty()) {
                StringBuilder sb = new StringBuilder(
                        stuck.size() + " virtual thread(s) still running 30 s after the deadline; the first:");
                for (Thread t : stuck.subList(0, Math.min(3, stuck.size()))) {
                    sb.append("\n").append(t);
                    for (StackTraceElement frame : t.getStackTrace()) {
                        sb.append("\n\tat ").append(frame);
                    }
                }
                fail(sb.toString());
            }
            if (!failures.isEmpty()) {
                AssertionError e = new AssertionError(failures.size() + " thread(s) failed; the first is the cause");
                e.initCause(failures.peek());
                throw e;
            }
            assertEquals(0, overlaps.get(), "threads inside the critical section at once");
            assertEquals(threads, acquired.get() + gaveUp.get(), "every thread either acquired or gave up");
            assertEquals(acquired.get(), counter.value, "increments lost: mutual exclusion broke");
        }
    }

    /**
     * Starts {@code threads} virtual threads that each wait for the lock until the deadline, increment the shared counter inside it (yielding between read and write, where a
     * second holder would lose an increment), and release it.
     */
    private static Result contend(ThreadFactory factory, QuorumLock lock, int threads, Duration budget)
            throws InterruptedException {
        Result r = new Result();
        AtomicInteger inside = new AtomicInteger();
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        List<Thread> started = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            Thread t = factory.newThread(() -> {
                try {
                    holdOnce(lock, deadline, inside, r);
                } catch (Throwable e) {
                    r.failures.add(e);
                }
            });
            t.start();
            started.add(t);
        }
        long joinBy = deadline + TimeUnit.SECONDS.toNanos(30);
        for (Thread t : started) {
            long left = joinBy - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                r.stuck.add(t);
            }
        }
        r.elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return r;
    }

    private static void holdOnce(QuorumLock lock, long deadline, AtomicInteger inside, Result r)
            throws InterruptedException {
        long wait = Math.max(0, deadline - System.nanoTime());
        if (!lock.tryLock(wait, TimeUnit.MILLISECONDS.toNanos(LEASE_MILLIS), TimeUnit.NANOSECONDS)) {
            r.gaveUp.incrementAndGet();
            return;
        }
        try {
            if (inside.incrementAndGet() != 1) {
                r.overlaps.incrementAndGet();
            }
            long v = r.counter.value;
            Thread.yield(); // another virtual thread runs on this carrier: a second holder would lose an increment
            r.counter.value = v + 1;
            inside.decrementAndGet();
            r.acquired.incrementAndGet();
        } finally {
            lock.unlock();
        }
    }

    /** Loads a class whose initializer sleeps, on a virtual thread: that pins its carrier on every JDK. */
    private static void pinOnPurpose(ThreadFactory control) throws InterruptedException {
        Thread t = control.newThread(() -> {
            if (SleepsInItsInitializer.INITIALIZED_AT == 0) {
                throw new AssertionError("not initialized");
            }
        });
        t.start();
        t.join(TimeUnit.SECONDS.toMillis(10));
        assertTrue(!t.isAlive(), "the pinning control did not end");
    }

    private static final class SleepsInItsInitializer {
        static final long INITIALIZED_AT;

        static {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            INITIALIZED_AT = System.nanoTime() | 1;
        }
    }

    private static boolean isControl(RecordedEvent e) {
        RecordedThread t = e.getThread();
        String name = t == null ? null : t.getJavaName();
        return name != null && name.startsWith(CONTROL_PREFIX);
    }

    private static boolean underJvmUpcall(RecordedEvent e) {
        RecordedStackTrace stack = e.getStackTrace();
        if (stack == null) {
            return false;
        }
        for (RecordedFrame f : stack.getFrames()) {
            String frame =
                    f.getMethod().getType().getName() + "." + f.getMethod().getName();
            if (JVM_UPCALLS.stream().anyMatch(frame::endsWith)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(RecordedEvent e) {
        StringBuilder sb = new StringBuilder();
        RecordedThread t = e.getThread();
        sb.append("thread ")
                .append(t == null ? "?" : t.getJavaName())
                .append(", pinned for ")
                .append(e.getDuration());
        RecordedStackTrace stack = e.getStackTrace();
        if (stack != null) {
            for (RecordedFrame f : stack.getFrames()) {
                sb.append("\n\tat ")
                        .append(f.getMethod().getType().getName())
                        .append('.')
                        .append(f.getMethod().getName())
                        .append(':')
                        .append(f.getLineNumber());
            }
        }
        return sb.toString();
    }

    /**
     * A factory of virtual threads named {@code prefix0}, {@code prefix1}..., through {@code Thread.ofVirtual()} (Java
     * 21+). On an older Java the test is skipped, unless {@value #REQUIRED} is set: then it fails.
     */
    private static ThreadFactory virtualThreads(String prefix) {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try {
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            MethodHandle create = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual));
            MethodHandle name =
                    lookup.findVirtual(builder, "name", MethodType.methodType(builder, String.class, long.class));
            MethodHandle factory = lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
            Object named = name.invoke(create.invoke(), prefix, 0L);
            return (ThreadFactory) factory.invoke(named);
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            String why = "virtual threads need Java 21+; this is Java " + Runtime.version() + " (" + e + ")";
            if (Boolean.getBoolean(REQUIRED)) {
                throw new AssertionError(REQUIRED + " is set but " + why, e);
            }
            Assumptions.abort(why);
            throw new AssertionError("unreachable", e);
        } catch (Throwable e) {
            throw new AssertionError("Thread.ofVirtual() failed", e);
        }
    }
}
