/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

/** Hand-built ops for the checker tests; times are in milliseconds for readability. */
final class Ops {

    static final long MS = 1_000_000L;
    static final long S = 1_000_000_000L;

    /** An arbitrary clock origin, negative like many real nanoTime readings. */
    static final long T0 = -5_000_000_000L;

    private Ops() {}

    /** An OK op on {@code lock} by {@code client} holding the lock over [fromMs, toMs) (deadline). */
    static Op.Builder ok(int client, String lock, long fromMs, long toMs) {
        return Op.builder()
                .client(client)
                .lock(lock)
                .invokeNanos(T0 + fromMs * MS - 2 * MS)
                .completeNanos(T0 + fromMs * MS)
                .outcome(Op.Outcome.OK)
                .token("tok-" + client + "-" + fromMs)
                .deadlineNanos(T0 + toMs * MS);
    }

    /** A FAIL op (busy) by {@code client} finishing at {@code atMs}. */
    static Op.Builder busy(int client, String lock, long atMs) {
        return Op.builder()
                .client(client)
                .lock(lock)
                .invokeNanos(T0 + atMs * MS - MS)
                .completeNanos(T0 + atMs * MS)
                .outcome(Op.Outcome.FAIL)
                .failure("BUSY");
    }

    /**
     * An acquisition of {@code lock} by {@code client} that took its queue place at {@code startMs}
     * and returned at {@code endMs} with {@code outcome}; an OK one's granting round began 2 ms
     * before it returned, and it holds the lock for 50 ms.
     */
    static Op.Builder queued(int client, String lock, long startMs, long endMs, Op.Outcome outcome) {
        Op.Builder op = Op.builder()
                .client(client)
                .lock(lock)
                .kind(Op.Kind.FAIR)
                .invokeNanos(at(startMs))
                .queuedNanos(at(startMs))
                .completeNanos(at(endMs))
                .outcome(outcome);
        if (outcome != Op.Outcome.OK) {
            return op.failure("BUSY");
        }
        return op.roundNanos(at(endMs - 2))
                .token("tok-" + client + "-" + startMs)
                .deadlineNanos(at(endMs + 50));
    }

    static long at(long ms) {
        return T0 + ms * MS;
    }

    static History history(Op... ops) {
        History h = new History();
        for (Op op : ops) {
            h.add(op);
        }
        return h;
    }
}
