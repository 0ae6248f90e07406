/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

/**
 * The engine's narrow view of one node: submit a command, get its outcome later. The engine is written against this
 * interface only, so its quorum and validity logic is testable with fakes.
 */
public interface NodeClient extends AutoCloseable {

    /** The node's name as it appears in outcomes and logs. */
    String name();

    /**
     * Queues a command. Never blocks and never throws: the op is completed exactly once, possibly on another thread,
     * possibly before this method returns (rejected by an open circuit breaker, or the client is closed).
     */
    void submit(NodeOp op);

    /**
     * Why this node's votes do not count now under restart protection, and for about how long, as a sentence; null
     * when they count (or nothing is known yet).
     */
    default String quarantined() {
        return null;
    }

    /** Stops taking acquires and extensions without waiting; queued releases still go out. */
    default void initiateClose() {}

    /** Sends what is still queued (bounded by each op's send-by time), then closes the connection. */
    @Override
    void close();
}
