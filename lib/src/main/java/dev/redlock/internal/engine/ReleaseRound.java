/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.NodeStatus;
import dev.redlock.ReleaseResult;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.script.LockRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Release rounds: the token-checked delete sent to every node, decided once the lock's quorum confirmed it, the rest
 * completing (and retrying nodes that did not answer) in the background. Also the background release of an acquire
 * round that failed. Thread-safe.
 */
final class ReleaseRound extends EnginePart {

    ReleaseRound(QuorumEngine engine) {
        super(engine);
    }

    /**
     * Releases on every node and waits until the outcome is decided: the lock's quorum confirmed the key is no longer
     * ours, or every node answered, or one per-node timeout passed. The rest completes in the background. The round
     * of {@link #releaseAsync}, joined by the caller.
     */
    ReleaseResult releaseSync(DefaultLease lease) {
        CompletableFuture<ReleaseResult> result = new CompletableFuture<>();
        release(lease, result::complete, false).join(result, engine.parking);
        return result.join();
    }

    /** Releases without blocking; the future completes on the async executor. */
    CompletableFuture<ReleaseResult> releaseAsync(DefaultLease lease) {
        CompletableFuture<ReleaseResult> result = new CompletableFuture<>();
        engine.parking.idle(); // this thread will not read the replies, even if it read its last round's
        release(lease, rr -> engine.asyncExecutor.execute(() -> result.complete(rr)), true);
        return result;
    }

