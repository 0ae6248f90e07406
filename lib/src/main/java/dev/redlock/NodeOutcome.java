/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One node's answer in one round: which node, what it answered, how long it took, and the cause of a failure.
 *
 * <p>Immutable and thread-safe.
 */
public final class NodeOutcome {

    private final String node;
    private final NodeStatus status;
    private final long latencyNanos;
    private final Throwable error;
    /** The holder's remaining TTL on the node in milliseconds, for {@link NodeStatus#TAKEN}; -1 when not known. */
    private final long holderTtlMillis;

    /**
     * Creates an outcome that carries no holder TTL.
     *
     * @param node the node's name, as in {@link RedlockClient#nodeNames()}
     * @param status what the node answered
     * @param latencyNanos time from the start of the round to the answer (or to the end of the wait), in nanoseconds
     * @param error the cause for {@link NodeStatus#ERROR} or {@link NodeStatus#TIMEOUT}, else {@code null}
     */
    public NodeOutcome(String node, NodeStatus status, long latencyNanos, Throwable error) {
        this(node, status, latencyNanos, error, -1);
    }

    /**
     * Creates an outcome.
     *
     * @param node the node's name, as in {@link RedlockClient#nodeNames()}
     * @param status what the node answered
     * @param latencyNanos time from the start of the round to the answer (or to the end of the wait), in nanoseconds
     * @param error the cause for {@link NodeStatus#ERROR} or {@link NodeStatus#TIMEOUT}, else {@code null}
     * @param holderTtlMillis for {@link NodeStatus#TAKEN}: how long the holder's key had left on the node, in
     *     milliseconds, as the node reported it with its refusal; negative when not known
     */
    public NodeOutcome(String node, NodeStatus status, long latencyNanos, Throwable error, long holderTtlMillis) {
        this.node = Objects.requireNonNull(node, "node");
        this.status = Objects.requireNonNull(status, "status");
        this.latencyNanos = latencyNanos;
        this.error = error;
        this.holderTtlMillis = status == NodeStatus.TAKEN && holderTtlMillis >= 0 ? holderTtlMillis : -1;
    }

    /**
     * Returns the node's name.
     *
     * @return the name, such as {@code 127.0.0.1:6379}
     */
    public String node() {
        return node;
    }

    /**
     * Returns what the node answered.
     *
     * @return the status, never null
     */
    public NodeStatus status() {
        return status;
    }

    /**
     * Returns the time from the start of the round until this node answered, or until the round stopped waiting for
     * it ({@link NodeStatus#TIMEOUT}, {@link NodeStatus#PENDING}).
     *
     * @return the latency, never negative
     */
    public Duration latency() {
        return Duration.ofNanos(Math.max(0, latencyNanos));
    }

    /**
     * Returns the failure's cause: a connection or protocol exception for {@link NodeStatus#ERROR}, the timeout for
     * {@link NodeStatus#TIMEOUT}.
     *
     * @return the cause, or empty when the node answered
     */
    public Optional<Throwable> error() {
        return Optional.ofNullable(error);
    }

    /**
     * For a node that refused an acquire because another owner holds the key ({@link NodeStatus#TAKEN}): how long
     * that owner's key had left on the node when it answered, by the node's own clock. Read in the same script call
     * as the refusal, so it costs no extra round trip. The owner may release earlier, or extend.
     *
     * @return the remaining TTL; empty for any other status, or when the key has no TTL or was gone by then
     */
    public Optional<Duration> holderTtl() {
        return holderTtlMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(holderTtlMillis));
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(node)
                .append('=')
                .append(status)
                .append('(')
                .append(latencyNanos / 1_000)
                .append("us");
        if (holderTtlMillis >= 0) {
            s.append(", holder ttl ").append(holderTtlMillis).append("ms");
        }
        if (error != null) {
            s.append(", ").append(error.getClass().getSimpleName()).append(": ").append(error.getMessage());
        }
        return s.append(')').toString();
    }
}
