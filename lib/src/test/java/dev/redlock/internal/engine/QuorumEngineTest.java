/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.NodeStatus;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Quorum counting and validity math, against fakes of the node interface and a fake ticker. */
class QuorumEngineTest {

    private static final long TTL_MS = 1_000;
    private final FakeTicker ticker = new FakeTicker();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    private QuorumEngine engine(List<FakeNode> nodes) {
        RedlockConfig config = RedlockConfig.builder()
                .nodes("redis://fake:1", "redis://fake:2", "redis://fake:3", "redis://fake:4", "redis://fake:5")
                .ticker(ticker)
                .perNodeTimeout(Duration.ofMillis(50))
                .driftFactor(0.01)
                .build();
        return new QuorumEngine(config, nodes, scheduler);
    }

    private List<FakeNode> nodes(Function<Integer, Function<NodeOp, NodeStatus>> acquireAnswer, long stepMs) {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Function<NodeOp, NodeStatus> acquire = acquireAnswer.apply(i);
            nodes.add(new FakeNode(
                    "n" + i,
                    op -> op.kind() == NodeOp.Kind.RELEASE ? NodeStatus.RELEASED : acquire.apply(op),
                    () -> ticker.advance(stepMs, TimeUnit.MILLISECONDS)));
        }
        return nodes;
    }

    private static LockRef ref(QuorumPolicy policy) {
        return new LockRef("l", "redlock:{l}", policy);
    }

    @Test
    void validitySubtractsElapsedAndDrift() throws InterruptedException {
        // Each node answers 100 ms after the previous one; the round is decided at the third grant.
        List<FakeNode> nodes = nodes(i -> op -> NodeStatus.GRANTED, 100);
        AcquireResult r = engine(nodes).acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false);

        assertTrue(r.acquired(), r::toString);
        long drift = (long) (TTL_MS * 0.01) + 2; // ttl * driftFactor + 2 ms
        assertEquals(300, r.lastRound().elapsed().toMillis());
        assertEquals(TTL_MS - 300 - drift, r.lastRound().validity().toMillis());
        // The deadline is counted from t1, the start of the winning round.
        DefaultLease lease = (DefaultLease) r.lease().orElseThrow();
        assertEquals(lease.startNanos() + TimeUnit.MILLISECONDS.toNanos(TTL_MS - 300 - drift), lease.deadlineNanos());
        assertEquals(
                Duration.ofMillis(TTL_MS - 300 - drift - 500),
                lease.remainingValidity(),
                "now is t1 + 500 ms: five answers, each advancing the fake ticker 100 ms");
        ticker.advance(TTL_MS, TimeUnit.MILLISECONDS);
        assertFalse(lease.isValid());
        assertEquals(Duration.ZERO, lease.remainingValidity());
    }

    @Test
    void roundSlowerThanTtlMinusDriftFailsEvenWithAllGrantsAndReleasesEverywhere() throws InterruptedException {
        List<FakeNode> nodes = nodes(i -> op -> NodeStatus.GRANTED, 400);
        AcquireResult r = engine(nodes).acquire(ref(QuorumPolicy.ALL), TTL_MS, 0, false, false);

        assertFalse(r.acquired());
        assertEquals(FailureReason.VALIDITY_EXHAUSTED, r.reason());
        assertEquals(5, r.lastRound().granted());
        assertTrue(r.lastRound().validity().isNegative());
        String token = nodes.get(0).received.get(0).token();
        for (FakeNode n : nodes) {
            assertEquals(1, n.count(NodeOp.Kind.RELEASE), n.name + " must get the release");
            assertEquals(token, n.received.get(1).token());
        }
    }

    @Test
    void validityAtTheMinimumFails() throws InterruptedException {
        // 3 grants x 329 ms = 987 ms elapsed; validity = 1000 - 987 - 12 = 1 ms > 0 succeeds ...
        assertTrue(engine(nodes(i -> op -> NodeStatus.GRANTED, 329))
                .acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false)
                .acquired());
        // ... while 3 x 330 ms leaves validity -2 ms: fails.
        assertEquals(
                FailureReason.VALIDITY_EXHAUSTED,
                engine(nodes(i -> op -> NodeStatus.GRANTED, 330))
                        .acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false)
                        .reason());
    }

    @Test
    void decidesAsSoonAsQuorumIsImpossible() throws InterruptedException {
        // Nodes 0-2 say TAKEN, nodes 3-4 never answer: after three TAKEN the round cannot reach 3 grants.
        List<FakeNode> nodes = nodes(i -> op -> i < 3 ? NodeStatus.TAKEN : null, 1);
        AcquireResult r = engine(nodes).acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false);

        assertEquals(FailureReason.BUSY, r.reason());
        assertEquals(3, r.lastRound().elapsed().toMillis(), "decided at the third answer, not at the timeout");
        assertEquals(NodeStatus.PENDING, r.lastRound().nodes().get(3).status());
        // Failure releases on every node that may hold the SET, including those that have not answered; the nodes
        // that refused it hold nothing of ours and get no release.
        for (int i = 0; i < nodes.size(); i++) {
            assertEquals(i < 3 ? 0 : 1, nodes.get(i).count(NodeOp.Kind.RELEASE), "releases sent to node " + i);
        }
    }

    @Test
    void contentionIsToldApartFromUnavailableNodes() throws InterruptedException {
        // One node down, two taken: the two others could not have formed a quorum, but the failure is contention.
        AcquireResult busy = engine(nodes(
                        i -> op -> i == 0 ? NodeStatus.CIRCUIT_OPEN : i <= 2 ? NodeStatus.TAKEN : NodeStatus.GRANTED,
                        0))
                .acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false);
        assertEquals(FailureReason.BUSY, busy.reason());

        // Three nodes failing: no quorum is possible whatever the others say.
        AcquireResult down = engine(nodes(i -> op -> i < 3 ? NodeStatus.ERROR : NodeStatus.GRANTED, 0))
                .acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, 0, false, false);
        assertEquals(FailureReason.NOT_ENOUGH_NODES, down.reason());
        assertEquals(3, down.lastRound().unavailable());
        assertTrue(down.lastRound().nodes().get(0).error().isPresent(), "the cause is kept per node");
    }

    @Test
    void multiLockNeedsEveryNode() throws InterruptedException {
        AcquireResult r = engine(nodes(i -> op -> i == 4 ? NodeStatus.ERROR : NodeStatus.GRANTED, 0))
                .acquire(ref(QuorumPolicy.ALL), TTL_MS, 0, false, false);
        assertEquals(FailureReason.NOT_ENOUGH_NODES, r.reason());
        assertEquals(4, r.lastRound().granted());
        assertEquals(5, r.lastRound().required());
    }

    @Test
    void fencingRoundThatMissesItsQuorumFailsTheAcquisitionAndReleasesEverywhere() throws InterruptedException {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            nodes.add(new FakeNode(
                    "n" + i,
                    op -> {
                        switch (op.kind()) {
                            case ACQUIRE_FENCED:
                                return NodeStatus.GRANTED;
                            case FENCE:
                                return n < 3 ? NodeStatus.ERROR : NodeStatus.GRANTED;
                            default:
                                return NodeStatus.RELEASED;
                        }
                    },
                    () -> {}));
        }
        LockRef fenced = new LockRef("l", "redlock:{l}", QuorumPolicy.MAJORITY, true);
        AcquireResult r = engine(nodes).acquire(fenced, TTL_MS, 0, false, false);
        assertFalse(r.acquired(), r::toString);
        assertEquals(FailureReason.NOT_ENOUGH_NODES, r.reason());
        for (FakeNode n : nodes) {
            assertEquals(1, n.count(NodeOp.Kind.ACQUIRE_FENCED));
            assertEquals(1, n.count(NodeOp.Kind.FENCE));
            assertEquals(1, n.count(NodeOp.Kind.RELEASE), n.name + " must get the release");
            assertEquals("redlock:{l}:fence", n.received.get(1).counterKey());
        }
    }

    @Test
    void quorumIsOfConfiguredNodes() {
        assertEquals(3, QuorumPolicy.MAJORITY.required(5));
        assertEquals(3, QuorumPolicy.MAJORITY.required(4));
        assertEquals(2, QuorumPolicy.MAJORITY.required(3));
        assertEquals(1, QuorumPolicy.MAJORITY.required(1));
        assertEquals(5, QuorumPolicy.ALL.required(5));
        assertEquals(2, QuorumPolicy.MAJORITY.tolerated(5));
        assertEquals(1, QuorumPolicy.MAJORITY.tolerated(4));
    }

    @Test
    void retriesWithinTheWaitBudgetWithFreshTokens() throws InterruptedException {
        // Node answers TAKEN twice, then grants; each round must use its own token.
        int[] calls = new int[5];
        List<FakeNode> nodes = nodes(i -> op -> ++calls[i] <= 2 ? NodeStatus.TAKEN : NodeStatus.GRANTED, 0);
        AcquireResult r =
                engine(nodes).acquire(ref(QuorumPolicy.MAJORITY), TTL_MS, TimeUnit.SECONDS.toNanos(3600), false, false);
        assertTrue(r.acquired());
        assertEquals(3, r.rounds());
        List<String> tokens = nodes.get(0).received.stream()
                .filter(op -> op.kind() == NodeOp.Kind.ACQUIRE)
                .map(NodeOp::token)
                .distinct()
                .toList();
        assertEquals(3, tokens.size());
    }

    /** Nodes that grant acquires and releases at once but keep every extension unanswered until the test says. */
    private List<FakeNode> extensionsHeld() {
        List<FakeNode> nodes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            nodes.add(new FakeNode(
                    "n" + i,
                    op -> op.kind() == NodeOp.Kind.EXTEND
                            ? null
                            : op.kind() == NodeOp.Kind.RELEASE ? NodeStatus.RELEASED : NodeStatus.GRANTED,
                    () -> {}));
        }
        return nodes;
    }

    private static List<NodeOp> extensions(List<FakeNode> nodes, long ttlMillis) {
        List<NodeOp> ops = new ArrayList<>();
        for (FakeNode n : nodes) {
            n.received.stream()
                    .filter(op -> op.kind() == NodeOp.Kind.EXTEND && op.ttlMillis() == ttlMillis)
                    .forEach(ops::add);
        }
        return ops;
    }

    /** A 10 s lease on the given nodes, 100 ms old. */
    private DefaultLease heldLease(QuorumEngine engine) throws InterruptedException {
        DefaultLease lease = (DefaultLease) engine.acquire(ref(QuorumPolicy.MAJORITY), 10_000, 0, false, false)
                .lease()
                .orElseThrow();
        ticker.advance(100, TimeUnit.MILLISECONDS);
        return lease;
    }

    @Test
    void failedShorterExtensionCutsTheDeadlineToWhatTheNodesMayHaveApplied() throws Exception {
        DefaultLease lease = heldLease(engine(extensionsHeld()));
        long sentAt = ticker.nanoTime();
        // No node answers within the per-node timeout: the extension fails, but any node may have applied it.
        RoundOutcome outcome = lease.extendAsync(Duration.ofMillis(1_000)).get(5, TimeUnit.SECONDS);
        assertFalse(outcome.succeeded(), outcome::toString);
        long drift = TimeUnit.MILLISECONDS.toNanos(1_000 / 100 + 2);
        long bound = sentAt + TimeUnit.MILLISECONDS.toNanos(1_000) - drift;
        assertTrue(
                lease.deadlineNanos() - bound <= 0,
                "deadline " + (lease.deadlineNanos() - sentAt) / 1_000_000
                        + " ms after the send exceeds the 1 s lease the nodes may now have");
    }

    /**
     * A shorter extension may be applied by a node the moment it is sent, so the lease must not be believed past
     * what it allows while the round is still undecided: a holder paused after sending it (found by the simulation,
     * seed 1043 of {@code faults}) otherwise woke up to a deadline the nodes had already let pass.
     */
    @Test
    void aShorterExtensionInFlightAlreadyCapsTheDeadline() throws Exception {
        List<FakeNode> nodes = extensionsHeld();
        QuorumEngine engine = engine(nodes);
        DefaultLease lease = heldLease(engine);
        long sentAt = ticker.nanoTime();
        engine.extend.extendAsync(lease, 1_000, outcome -> {});
        // Undecided: nobody answered yet, and the per-node timeout has not passed.
        long drift = TimeUnit.MILLISECONDS.toNanos(1_000 / 100 + 2);
        long bound = sentAt + TimeUnit.MILLISECONDS.toNanos(1_000) - drift;
        assertTrue(
                lease.deadlineNanos() - bound <= 0,
                "while a 1 s extension is in flight, the deadline is " + (lease.deadlineNanos() - sentAt) / 1_000_000
                        + " ms after its send");
        // Confirmed, the extension sets the deadline from its own round, as before.
        for (NodeOp op : extensions(nodes, 1_000)) {
            op.complete(NodeStatus.GRANTED, null);
        }
        assertTrue(lease.deadlineNanos() - bound <= 0 && lease.isValid());
    }

    @Test
    void anOlderExtensionAnsweringLastNeverMovesTheDeadline() throws Exception {
        List<FakeNode> nodes = extensionsHeld();
        QuorumEngine engine = engine(nodes);
        DefaultLease lease = (DefaultLease) engine.acquire(ref(QuorumPolicy.MAJORITY), 10_000, 0, false, false)
                .lease()
                .orElseThrow();
        java.util.concurrent.CompletableFuture<RoundOutcome> older = new java.util.concurrent.CompletableFuture<>();
        engine.extend.extendAsync(lease, 8_000, older::complete);
        ticker.advance(10, TimeUnit.MILLISECONDS);
        java.util.concurrent.CompletableFuture<RoundOutcome> newer = new java.util.concurrent.CompletableFuture<>();
        engine.extend.extendAsync(lease, 2_000, newer::complete);
        // Each node applies the older command first, then the newer one: the keys now live 2 s.
        for (NodeOp op : extensions(nodes, 2_000)) {
            op.complete(NodeStatus.GRANTED, null);
        }
        assertTrue(newer.get(5, TimeUnit.SECONDS).succeeded());
        long afterNewer = lease.deadlineNanos();
        for (NodeOp op : extensions(nodes, 8_000)) {
            op.complete(NodeStatus.GRANTED, null);
        }
        older.get(5, TimeUnit.SECONDS);
        assertEquals(afterNewer, lease.deadlineNanos(), "the older round's answer moved the deadline");
    }
}