    /**
     * One release round of the lease on every node; {@code done} gets its result on the thread that decides it. A
     * scheduler task decides it when due if {@code scheduled}; otherwise the caller joins it ({@link Round#join}).
     */
    private Round release(DefaultLease lease, Consumer<ReleaseResult> done, boolean scheduled) {
        long t1 = ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.RELEASE, placement.of(lease.key()), releaseQuorum(lease), t1, ticker)
                .dueAt(t1 + perNodeTimeoutNanos);
        CompletableFuture<Round> all = round.allAnswered();
        round.listener(r -> done.accept(releaseResult(lease, r, all)));
        if (scheduled && !round.expireWhenDue(engine)) {
            // The client is closing: the nodes answer at once, so the round decides without a timer.
            LOG.debug("release of lock '{}' decides without a timer: the client is closing", lease.lockName());
        }
        submitRelease(round, lease, releaseSendBy(lease, t1));
        return round;
    }

    /**
     * A release is decided once the lock is free again under its own policy: a majority of nodes for a RedLock,
     * every node for a MultiLock (which no one can take while any node still holds it).
     */
    int releaseQuorum(DefaultLease lease) {
        return lease.policy().required(placement.perLock());
    }

    long releaseSendBy(DefaultLease lease, long now) {
        // After the key's TTL a release is pointless, but always give it one per-node timeout to report.
        long expiry = lease.keyExpiryNanos();
        return expiry - (now + perNodeTimeoutNanos) > 0 ? expiry : now + perNodeTimeoutNanos;
    }

    ReleaseResult releaseResult(DefaultLease lease, Round round, CompletableFuture<Round> all) {
        // Built on the I/O thread that completes the last node (cheap, no user code); ReleaseResult.completion()
        // hops to the async executor only for callers who ask for it.
        CompletableFuture<ReleaseResult> completion = all.isDone()
                ? CompletableFuture.completedFuture(
                        new ReleaseResult(lease.lockName(), round.outcomesNow(), null, engine.asyncExecutor))
                : all.thenApply(r -> new ReleaseResult(lease.lockName(), r.outcomesNow(), null, engine.asyncExecutor));
        ReleaseResult rr =
                new ReleaseResult(lease.lockName(), round.outcomesAtDecision(), completion, engine.asyncExecutor);
        if (rr.released() == 0) {
            LOG.debug(
                    "released lock '{}' token {}… but no node still held it: {}",
                    lease.lockName(),
                    Tokens.prefix(lease.token()),
                    rr.nodes());
        }
        return rr;
    }

    /**
     * Whether node {@code i} cannot hold the key of {@code acquired}'s token: the acquire never went out to it
     * (refused by its open breaker, or dropped unsent), or the node ran it and refused ({@link NodeStatus#TAKEN}: the
     * SET NX did not apply). Extensions and fencing only touch a key already there, so such a node needs no release
     * and no retries of one. This keeps a contended lock's failed rounds at one command per node, and a stalled or
     * dead node from costing every acquire a chain of background retries for the key's whole TTL.
     */
    static boolean nothingOfOursThere(Round acquired, int i) {
        NodeOp a = acquired == null ? null : acquired.opOf(i);
        return a != null && (a.neverSent() || acquired.liveStatus(i) == NodeStatus.TAKEN);
    }

    /**
     * Fire-and-forget release of a failed round on every node that may have applied its SET: all of them except
     * those it never reached and those that refused it. Nobody waits for it.
     */
    void releaseInBackground(Round failed, LockRef ref, String token, long ttlMillis, long keyExpiryNanos) {
        if (waitRoom != null && (ref.handsOver() || ref.kind() == LockRef.Kind.FAIR)) {
            // The nodes' reports of this release name the client (the release gives it its place): they must not wake
            // the waiter whose round this was, or a node that keeps refusing would have it retry at once, in a loop.
            waitRoom.ignore(ref.key(), Tokens.prefix(token));
        }
        long now = ticker.nanoTime();
        Placement.Nodes at = placement.of(ref.key());
        Round round = new Round(NodeOp.Kind.RELEASE, at, at.size(), now, ticker);
        long sendBy = keyExpiryNanos - (now + perNodeTimeoutNanos) > 0 ? keyExpiryNanos : now + perNodeTimeoutNanos;
        CompletableFuture<?> unused = round.allAnswered()
                .thenRun(() -> retryUnconfirmed(round, ref, false, token, ttlMillis, keyExpiryNanos, failed));
        engine.fanOut(round, i -> releaseOp(round, i, ref, false, token, ttlMillis, sendBy, failed));
    }

    /**
     * Whether a release a node did not answer is still worth sending again. Once the key's TTL has passed it has
     * expired there, unless its acquire never got an answer: a node that was paused (or cut off) may run that acquire
     * when it resumes, long after, with a fresh TTL. Such a release is retried until the node answers, for at most
     * ten TTLs (and at least a minute) past the key's expiry.
     */
    boolean worthRetrying(long keyExpiryNanos, long ttlMillis, NodeOp acquire) {
        long now = ticker.nanoTime();
        if (now - keyExpiryNanos < 0) {
            return true;
        }
        boolean acquireMayStillRun = acquire != null && acquire.mayStillRun();
        long cap = Math.max(10 * TimeUnit.MILLISECONDS.toNanos(ttlMillis), TimeUnit.MINUTES.toNanos(1));
        return acquireMayStillRun && now - (keyExpiryNanos + cap) < 0;
    }

    /** A node answered a release: the key is no longer ours there, whatever else it says. */
    static boolean confirmed(NodeStatus s) {
        return s == NodeStatus.RELEASED || s == NodeStatus.ALREADY_EXPIRED || s == NodeStatus.OWNED_BY_ANOTHER;
    }

    /**
     * Retries, in the background, the release on every node that did not answer it (stalled, unreachable, its
     * breaker open): until the node answers, or the key has expired there anyway. A release is token-checked, so
     * sending it again is always safe; and when its acquire went out on another connection, it leaves a tombstone.
     * Without this, a node that was paused keeps a key nobody holds for its whole TTL once it resumes.
     */
    void retryUnconfirmed(
            Round release,
            LockRef ref,
            boolean leaving,
            String token,
            long ttlMillis,
            long keyExpiryNanos,
            Round acquired) {
        Placement.Nodes at = release.at() == null ? placement.all() : release.at();
        for (int i = 0; i < at.size(); i++) {
            NodeStatus s = release.liveStatus(i);
            if (s != null && !confirmed(s)) {
                retryRelease(
                        at.client(i),
                        ref,
                        leaving,
                        token,
                        ttlMillis,
                        keyExpiryNanos,
                        acquired == null ? null : acquired.opOf(i),
                        1);
            }
        }
    }

    void retryRelease(
            NodeClient node,
            LockRef ref,
            boolean leaving,
            String token,
            long ttlMillis,
            long keyExpiryNanos,
            NodeOp after,
            int attempt) {
        if (engine.closed || !worthRetrying(keyExpiryNanos, ttlMillis, after)) {
            return;
        }
        long delay = releaseRetryNanos(attempt);
        java.util.concurrent.Future<?> unused = engine.schedule(
                () -> {
                    if (engine.closed) {
                        return;
                    }
                    Round retry = new Round(NodeOp.Kind.RELEASE, List.of(node.name()), 1, ticker.nanoTime(), ticker);
                    retry.listener(r -> {
                        NodeStatus s = r.statusAtDecision(0);
                        if (confirmed(s)) {
                            LOG.debug(
                                    "release of key {} token {}… confirmed by node {} on retry {}",
                                    ref.key(),
                                    Tokens.prefix(token),
                                    node.name(),
                                    attempt);
                        } else {
                            retryRelease(node, ref, leaving, token, ttlMillis, keyExpiryNanos, after, attempt + 1);
                        }
                    });
                    // Sent whenever the node takes it, up to the end of the retries (see worthRetrying).
                    long sendBy =
                            ticker.nanoTime() + Math.max(perNodeTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(ttlMillis));
                    node.submit(retry.op(0, ref.key(), token, ttlMillis, sendBy)
                            .shaped(ref, leaving)
                            .undoing(after));
                    retry.endSubmit();
                },
                delay);
    }

    /**
     * The release for node {@code i} (null when it needs none: answered here), which knows the acquire it undoes
     * there: if that acquire went out on a connection that has since been dropped, unanswered, it may still run after
     * this release (a stalled node serves its sockets in any order), so the node client makes the release leave a
     * tombstone that turns the late acquire into a no-op.
     */
    NodeOp releaseOp(
            Round round,
            int i,
            LockRef ref,
            boolean leaving,
            String token,
            long ttlMillis,
            long sendBy,
            Round acquired) {
        // A refusing node may still hold a queued waiter's place, which a leaving release must remove.
        if (nothingOfOursThere(acquired, i)
                && !(leaving && ref.queues() && !acquired.opOf(i).neverSent())) {
            round.onReply(i, NodeStatus.ALREADY_EXPIRED, null, null); // nothing of ours there to undo
            return null;
        }
        return round.op(i, ref.key(), token, ttlMillis, sendBy)
                .shaped(ref, leaving)
                .undoing(acquired == null ? null : acquired.opOf(i));
    }

    void submitRelease(Round round, DefaultLease lease, long sendBy) {
        // In a hand-over queue, the client's place moves to its next waiter's (or leaves) as the key is released.
        LockRef ref = lease.ref().handsOver() ? handOver(lease.ref()) : lease.ref();
        if (waitRoom != null && ref.queues() && !ref.handsOver()) {
            waitRoom.releasingWithNoWaiter(
                    lease.key(),
                    Tokens.prefix(lease.token()),
                    Tokens.prefix(ref.shape().waiter()));
        }
        CompletableFuture<?> unused = round.allAnswered()
                .thenRun(() -> retryUnconfirmed(
                        round,
                        ref,
                        true,
                        lease.token(),
                        lease.ttlMillis(),
                        lease.keyExpiryNanos(),
                        lease.acquireRound()));
        // A fair lease's release takes the places of this client's newer waiters that are still to be carried; its
        // retries (a node that did not answer) do not, since those waiters may have left since.
        LockRef first = engine.acquisitions.carrying(ref, null);
        engine.fanOut(
                round,
                i -> releaseOp(round, i, first, true, lease.token(), lease.ttlMillis(), sendBy, lease.acquireRound()));
        if (waitRoom != null && waitRoom.wakesOwnAtRelease(lease.key())) {
            // Wake this client's longest waiter now, not when the release is confirmed: its acquire goes out behind
            // the release on each node's one connection, so every node runs the release first, and the hand-off
            // costs one round trip instead of two. (The nodes' notifications of this release are deduplicated.)
            waitRoom.releasedHere(lease.key(), Tokens.prefix(lease.token()));
        }
    }

    /**
     * The release of a lease of a plain lock's hand-over queue: the client's place moves to its next waiter's, or, if
     * it has none but is likely to come back soon (see {@link WaitRoom#lingers}), to the back of the queue; else it
     * leaves.
     */
    private LockRef handOver(LockRef lease) {
        if (waitRoom == null) {
            return lease.handingOver(0);
        }
        long next = waitRoom.nextPlace(lease.key(), null);
        if (next == 0 && !lease.shape().waiter().equals("-")) { // a single attempt's lease has no place to leave
            // At the back, only if another client's place is queued (see release.lua).
            LockRef back = lease.handingOver(-engine.acquisitions.placeNow());
            if (waitRoom.lingers(back)) {
                return back;
            }
        }
        return lease.handingOver(next);
    }

    /** Delays between retries of a release a node did not answer: 50 ms doubling, spread by half, at most 1 s. */
    long releaseRetryNanos(int attempt) {
        long ms = Math.min(1_000, 50L << Math.min(attempt - 1, 5));
        return Tokens.jittered(engine.random, TimeUnit.MILLISECONDS.toNanos(ms), 0.5);
    }
}
