/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

/**
 * An error reply from a node ({@code -ERR ...}, {@code -WRONGTYPE ...}, {@code -READONLY ...}): the node answered,
 * but not with a vote. Kept as the cause of that node's {@link dev.redlock.NodeStatus#ERROR} outcome.
 */
public final class RedisErrorReply extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An error reply with the node's text (for the library's own transports and the simulator's). */
    public RedisErrorReply(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // the node's message says all there is; the I/O thread's stack says nothing
    }
}
