/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * Thrown when an acquisition ran out of its wait budget because too few nodes were reachable to ever form a quorum,
 * as opposed to the lock being busy (which yields {@code false} or an empty result).
 *
 * <p>{@link #lastRound()} names every node and what it answered (error with cause, timeout, or open circuit).
 */
public class NotEnoughNodesException extends RedlockException {

    private static final long serialVersionUID = 1L;

    private final transient RoundOutcome lastRound;

    /**
     * Creates the exception.
     *
     * @param lastRound the last round, whose reason is {@link FailureReason#NOT_ENOUGH_NODES}
     */
    public NotEnoughNodesException(RoundOutcome lastRound) {
        super(describe(lastRound), firstError(lastRound));
        this.lastRound = lastRound;
    }

    /**
     * The message: what happened, then each node and what it did, in words, then what to do. Names and reasons only,
     * never a password ({@link RoundOutcome#toString()} keeps the raw outcome for debugging).
     */
    private static String describe(RoundOutcome round) {
        StringBuilder s = new StringBuilder("not enough nodes reachable for lock '")
                .append(round.lockName())
                .append("': it needs ")
                .append(round.required())
                .append(" of ")
                .append(round.nodes().size())
                .append(" nodes, and ")
                .append(round.unavailable())
                .append(" could not take part.");
        boolean quarantined = false;
        for (NodeOutcome o : round.nodes()) {
            s.append(' ').append(o.node()).append(": ").append(inWords(o)).append('.');
            quarantined |= o.status() == NodeStatus.QUARANTINED;
        }
        if (quarantined) {
            s.append(" Restart protection keeps a node's votes out until it has been up, with its data intact, for"
                    + " longer than the longest lease in use plus drift: on freshly started masters, wait about a"
                    + " lease (RedlockClient.restartProtection() tells how long).");
        } else {
            s.append(" Check that the nodes are up and reachable from here (RedlockClient.check() names each"
                    + " problem).");
        }
        return s.toString();
    }

    /** One node's part in the round, as a clause. */
    private static String inWords(NodeOutcome o) {
        String error = o.error().map(Throwable::getMessage).orElse(null);
        switch (o.status()) {
            case GRANTED:
                return "granted";
            case TAKEN:
                return "held by another owner";
            case QUARANTINED: {
                String why = error == null ? "" : error;
                int at = why.indexOf("does not count: ");
                return "restart protection, its vote does not count yet"
                        + (at >= 0 ? " (" + why.substring(at + "does not count: ".length()) + ")" : "");
            }
            case TIMEOUT:
                return "no reply within the per-node timeout" + (error == null ? "" : " (" + error + ")");
            case CIRCUIT_OPEN:
                return "skipped: its circuit breaker is open after repeated failures";
            case PENDING:
                return "not waited for (the round was decided without it)";
            case ERROR:
                return "failed" + (error == null ? "" : ": " + error);
            default:
                return o.status().name().toLowerCase(java.util.Locale.ROOT) + (error == null ? "" : ": " + error);
        }
    }

    /**
     * Returns the last round, with one outcome per node.
     *
     * @return the last round
     */
    public RoundOutcome lastRound() {
        return lastRound;
    }

    private static Throwable firstError(RoundOutcome round) {
        for (NodeOutcome o : round.nodes()) {
            if (o.error().isPresent()) {
                return o.error().get();
            }
        }
        return null;
    }
}
