/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.FailureReason;
import dev.redlock.NodeOutcome;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Background;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.NodeOp;
import java.util.List;

/**
 * Round 2 of a fenced acquisition: on every node that still holds the new key, raise the lock's counter to a
 * candidate token; confirmed by a quorum within the lease's validity, the candidate is the lease's fencing token.
 */
final class FenceRound extends EnginePart {

    FenceRound(QuorumEngine engine) {
        super(engine);
    }

    /**
     * Round 2 of a fenced acquisition: on every node that still holds our key, raise the lock's counter to
     * {@code candidate} (the largest counter our grants reported, plus one). Confirmed by a quorum within the
     * lease's validity, {@code candidate} is larger than the token of every earlier lease of this lock.
     */
    Round start(DefaultLease lease, long candidate) {
        Placement.Nodes at = placement.of(lease.key());
        return new Round(NodeOp.Kind.FENCE, at, lease.policy().required(at.size()), ticker.nanoTime(), ticker);
    }

    void submit(Round round, DefaultLease lease, long candidate) {
        long sendBy = deadline(round, lease);
        engine.fanOut(
                round, i -> round.op(i, lease.key(), lease.ref().counterKey(), lease.token(), 0, candidate, sendBy));
    }

    long deadline(Round round, DefaultLease lease) {
        return Round.earlier(round.startNanos() + perNodeTimeoutNanos, lease.deadlineNanos());
    }

    Attempt evaluate(Attempt acquired, Round round, long candidate) {
        DefaultLease lease = acquired.lease;
        long decidedAt = round.decidedAtNanos();
        int confirmed = round.yesAtDecision();
        boolean inTime = decidedAt - lease.deadlineNanos() < 0;
        if (confirmed >= round.need() && inTime) {
            lease.fencingToken(candidate);
            if (LOG.isDebugEnabled()) {
                LOG.debug(
                        "lock '{}' token {}… fenced with {} by {}/{} nodes",
                        lease.lockName(),
                        Tokens.prefix(lease.token()),
                        candidate,
                        confirmed,
                        round.need());
            }
            return acquired;
        }
        List<NodeOutcome> outcomes = round.outcomesAtDecision();
        FailureReason reason = !inTime ? FailureReason.VALIDITY_EXHAUSTED : AcquireRound.shortfall(round, outcomes);
        RoundOutcome outcome = new RoundOutcome(
                lease.lockName(),
                lease.policy(),
                round.need(),
                outcomes,
                confirmed,
                decidedAt - round.startNanos(),
                lease.deadlineNanos() - decidedAt,
                reason);
        // Not fenced: the grant is worthless to a caller who asked for a token. Give it back everywhere.
        Background.watch(lease.releaseAsync(), "giving back a lease that could not be fenced");
        return new Attempt(outcome, null);
    }
}
