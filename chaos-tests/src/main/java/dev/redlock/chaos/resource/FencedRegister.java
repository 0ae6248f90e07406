/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.resource;

import java.util.ArrayList;
import java.util.List;

/**
 * A sample protected resource that checks fencing tokens: it remembers the highest token it has seen and rejects any
 * write that carries a lower one. This is the check that closes Redlock's hole of a holder paused past its validity:
 * by the time it wakes up and writes, a later holder with a larger token has written, so the late write is refused.
 *
 * <p>Thread-safe. In a real system the check and the write must be one atomic step of the resource itself (a
 * conditional update in the database, a compare-and-set in the store), as it is here.
 */
public final class FencedRegister {

    /** One accepted or rejected write, for the history. */
    public record Write(long token, long value, boolean accepted) {}

    private long highestToken = Long.MIN_VALUE;
    private long value;
    private final List<Write> writes = new ArrayList<>();

    /**
     * Writes {@code newValue} if {@code token} is at least the highest token seen so far.
     *
     * @param token the writer's fencing token
     * @param newValue the value to store
     * @return true if accepted, false if the token was stale
     */
    public synchronized boolean write(long token, long newValue) {
        boolean accepted = token >= highestToken;
        if (accepted) {
            highestToken = token;
            value = newValue;
        }
        writes.add(new Write(token, newValue, accepted));
        return accepted;
    }

    /** The current value. */
    public synchronized long value() {
        return value;
    }

    /** Every write, in the order the register saw them. */
    public synchronized List<Write> writes() {
        return List.copyOf(writes);
    }
}
