/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.FailureReason;
import dev.redlock.LockKind;
import dev.redlock.NodeOutcome;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.script.LockRef;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One acquire round: {@code SET key token NX PX ttl} (or the lock kind's script) sent to every node in parallel,
 * decided as soon as the outcome is known, then {@code validity = ttl - elapsed - drift}. A round that falls short is
 * released in the background on every node that may have applied it. Thread-safe (stateless between rounds).
 */
final class AcquireRound extends EnginePart {

    AcquireRound(QuorumEngine engine) {
        super(engine);
    }

    Round start(LockRef ref, long t1) {
        NodeOp.Kind kind = ref.fenced() ? NodeOp.Kind.ACQUIRE_FENCED : NodeOp.Kind.ACQUIRE;
        Placement.Nodes at = placement.of(ref.key());
        return new Round(kind, at, ref.policy().required(at.size()), t1, ticker);
    }

    void submit(Round round, LockRef ref, String token, long ttlMillis, long sendBy) {
        String counter = ref.fenced() ? ref.counterKey() : null;
        engine.fanOut(
                round,
                i -> round.op(i, ref.key(), counter, token, ttlMillis, 0, sendBy)
                        .shaped(ref, false));
    }

    /** Turns a decided acquire round into an outcome; a failed round is released on every node. */
    Attempt evaluate(LockRef ref, Round round, String token, long ttlMillis) {
        long t1 = round.startNanos();
        long elapsed = round.decidedAtNanos() - t1;
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long validity = ttlNanos - elapsed - config.driftNanos(ttlNanos);
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        int granted = round.yesAtDecision();
        if (round.sawCountersNotIntact()) {
            // A node lost its data since the counters started (or the cluster is new): repair its counters in the
            // background, so fencing reads do not need every node to answer.
            engine.repair.request();
        }
        FailureReason reason;
        if (granted >= round.need() && !round.coveringAtDecision()) {
            reason = FailureReason.FENCING_UNAVAILABLE;
        } else if (granted >= round.need()) {
            reason = validity > minValidityNanos ? FailureReason.NONE : FailureReason.VALIDITY_EXHAUSTED;
        } else {
            reason = shortfall(round, outcomes);
        }
        RoundOutcome outcome =
                new RoundOutcome(ref.name(), ref.policy(), round.need(), outcomes, granted, elapsed, validity, reason);
        if (!engine.listeners.isEmpty()) {
            LockKind kind = ref.lockKind();
            engine.tell(l -> l.acquireRound(kind, outcome));
        }
        if (reason != FailureReason.NONE) {
            if (reason == FailureReason.FENCING_UNAVAILABLE) {
                LOG.debug(
                        "lock '{}': granted, but no fencing token can be issued safely ({}); released",
                        ref.name(),
                        round.readsAtDecision());
            }
            engine.release.releaseInBackground(round, ref, token, ttlMillis, t1 + ttlNanos);
            return new Attempt(outcome, null);
        }
        DefaultLease lease =
                new DefaultLease(engine, ref, token, ttlMillis, t1, t1 + validity, t1 + ttlNanos, outcome, round);
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "acquired lock '{}' token {}… {}/{} grants, validity {} ms",
                    ref.name(),
                    Tokens.prefix(token),
                    granted,
                    round.need(),
                    validity / 1_000_000);
        }
        return new Attempt(outcome, lease);
    }

    /**
     * Why a round fell short of its quorum: NOT_ENOUGH_NODES when the nodes that failed, timed out, had an open
     * circuit or are quarantined leave too few to ever form it; otherwise BUSY (other owners hold the key).
     */
    static FailureReason shortfall(Round round, List<NodeOutcome> outcomes) {
        int unavailable = 0;
        for (NodeOutcome o : outcomes) {
            if (o.status().isUnavailable()) {
                unavailable++;
            }
        }
        return round.size() - unavailable < round.need() ? FailureReason.NOT_ENOUGH_NODES : FailureReason.BUSY;
    }
}
