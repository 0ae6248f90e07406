/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.FailureReason;
import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.NodeOp;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Extension rounds: the lease's token given a new TTL on every node, in parallel; the lease's deadline moves only by
 * what the newest round confirmed, and a failed round that may have been applied caps it. Thread-safe.
 */
final class ExtendRound extends EnginePart {

    ExtendRound(QuorumEngine engine) {
        super(engine);
    }

    /** Extends on the caller's thread (see {@link DefaultLease#extend}): the round of {@link #extendAsync}, joined. */
    RoundOutcome extendSync(DefaultLease lease, long ttlMillis) {
        CompletableFuture<RoundOutcome> result = new CompletableFuture<>();
        Round round = extend(lease, ttlMillis, result::complete, false);
        if (round != null) {
            round.join(result, engine.parking);
        }
        return result.join();
    }

    /** Extends without blocking; {@code done} runs once, on a node I/O thread or the scheduler thread. */
    void extendAsync(DefaultLease lease, long ttlMillis, Consumer<RoundOutcome> done) {
        extend(lease, ttlMillis, done, true);
    }

    /**
     * One extension round; {@code done} gets its outcome on the thread that decides it. A scheduler task decides it
     * when due if {@code scheduled}; otherwise the caller joins the returned round ({@link Round#join}). Null when
     * the lease is no longer valid: {@code done} had its outcome at once, and nothing was sent.
     */
    private Round extend(DefaultLease lease, long ttlMillis, Consumer<RoundOutcome> done, boolean scheduled) {
        engine.quarantine.observeTtl(ttlMillis);
        long t1 = ticker.nanoTime();
        long oldDeadline = lease.deadlineNanos();
        if (!lease.isValid()) {
            done.accept(notExtended(lease, t1, oldDeadline));
            return null;
        }
        long seq = lease.nextExtensionSeq();
        long waitUntil = Round.earlier(t1 + perNodeTimeoutNanos, oldDeadline);
        Placement.Nodes at = placement.of(lease.key());
        Round round = new Round(NodeOp.Kind.EXTEND, at, lease.policy().required(at.size()), t1, ticker)
                .dueAt(waitUntil)
                .listener(
                        r -> done.accept(extensionEnded(lease, evaluateExtend(lease, r, ttlMillis, oldDeadline, seq))));
        if (scheduled) {
            boolean unused = round.expireWhenDue(engine); // if the client is closing, the nodes answer at once
        }
        mayApplyFromNow(lease, seq, t1, ttlMillis);
        submitExtend(round, lease, ttlMillis, seq, waitUntil);
        return round;
    }

    /**
     * An extension about to be sent may be applied by any node from the moment it leaves, whatever its round decides
     * and however late (the holder may pause before the decision): so a shorter one caps the deadline now, at what
     * the nodes may then hold. A confirmed round sets the deadline from its own outcome.
     */
    void mayApplyFromNow(DefaultLease lease, long seq, long t1, long ttlMillis) {
        lease.extensionUnconfirmed(seq, t1, ttlMillis, config.driftNanos(TimeUnit.MILLISECONDS.toNanos(ttlMillis)));
    }

    /** Extension {@code seq} of the lease on every node; a node ignores it once a newer one ran there. */
    void submitExtend(Round round, DefaultLease lease, long ttlMillis, long seq, long sendBy) {
        engine.fanOut(
                round,
                i -> round.op(i, lease.key(), null, lease.token(), ttlMillis, seq, sendBy)
                        .shaped(lease.ref(), false));
    }

    /** The outcome of an extension that was not attempted because the lease was no longer valid. */
    RoundOutcome notExtended(DefaultLease lease, long t1, long oldDeadline) {
        if (lease.isHeld() && oldDeadline - t1 <= 0) {
            lease.lose(dev.redlock.LockLostException.Reason.EXPIRED, lease.lastExtension());
        }
        return new RoundOutcome(
                lease.lockName(),
                lease.policy(),
                lease.policy().required(placement.perLock()),
                List.of(),
                0,
                0,
                oldDeadline - t1,
                FailureReason.LEASE_EXPIRED);
    }

    /**
     * Turns a decided extension round into an outcome and moves the lease's deadline. Nodes apply one lease's
     * commands in the order they were sent, so the newest round's result is what the nodes hold: an older round
     * answering later never moves the deadline. A round that failed may still have been applied on any node it was
     * sent to, so a failed extension to a shorter lease cuts the deadline to what those nodes may now have.
     */
    RoundOutcome evaluateExtend(DefaultLease lease, Round round, long ttlMillis, long oldDeadline, long seq) {
        long t1 = round.startNanos();
        long decidedAt = round.decidedAtNanos();
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long validity = ttlNanos - (decidedAt - t1) - config.driftNanos(ttlNanos);
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        int granted = round.yesAtDecision();
        int gone = 0;
        for (NodeOutcome o : outcomes) {
            if (o.status() == NodeStatus.ALREADY_EXPIRED || o.status() == NodeStatus.OWNED_BY_ANOTHER) {
                gone++;
            }
        }
        boolean inTime = decidedAt - oldDeadline < 0;
        FailureReason reason;
        if (granted >= round.need() && inTime) {
            reason = validity > minValidityNanos ? FailureReason.NONE : FailureReason.VALIDITY_EXHAUSTED;
        } else if (gone > round.size() - round.need() || !inTime) {
            reason = FailureReason.LEASE_EXPIRED;
        } else {
            // Nodes failed or timed out; a later round may still reach them before the deadline.
            reason = FailureReason.NOT_ENOUGH_NODES;
        }
        RoundOutcome outcome = new RoundOutcome(
                lease.lockName(), lease.policy(), round.need(), outcomes, granted, decidedAt - t1, validity, reason);
        if (reason != FailureReason.NONE) {
            lease.extensionUnconfirmed(seq, t1, ttlMillis, config.driftNanos(ttlNanos));
        }
        if (reason == FailureReason.NONE) {
            if (!lease.extended(seq, t1, t1 + validity, ttlMillis, outcome)) {
                // Lost or released while the round ran: report it as such, never as an extension.
                return new RoundOutcome(
                        lease.lockName(),
                        lease.policy(),
                        round.need(),
                        outcomes,
                        granted,
                        decidedAt - t1,
                        validity,
                        FailureReason.LEASE_EXPIRED);
            }
            LOG.debug(
                    "extended lock '{}' token {}… by {} ms: {}/{} grants",
                    lease.lockName(),
                    Tokens.prefix(lease.token()),
                    ttlMillis,
                    granted,
                    round.need());
        } else if (gone > round.size() - round.need()) {
            // Too many nodes no longer hold our token: no later extension can bring the lease back.
            lease.lose(dev.redlock.LockLostException.Reason.OWNERSHIP_LOST, outcome);
        } else if (!inTime && lease.isHeld()) {
            lease.lose(dev.redlock.LockLostException.Reason.EXPIRED, outcome);
        }
        return outcome;
    }

    RoundOutcome extensionEnded(DefaultLease lease, RoundOutcome outcome) {
        if (!outcome.succeeded() && !engine.listeners.isEmpty()) {
            engine.tell(l -> l.extensionFailed(lease, outcome));
        }
        return outcome;
    }
}
