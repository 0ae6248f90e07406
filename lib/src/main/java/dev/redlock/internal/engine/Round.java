/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.Ticker;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.node.Parking;
import dev.redlock.internal.node.QuietException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * One fan-out of a command to all N nodes and the vote count over their answers.
 *
 * <p>The round is <em>decided</em> as soon as its outcome is known either way: {@code yes >= need}, or
 * {@code yes + pending < need}. If neither happens before the caller's deadline it is decided by {@link #expire()},
 * and unanswered nodes count as {@link NodeStatus#TIMEOUT} (outcome unknown). The outcome seen by the caller is frozen
 * at the decision; answers that arrive later still update the live state that {@link #allAnswered()} reports, so a
 * release can finish in the background.
 */
public final class Round implements NodeOp.Replies {

    /** Called once, on the thread that decided the round: a node's I/O thread, a timer thread or the waiter. */
    public interface Listener {
        void decided(Round round);
    }

    private final NodeOp.Kind kind;
    /** The nodes the round goes to; null for a round built by name only (the engine's tests): every node. */
    private final Placement.Nodes at;

    private final List<String> names;
    private final int need;
    private final long startNanos;
    private final Ticker ticker;

    private final NodeStatus[] live;
    private final Throwable[] errors;
    private final long[] latencies;
    /** The command sent to each node, so a release can tell whether it travels behind it (see NodeOp#after). */
    private final NodeOp[] ops;

    private int answered;
    private int yes;
    /** A fenced acquire also reads each node's fencing counter (see {@link #coveringRead()}). */
    private final boolean fencedRead;

    private int reads;
    private int validReads;
    private int intactReads;
    private long maxRead = -1;

    private boolean decided;
    private NodeStatus[] frozen;
    private long[] frozenLatencies;
    private int frozenYes;
    private int frozenReads;
    private int frozenValidReads;
    private int frozenIntactReads;
    private long frozenMaxRead = -1;
    private long decidedAtNanos;

    /** Ticker time at which the round is decided if its votes have not (see {@link #dueAt}). */
    private long dueNanos;
    /** What the listener threw, if it did: the joined caller gets it instead of waiting for a result that never comes. */
    private volatile Throwable listenerFault;
    /** The joined caller, woken once the round's listener has run (see {@link #join}). */
    private volatile Thread waiter;
    /** How the joined caller waits, and so how it is woken. */
    private volatile Parking parking = Parking.PLAIN;
    /** An asynchronous caller's task that decides the round when due; cancelled once the votes decide it. */
    private volatile ScheduledFuture<?> timer;

    /** The command the round's ops usually all send, encoded once (see {@link NodeOp#sharingWith}). */
    private final NodeOp.SameCommand sameCommand = new NodeOp.SameCommand();

    private Listener listener;
    /** While ops are still being submitted the listener is held back, so nothing reacts to a half-sent round. */
    private boolean submitting = true;

    private boolean listenerDue;
    private CompletableFuture<Round> allAnswered;

    public Round(NodeOp.Kind kind, List<String> names, int need, long startNanos, Ticker ticker) {
        this(kind, null, names, need, startNanos, ticker);
    }

    /** A round over the nodes of one lock (see {@link Placement}): index i is {@code at.client(i)}. */
    Round(NodeOp.Kind kind, Placement.Nodes at, int need, long startNanos, Ticker ticker) {
        this(kind, at, at.names(), need, startNanos, ticker);
    }

    private Round(NodeOp.Kind kind, Placement.Nodes at, List<String> names, int need, long startNanos, Ticker ticker) {
        this.at = at;
        this.kind = kind;
        this.names = names;
        this.need = need;
        this.startNanos = startNanos;
        this.ticker = ticker;
        int n = names.size();
        this.live = new NodeStatus[n];
        this.errors = new Throwable[n];
        this.latencies = new long[n];
        this.fencedRead = kind == NodeOp.Kind.ACQUIRE_FENCED;
        this.ops = new NodeOp[n];
    }

    /**
     * Sets the ticker time at which the round is decided if its votes have not decided it (the caller's deadline);
     * call before any op is submitted. Who decides it then depends on how the caller waits: {@link #expireWhenDue}
     * or {@link #join}.
     */
    public Round dueAt(long nanos) {
        this.dueNanos = nanos;
        return this;
    }

    /** The nodes this round goes to, or null for every node of the engine. */
    Placement.Nodes at() {
        return at;
    }

    public long dueNanos() {
        return dueNanos;
    }

    /** Sets the decision callback; call before any op is submitted. */
    public Round listener(Listener listener) {
        this.listener = listener;
        return this;
    }

    /** Requests a future that completes once every node answered; call before any op is submitted. */
    public CompletableFuture<Round> allAnswered() {
        synchronized (this) {
            if (allAnswered == null) {
                allAnswered = new CompletableFuture<>();
                if (answered == live.length) {
                    allAnswered.complete(this);
                }
            }
            return allAnswered;
        }
    }

    public NodeOp op(int index, String key, String token, long ttlMillis, long sendByNanos) {
        return remember(index, new NodeOp(kind, key, token, ttlMillis, sendByNanos, this, index, null, 0));
    }

    /** An op of a fenced kind, which also names the lock's fencing counter (and, to fence, the candidate). */
    public NodeOp op(
            int index, String key, String counterKey, String token, long ttlMillis, long candidate, long sendByNanos) {
        return remember(
                index, new NodeOp(kind, key, token, ttlMillis, sendByNanos, this, index, counterKey, candidate));
    }

    private NodeOp remember(int index, NodeOp op) {
        ops[index] = op;
        return op.sharingWith(sameCommand);
    }

    /** The command this round sent to node {@code index} (null if none was made). */
    public NodeOp opOf(int index) {
        return ops[index];
    }

    private boolean positive(NodeStatus s) {
        if (kind == NodeOp.Kind.RELEASE) {
            // The key is no longer ours on that node, whatever the reason.
            return s == NodeStatus.RELEASED || s == NodeStatus.ALREADY_EXPIRED || s == NodeStatus.OWNED_BY_ANOTHER;
        }
        return s == NodeStatus.GRANTED;
    }

    @Override
    public void onReply(int index, NodeStatus status, Throwable error, NodeOp op) {
        long now = ticker.nanoTime();
        boolean decidedNow;
        CompletableFuture<Round> all = null;
        synchronized (this) {
            if (live[index] != null) {
                return;
            }
            live[index] = status;
            errors[index] = error;
            latencies[index] = now - startNanos;
            answered++;
            if (positive(status)) {
                yes++;
            }
            if (fencedRead && op != null && op.readTrusted()) {
                reads++;
                if (op.counterValid()) {
                    validReads++;
                }
                if (op.intact()) {
                    intactReads++;
                }
                maxRead = Math.max(maxRead, op.counter());
            }
            int pending = live.length - answered;
            decidedNow = !decided && ((yes >= need && coveringRead()) || yes + pending < need || pending == 0);
            if (decidedNow) {
                freeze(now, NodeStatus.PENDING);
            }
            if (answered == live.length) {
                all = allAnswered;
            }
        }
        if (decidedNow) {
            signal();
        }
        if (all != null) {
            all.complete(this); // dependents only hop to an executor (see the engine), never run user code here
        }
    }

    /**
     * Decides the round at its deadline if nothing decided it before: unanswered nodes become
     * {@link NodeStatus#TIMEOUT}. Returns false if it was already decided.
     */
    public boolean expire() {
        synchronized (this) {
            if (decided) {
                return false;
            }
            freeze(ticker.nanoTime(), NodeStatus.TIMEOUT);
        }
        signal();
        return true;
    }

    /**
     * Whether the counters read so far cover every fencing token issued before: a quorum of them are valid (intact,
     * or validated under the node's current incarnation), or every configured node answered. A plain round needs no
     * read.
     */
    private boolean coveringRead() {
        return !fencedRead || validReads >= need || reads == live.length;
    }

    private void freeze(long now, NodeStatus unanswered) {
        decided = true;
        decidedAtNanos = now;
        frozenYes = yes;
        frozenReads = reads;
        frozenValidReads = validReads;
        frozenIntactReads = intactReads;
        frozenMaxRead = maxRead;
        frozen = live.clone();
        frozenLatencies = latencies.clone();
        for (int i = 0; i < frozen.length; i++) {
            if (frozen[i] == null) {
                frozen[i] = unanswered;
                frozenLatencies[i] = now - startNanos;
            }
        }
    }

    private void signal() {
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        Listener l = listener;
        if (l != null) {
            boolean held;
            synchronized (this) {
                // A node answered before the last op was queued (e.g. an open circuit answers at once). Reacting now
                // could queue a release ahead of an acquire still to be sent to another node: endSubmit runs it.
                held = submitting;
                listenerDue = held;
            }
            if (!held) {
                try {
                    runListener(l);
                } finally {
                    wakeWaiter();
                }
                return;
            }
        }
        wakeWaiter();
    }

    /** Runs the listener; a fault in it is kept for the joined caller (see {@link #join}), and thrown on. */
    private void runListener(Listener l) {
        try {
            l.decided(this);
        } catch (RuntimeException | Error e) {
            listenerFault = e;
            throw e;
        }
    }

    private void wakeWaiter() {
        Thread w = waiter;
        if (w != null && w != Thread.currentThread()) {
            // After the listener, which gives the joined caller its result. Never leave a permit on the caller's own
            // thread: it would cut its next park short.
            parking.unpark(w);
        }
    }

    /** Marks every op as submitted and runs the listener if the round was decided meanwhile. */
    public void endSubmit() {
        boolean fire;
        synchronized (this) {
            submitting = false;
            fire = listenerDue;
            listenerDue = false;
        }
        if (fire) {
            runListener(listener);
        }
    }

    /**
     * Asynchronous callers: a scheduler task decides the round when due, unless its votes do first (the task is then
     * cancelled). False if the scheduler is shut down (the client is closing): the nodes then answer at once, or the
     * caller decides the round itself.
     */
    public boolean expireWhenDue(QuorumEngine engine) {
        ScheduledFuture<?> t = engine.schedule(this::expire, dueNanos - ticker.nanoTime());
        if (t == null) {
            return false;
        }
        timer = t;
        if (isDecided()) {
            t.cancel(false); // decided while the task was scheduled: signal() did not see it
        }
        return true;
    }

    /**
     * Joined callers: parks the calling thread until {@code done} completes (the listener completes it), deciding the
     * round itself when due. This is how a blocking call waits for the same round its asynchronous twin runs. Not
     * interruptible: a round lasts at most one per-node timeout, and the interrupt status is kept for the caller.
     */
    public void join(Future<?> done) {
        join(done, Parking.PLAIN);
    }

    /** As {@link #join(Future)}, waiting as {@code parking} says (see {@link Parking}). */
    public void join(Future<?> done, Parking parking) {
        this.parking = parking;
        waiter = Thread.currentThread();
        boolean interrupted = false;
        while (!done.isDone()) {
            Throwable fault = listenerFault;
            if (fault != null) {
                restoreInterrupt(interrupted);
                if (fault instanceof Error) {
                    throw (Error) fault;
                }
                throw new IllegalStateException("the round's decision failed", fault);
            }
            long remaining = dueNanos - ticker.nanoTime();
            if (remaining > 0) {
                parking.await(this, remaining, () -> done.isDone() || listenerFault != null);
            } else if (!expire()) {
                // Decided elsewhere; its listener is completing {@code done} and wakes this thread after.
                LockSupport.parkNanos(this, AFTER_DECISION_POLL_NANOS);
            }
            if (Thread.interrupted()) {
                // parkNanos returns at once while the flag is set; clear it here and restore it below.
                interrupted = true;
            }
        }
        restoreInterrupt(interrupted);
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A bound on each park while another thread runs the listener: the wake-up it sends is the normal way out. */
    private static final long AFTER_DECISION_POLL_NANOS = 1_000_000;

    public synchronized boolean isDecided() {
        return decided;
    }

    public long startNanos() {
        return startNanos;
    }

    public int need() {
        return need;
    }

    public int size() {
        return live.length;
    }

    /**
     * The largest fencing counter read from a trusted node by the decision (granted or not: the read does not depend
     * on holding the key), or -1 if none.
     */
    public synchronized long maxValueAtDecision() {
        return frozenMaxRead;
    }

    /** Whether the fencing read at the decision covered every earlier token; see {@link #coveringRead()}. */
    public synchronized boolean coveringAtDecision() {
        return !fencedRead || frozenValidReads >= need || frozenReads == live.length;
    }

    /** Whether a trusted fencing read by the decision came from a node whose counters are not intact. */
    public synchronized boolean sawCountersNotIntact() {
        return fencedRead && frozenIntactReads < frozenReads;
    }

    /** How many trusted counter reads, and how many of them valid, the decision saw. */
    public synchronized String readsAtDecision() {
        return frozenValidReads + " valid of " + frozenReads + " counters read";
    }

    /** A node's answer so far, including those after the decision; null while it has not answered. */
    public synchronized NodeStatus liveStatus(int index) {
        return live[index];
    }

    /** Positive answers at the decision. */
    public synchronized int yesAtDecision() {
        return frozenYes;
    }

    public synchronized long decidedAtNanos() {
        return decidedAtNanos;
    }

    /** Statuses as frozen at the decision. */
    public synchronized NodeStatus statusAtDecision(int index) {
        return frozen[index];
    }

    /** One outcome per node as the caller saw it at the decision. */
    public synchronized List<NodeOutcome> outcomesAtDecision() {
        List<NodeOutcome> out = new ArrayList<>(live.length);
        for (int i = 0; i < live.length; i++) {
            NodeStatus s = frozen[i];
            Throwable e = s == live[i] ? errors[i] : null;
            if (s == NodeStatus.TIMEOUT && e == null) {
                e = new QuietException.NodeTimeout("no reply from " + names.get(i) + " within the per-node timeout");
            }
            out.add(new NodeOutcome(names.get(i), s, frozenLatencies[i], e, holderTtl(i)));
        }
        return out;
    }

    /** One outcome per node with every answer received so far, including those after the decision. */
    public synchronized List<NodeOutcome> outcomesNow() {
        List<NodeOutcome> out = new ArrayList<>(live.length);
        for (int i = 0; i < live.length; i++) {
            NodeStatus s = live[i] == null ? NodeStatus.PENDING : live[i];
            out.add(new NodeOutcome(names.get(i), s, latencies[i], errors[i], holderTtl(i)));
        }
        return out;
    }

    /** What a refusing node said of the holder's remaining TTL (read only for TAKEN outcomes). */
    private long holderTtl(int i) {
        NodeOp op = ops[i];
        return op == null ? -1 : op.holderTtlMillis();
    }

    /** The earlier of two {@link Ticker} readings (which may wrap around). */
    static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }
}
