/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.LockKind;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.node.FencingRepair;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Blocking calls join the same acquisition (and the same release and extension rounds) as asynchronous ones, and drive
 * their timing on the caller's thread. Here the worst cases of that: a caller that leaves (interrupted) while a round
 * is in flight or being decided, and a listener that throws on a node's I/O thread. Fake nodes answer on one "io"
 * thread, or hold an op (a node that never answers).
 */
class JoinedAcquisitionTest {

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-io"));
    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final List<FakeNode> nodes = new ArrayList<>();
    private QuorumEngine engine;

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        callers.shutdownNow();
        io.shutdownNow();
        scheduler.shutdownNow();
    }

    private QuorumEngine engine(
            Function<NodeOp, NodeStatus> policy, UnaryOperator<RedlockConfig.Builder> tweak, RandomGenerator random) {
        for (int i = 0; i < 5; i++) {
            nodes.add(new FakeNode("n" + i, policy, () -> {}, io));
        }
        RedlockConfig config = tweak.apply(RedlockConfig.builder()
                        .nodes("redis://fake:1", "redis://fake:2", "redis://fake:3", "redis://fake:4", "redis://fake:5")
                        .perNodeTimeout(Duration.ofMillis(200))
                        .restartQuarantine(false)
                        .retryDelay(Duration.ofSeconds(5))
                        .retryJitter(0.01))
                .build();
        Quarantine quarantine = new Quarantine(config);
        engine = new QuorumEngine(
                config, nodes, scheduler, quarantine, random, new FencingRepair(config, quarantine, "test-repair"));
        return engine;
    }

    private static LockRef ref(String name) {
        return new LockRef(name, "redlock:{" + name + "}", QuorumPolicy.MAJORITY);
    }

    private static NodeStatus releasedElse(NodeOp op, NodeStatus otherwise) {
        return op.kind() == NodeOp.Kind.RELEASE ? NodeStatus.RELEASED : otherwise;
    }

    /** A blocking acquisition on a caller thread: its thread, and its result or exception. */
    private record Call(AtomicReference<Thread> thread, CompletableFuture<Object> outcome) {}

    private Call call(LockRef ref, long waitNanos) {
        AtomicReference<Thread> t = new AtomicReference<>();
        CompletableFuture<Object> out = new CompletableFuture<>();
        callers.execute(() -> {
            t.set(Thread.currentThread());
            try {
                out.complete(engine.acquire(ref, 10_000, waitNanos, true, true));
            } catch (Throwable e) {
                out.complete(e);
            }
        });
        return new Call(t, out);
    }

    private long held(NodeOp.Kind kind) {
        return nodes.stream()
                .flatMap(n -> n.held.stream())
                .filter(o -> o.kind() == kind)
                .count();
    }

    /**
     * Two nodes grant, three never answer, and the caller is interrupted: the round must still be decided when due,
     * and what it won released on the two nodes. Seen failing when only the joined caller decided its rounds: it had
     * left, so nobody decided this one, and the two grants stayed for the whole TTL.
     */
    @Test
    void aRoundLeftByAnInterruptedCallerIsStillDecidedWhenDueAndReleased() throws Exception {
        // A per-node timeout long enough that the round is still in flight when the caller leaves.
        engine(
                op -> releasedElse(op, null),
                b -> b.perNodeTimeout(Duration.ofSeconds(2)),
                RandomGenerator.getDefault());
        Call c = call(ref("left"), TimeUnit.SECONDS.toNanos(30));
        await().atMost(Duration.ofSeconds(5)).until(() -> held(NodeOp.Kind.ACQUIRE) == 5);
        for (int i = 0; i < 2; i++) {
            NodeOp op = nodes.get(i).held.remove(0);
            FakeNode node = nodes.get(i);
            io.execute(() -> node.answer(op, NodeStatus.GRANTED));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> held(NodeOp.Kind.ACQUIRE) == 3);
        await().atMost(Duration.ofSeconds(5)).until(() -> c.thread().get() != null);
        c.thread().get().interrupt();
        Object o = c.outcome().get(5, TimeUnit.SECONDS);
        assertInstanceOf(InterruptedException.class, o, String.valueOf(o));
        assertEquals(0, nodes.get(0).count(NodeOp.Kind.RELEASE), "released before the round was due");
        await("the round's grants released after its 2 s deadline")
                .atMost(Duration.ofSeconds(6))
                .until(() -> nodes.get(0).count(NodeOp.Kind.RELEASE) >= 1
                        && nodes.get(1).count(NodeOp.Kind.RELEASE) >= 1);
        assertEquals(0, engine.activeLeases());
    }

    /**
     * The caller is interrupted while a node's I/O thread decides its refused round (between the decision's check
     * that the acquisition goes on and its sleep before the next round). Seen failing: the acquisition stayed in the
     * client's list of sleeping acquisitions until the client closed, since no one was left to end its sleep.
     */
    @Test
    void anAcquisitionInterruptedWhileItsRoundIsDecidedLeavesNothingBehind() throws Exception {
        AtomicReference<Call> call = new AtomicReference<>();
        // The retry jitter is drawn while the I/O thread decides the round: interrupt the caller there, and let the
        // decision go on only once the caller has thrown.
        RandomGenerator interruptingDraw = new RandomGenerator() {
            @Override
            public long nextLong() {
                return ThreadLocalRandom.current().nextLong();
            }

            @Override
            public double nextDouble() {
                Call c = Thread.currentThread().getName().equals("fake-io") ? call.getAndSet(null) : null;
                if (c != null) {
                    c.thread().get().interrupt();
                    c.outcome().join();
                }
                return 0.5;
            }
        };
        // The acquires are held and answered once the caller waits in its round, so the I/O thread decides it (not
        // the caller at the end of its submission, which would draw the jitter on its own thread).
        engine(op -> releasedElse(op, null), b -> b.perNodeTimeout(Duration.ofSeconds(5)), interruptingDraw);
        AtomicReference<Thread> t = new AtomicReference<>();
        CompletableFuture<Object> out = new CompletableFuture<>();
        call.set(new Call(t, out));
        callers.execute(() -> {
            t.set(Thread.currentThread());
            try {
                out.complete(engine.acquire(ref("leave"), 10_000, TimeUnit.SECONDS.toNanos(60), true, true));
            } catch (Throwable e) {
                out.complete(e);
            }
        });
        await().atMost(Duration.ofSeconds(5))
                .until(() -> held(NodeOp.Kind.ACQUIRE) == 5
                        && t.get() != null
                        && java.util.concurrent.locks.LockSupport.getBlocker(t.get()) instanceof Round);
        for (int i = 0; i < 3; i++) {
            FakeNode node = nodes.get(i);
            NodeOp op = node.held.remove(0);
            io.execute(() -> node.answer(op, NodeStatus.TAKEN));
        }
        Object o = out.get(10, TimeUnit.SECONDS);
        assertInstanceOf(InterruptedException.class, o, String.valueOf(o));
        io.submit(() -> {}).get(5, TimeUnit.SECONDS); // the io thread has finished deciding the round
        assertEquals(0, engine.acquisitions.betweenRounds.size(), "acquisitions still sleeping between rounds");
        assertEquals(0, engine.waitingKeys());
    }

    /**
     * A listener that throws an Error on a node's I/O thread (an assertion in a test's listener) ends no blocking
     * call: it is logged and skipped, like a listener that throws an exception. Seen failing: tryLock blocked for good,
     * even past close(), as the round's decision stopped at the listener and nothing woke the caller.
     */
    @Test
    void aListenerThatThrowsAnErrorEndsNoBlockingCall() throws Exception {
        RedlockListener throwing = new RedlockListener() {
            @Override
            public void acquireRound(LockKind kind, RoundOutcome round) {
                throw new AssertionError("a listener's assertion");
            }

            @Override
            public void extensionFailed(Lease lease, RoundOutcome outcome) {
                throw new AssertionError("a listener's assertion");
            }
        };
        engine(
                op -> op.kind() == NodeOp.Kind.EXTEND ? NodeStatus.ERROR : releasedElse(op, NodeStatus.GRANTED),
                b -> b.listener(throwing),
                RandomGenerator.getDefault());
        Call c = call(ref("listened"), TimeUnit.SECONDS.toNanos(2));
        Object o = c.outcome().get(5, TimeUnit.SECONDS);
        AcquireResult r = assertInstanceOf(AcquireResult.class, o, String.valueOf(o));
        assertTrue(r.acquired(), r::toString);
        Lease lease = r.lease().orElseThrow();
        CompletableFuture<RoundOutcome> extended =
                CompletableFuture.supplyAsync(() -> lease.extend(Duration.ofSeconds(10)), callers);
        assertFalse(extended.get(5, TimeUnit.SECONDS).succeeded());
        lease.release();
    }

    /**
     * A fault while a round is decided on another thread reaches the caller joined to it, instead of leaving it
     * polling for a result that never comes (a blocking release or extension).
     */
    @Test
    void aFaultInARoundsDecisionReachesTheJoinedCaller() {
        engine(op -> null, b -> b, RandomGenerator.getDefault()); // held: answered below, once submission ended
        long now = engine.ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.RELEASE, List.of("n0"), 1, now, engine.ticker)
                .dueAt(now + TimeUnit.SECONDS.toNanos(30))
                .listener(r -> {
                    throw new IllegalStateException("a fault while deciding");
                });
        FakeNode node = nodes.get(0);
        node.submit(round.op(0, "k", "t", 1_000, now + TimeUnit.SECONDS.toNanos(30)));
        round.endSubmit();
        NodeOp op = node.held.remove(0);
        io.execute(() -> node.answer(op, NodeStatus.RELEASED)); // decided on the io thread, where the listener throws
        IllegalStateException e = assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThrows(IllegalStateException.class, () -> round.join(new CompletableFuture<>())));
        assertEquals("a fault while deciding", e.getCause().getMessage());
    }
}
