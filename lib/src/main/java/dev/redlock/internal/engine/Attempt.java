/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
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
