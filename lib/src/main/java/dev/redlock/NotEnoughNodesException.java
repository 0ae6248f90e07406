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
        super(
                "not enough nodes reachable for lock '" + lastRound.lockName() + "': needed " + lastRound.required()
                        + " of " + lastRound.nodes().size() + ", " + lastRound.unavailable() + " unavailable: "
                        + lastRound.nodes(),
                firstError(lastRound));
        this.lastRound = lastRound;
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
