/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The result of one acquire round: one {@link NodeOutcome} per configured node, the vote count, how long the round
 * took and how much validity it left.
 *
 * <p>Immutable and thread-safe.
 */
public final class RoundOutcome {

    private final String lockName;
    private final QuorumPolicy policy;
    private final int required;
    private final List<NodeOutcome> nodes;
    private final int granted;
    private final long elapsedNanos;
    private final long validityNanos;
    private final FailureReason reason;

    /**
     * Creates an outcome. Normally built by the library.
     *
     * @param lockName the lock's name
     * @param policy the quorum policy the round ran under
     * @param required how many grants the policy required
     * @param nodes one outcome per configured node, in configuration order
     * @param granted how many nodes granted
     * @param elapsedNanos time the round took, in nanoseconds
     * @param validityNanos {@code ttl - elapsed - drift}, in nanoseconds (may be negative)
     * @param reason {@link FailureReason#NONE} on success, else why it failed
     */
    public RoundOutcome(
            String lockName,
            QuorumPolicy policy,
            int required,
            List<NodeOutcome> nodes,
            int granted,
            long elapsedNanos,
            long validityNanos,
            FailureReason reason) {
        this.lockName = lockName;
        this.policy = policy;
        this.required = required;
        this.nodes = List.copyOf(nodes);
        this.granted = granted;
        this.elapsedNanos = elapsedNanos;
        this.validityNanos = validityNanos;
        this.reason = reason;
    }

    /**
     * Returns the name of the lock this round was for.
     *
     * @return the lock name
     */
    public String lockName() {
        return lockName;
    }

    /**
     * Returns the quorum policy of the round.
     *
     * @return {@link QuorumPolicy#MAJORITY} for RedLock, {@link QuorumPolicy#ALL} for MultiLock
     */
    public QuorumPolicy policy() {
        return policy;
    }

    /**
     * Returns how many grants were required.
     *
     * @return the quorum, computed from the configured number of nodes
     */
    public int required() {
        return required;
    }

    /**
     * Returns one outcome per configured node, in the order the nodes were configured.
     *
     * @return an unmodifiable list
     */
    public List<NodeOutcome> nodes() {
        return nodes;
    }

    /**
     * Returns how many nodes granted.
     *
     * @return the number of {@link NodeStatus#GRANTED} outcomes
     */
    public int granted() {
        return granted;
    }

    /**
     * Returns how many nodes answered that another owner holds the key.
     *
     * @return the number of {@link NodeStatus#TAKEN} outcomes
     */
    public int taken() {
        return count(NodeStatus.TAKEN);
    }

    /**
     * Returns how many nodes failed, timed out or had an open circuit breaker.
     *
     * @return the number of outcomes whose status {@link NodeStatus#isUnavailable() is unavailable}
     */
    public int unavailable() {
        int n = 0;
        for (NodeOutcome o : nodes) {
            if (o.status().isUnavailable()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Returns the time the round took, from the first command sent until the decision, on the monotonic ticker.
     *
     * @return the elapsed time
     */
    public Duration elapsed() {
        return Duration.ofNanos(elapsedNanos);
    }

    /**
     * Returns the validity the round left: {@code ttl - elapsed - drift}. Negative when the round took longer than
     * the TTL allows.
     *
     * @return the validity at the end of the round
     */
    public Duration validity() {
        return Duration.ofNanos(validityNanos);
    }

    /**
     * Returns whether the round produced a lease.
     *
     * @return true when {@link #reason()} is {@link FailureReason#NONE}
     */
    public boolean succeeded() {
        return reason == FailureReason.NONE;
    }

    /**
     * Returns why the round failed.
     *
     * @return {@link FailureReason#NONE} on success
     */
    public FailureReason reason() {
        return reason;
    }

    /**
     * For a round refused because other owners hold the key: when, at the latest, enough of their keys will have
     * expired for the round's quorum to be possible, counted from the moment the nodes answered. That is the
     * {@code k}-th shortest {@link NodeOutcome#holderTtl() holder TTL} of the refusing nodes, where {@code k} is how
     * many of them must free up. An owner that releases earlier frees the lock earlier; one that extends, later. A
     * waiter that gets no release notification sleeps no longer than this.
     *
     * @return the time until the refusing holders' keys expire; empty when the round was not refused by holders (it
     *     succeeded, or failed for unavailable nodes), or a holder's key it depends on has no TTL
     */
    public Optional<Duration> holderTtl() {
        int taken = 0;
        long[] ttls = new long[nodes.size()];
        for (NodeOutcome o : nodes) {
            if (o.status() == NodeStatus.TAKEN) {
                ttls[taken++] = o.holderTtl().map(Duration::toMillis).orElse(Long.MAX_VALUE);
            }
        }
        int mustExpire = required - (nodes.size() - taken);
        if (taken == 0 || mustExpire <= 0 || succeeded()) {
            return Optional.empty();
        }
        long[] refusing = java.util.Arrays.copyOf(ttls, taken);
        java.util.Arrays.sort(refusing);
        long ms = refusing[Math.min(mustExpire, taken) - 1];
        return ms == Long.MAX_VALUE ? Optional.empty() : Optional.of(Duration.ofMillis(ms));
    }

    private int count(NodeStatus status) {
        int n = 0;
        for (NodeOutcome o : nodes) {
            if (o.status() == status) {
                n++;
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return "RoundOutcome{lock=" + lockName + ", " + policy + " " + granted + "/" + required + " of "
                + nodes.size() + ", reason=" + reason + ", elapsed=" + elapsedNanos / 1_000 + "us, validity="
                + validityNanos / 1_000_000 + "ms, nodes=" + nodes + '}';
    }
}
