package dev.redlock.internal.engine;

import dev.redlock.RoundOutcome;

/** The result of one acquire round: the outcome, and the lease when it succeeded. */
final class Attempt {
    final RoundOutcome outcome;
    final DefaultLease lease;

    Attempt(RoundOutcome outcome, DefaultLease lease) {
        this.outcome = outcome;
        this.lease = lease;
    }
}
