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

    /**
     * Creates an outcome.
     *
     * @param node the node's name, as in {@link RedlockClient#nodeNames()}
     * @param status what the node answered
     * @param latencyNanos time from the start of the round to the answer (or to the end of the wait), in nanoseconds
     * @param error the cause for {@link NodeStatus#ERROR} or {@link NodeStatus#TIMEOUT}, else {@code null}
     */
    public NodeOutcome(String node, NodeStatus status, long latencyNanos, Throwable error) {
        this.node = Objects.requireNonNull(node, "node");
        this.status = Objects.requireNonNull(status, "status");
        this.latencyNanos = latencyNanos;
        this.error = error;
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

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(node).append('=').append(status)
                .append('(').append(latencyNanos / 1_000).append("us");
        if (error != null) {
            s.append(", ").append(error.getClass().getSimpleName()).append(": ").append(error.getMessage());
        }
        return s.append(')').toString();
    }
}
