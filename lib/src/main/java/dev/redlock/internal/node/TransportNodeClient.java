/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeStatus;
import dev.redlock.NodeTransport;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node reached through the user's own {@link NodeTransport}, served by one I/O thread of the library's.
 *
 * <p>Callers never touch the transport: they enqueue ops and the I/O thread drains the queue in batches and sends a
 * whole batch as one pipeline, reading the replies in order. Under load many callers share one call, and per-node FIFO
 * order means a release always reaches the node after the acquire it undoes.
 *
 * <p>A user's client may hand each call another pooled connection, to a server that restarted since the last one:
 * every call starts with {@code INFO}, so the votes behind it are judged by the server that answered them.
 */
public final class TransportNodeClient implements NodeClient {

    private static final Logger LOG = LoggerFactory.getLogger(TransportNodeClient.class);
    private static final int MAX_BATCH = 512;

    private final NodeSpec spec;
    private final NodeTransport transport;
    private final Ticker ticker;
    private final NodeGuard guard;
    private final long closeGraceNanos;
    private final long joinMillis;

    private final ConcurrentLinkedQueue<NodeOp> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean closing;
    private volatile boolean terminated;
    private volatile long closeDeadlineNanos;

    /** Calls made so far: each may use another connection, so each gets a number of its own (I/O thread only). */
    private long calls;

    private final List<NodeOp> batch = new ArrayList<>();

    public TransportNodeClient(NodeSpec spec, RedlockConfig config, String threadName, Quarantine quarantine) {
        this.spec = spec;
        this.transport = java.util.Objects.requireNonNull(spec.transport(), "transport");
        this.guard = new NodeGuard(spec.name(), config, quarantine);
        this.ticker = config.ticker();
        long timeoutMs = config.perNodeTimeout().toMillis();
        this.closeGraceNanos = Math.max(4 * config.perNodeTimeout().toNanos(), TimeUnit.MILLISECONDS.toNanos(200));
        this.joinMillis = TimeUnit.NANOSECONDS.toMillis(closeGraceNanos) + 2L * timeoutMs + 1_000;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        guard.maintenance(this::submit);
    }

    /** Starts the I/O thread. */
    public void start() {
        thread.start();
    }

    @Override
    public String quarantined() {
        return guard.quarantined();
    }

    @Override
    public String name() {
        return spec.name();
    }

    /** The node's circuit breaker state, for diagnostics and tests. */
    public CircuitBreaker.State circuitState() {
        return guard.circuitState();
    }

    @Override
    public void submit(NodeOp op) {
        if (closing && op.kind != NodeOp.Kind.RELEASE) {
            // Closing: no new acquire or extension goes out, but releases are still flushed.
            op.complete(NodeStatus.ERROR, new IllegalStateException("the Redlock client is closed"));
            return;
        }
        if (!guard.admit(op)) {
            return;
        }
        queue.add(op);
        if (terminated) {
            failQueued();
        } else if (sleeping.get()) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        try {
            loop();
        } finally {
            terminated = true;
            failQueued();
        }
    }

    private void loop() {
        while (true) {
            NodeOp op = queue.poll();
            if (op == null) {
                if (closing) {
                    return;
                }
                sleeping.set(true);
                if (queue.isEmpty() && !closing) {
                    LockSupport.park(this);
                }
                sleeping.set(false);
                continue;
            }
            do {
                batch.add(op);
            } while (batch.size() < MAX_BATCH && (op = queue.poll()) != null);
            try {
                process(batch);
            } catch (Throwable e) {
                // Nothing a node or a transport does may kill the node's only I/O thread (a hostile reply can make a
                // client throw an Error): every op of the batch gets an answer, and the thread goes on.
                LOG.error("node {}: unexpected failure while processing a batch", spec.name(), e);
                for (NodeOp o : batch) {
                    if (!o.answered) {
                        finish(o, NodeStatus.ERROR, e);
                    }
                }
                guard.failed(e);
            }
            batch.clear();
        }
    }

    private void process(List<NodeOp> ops) {
        int kept = dropLate(ops);
        if (kept > 0) {
            execute(ops.subList(0, kept));
        }
    }

    /** Answers the ops that must not be sent any more; compacts the rest to the front and returns how many. */
    private int dropLate(List<NodeOp> ops) {
        long now = ticker.nanoTime();
        boolean overdue = closing && System.nanoTime() - closeDeadlineNanos > 0;
        int kept = 0;
        for (int i = 0; i < ops.size(); i++) {
            NodeOp op = ops.get(i);
            if (overdue || (closing && op.kind != NodeOp.Kind.RELEASE)) {
                finish(
                        op,
                        NodeStatus.ERROR,
                        new QuietException.NotSent("not sent: the Redlock client closed before " + "this " + op.kind
                                + " could be sent to " + spec.name()));
            } else if (now - op.sendByNanos > 0) {
                // The caller stopped waiting (or the key expired anyway): a late acquire must not be sent at all.
                finish(
                        op,
                        NodeStatus.TIMEOUT,
                        new QuietException.NotSent(
                                "not sent: " + op.kind + " to " + spec.name() + " was still queued at its deadline"));
            } else {
                ops.set(kept++, op);
            }
        }
        return kept;
    }

    /**
     * Sends the batch as one call: INFO first (and CONFIG GET appendfsync when persistence is trusted), then every op;
     * ops refused with NOSCRIPT go again as EVAL in a second call, which reads the identity again.
     */
    private void execute(List<NodeOp> ops) {
        boolean[] done = new boolean[ops.size()];
        try {
            List<Integer> noScript = send(ops, all(ops.size()), true, done);
            if (!noScript.isEmpty()) {
                LOG.debug("node {}: NOSCRIPT for {} call(s), falling back to EVAL", spec.name(), noScript.size());
                send(ops, noScript, false, done);
            }
            guard.answered();
        } catch (Exception e) {
            NodeStatus status = isTimeout(e) ? NodeStatus.TIMEOUT : NodeStatus.ERROR;
            for (int i = 0; i < ops.size(); i++) {
                if (!done[i]) {
                    finish(ops.get(i), status, e);
                }
            }
            guard.failed(e);
        }
    }

    private static List<Integer> all(int n) {
        List<Integer> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    /** One call for the ops at {@code which}; returns the indexes answered NOSCRIPT (first call only). */
    private List<Integer> send(List<NodeOp> ops, List<Integer> which, boolean bySha, boolean[] done) throws Exception {
        boolean fsync = guard.quarantine().trustPersistent();
        List<NodeTransport.Command> commands = new ArrayList<>();
        commands.add(new NodeTransport.Command(fsync ? List.of("INFO") : List.of("INFO", "server"), 0, 0));
        if (fsync) {
            commands.add(new NodeTransport.Command(List.of("CONFIG", "GET", "appendfsync"), 0, 0));
        }
        int head = commands.size();
        // Until INFO is read, encode for the server last seen; the votes are judged against what INFO says.
        Quarantine.Connection conn = new Quarantine.Connection();
        conn.runId = guard.identity().runId;
        long sentAt = ticker.nanoTime();
        long call = ++calls;
        for (int i : which) {
            NodeOp op = ops.get(i);
            op.sentAtNanos = sentAt;
            op.sentOn = call;
            guard.prepare(op, conn);
            if (op.kind == NodeOp.Kind.RELEASE) {
                op.tombstone = op.needsTombstone(call);
            }
            commands.add(command(op, bySha));
        }
        List<Object> replies = transport.pipeline(commands);
        if (replies == null || replies.size() != commands.size()) {
            throw new IllegalStateException(spec.name() + ": the transport answered "
                    + (replies == null ? "nothing" : replies.size() + " replies") + " to " + commands.size()
                    + " commands");
        }
        conn = new Quarantine.Connection();
        learn(conn, replies.get(0), fsync ? replies.get(1) : null);
        List<Integer> noScript = new ArrayList<>();
        for (int k = 0; k < which.size(); k++) {
            int i = which.get(k);
            NodeOp op = ops.get(i);
            Object reply = replies.get(head + k);
            if (reply instanceof NodeTransport.ErrorReply) {
                String message = ((NodeTransport.ErrorReply) reply).message();
                // The node's script cache was flushed (restart, SCRIPT FLUSH): the op did not run. Resend it as EVAL,
                // which reloads the script, unless it is an acquire with a command of its key behind it in this
                // batch, which has run already: sent again, it would run after that one. It fails instead.
                if (bySha && message.startsWith("NOSCRIPT") && !(op.isAcquire() && laterForSameKey(ops, i))) {
                    noScript.add(i);
                    continue;
                }
                refused(op, new RedisErrorReply(spec.name() + ": " + message));
                done[i] = true;
                continue;
            }
            // A reply of the wrong shape throws: the remaining ops fail with it.
            answered(op, reply, conn);
            done[i] = true;
        }
        return noScript;
    }

    private static boolean laterForSameKey(List<NodeOp> ops, int index) {
        for (int j = index + 1; j < ops.size(); j++) {
            if (ops.get(j).key.equals(ops.get(index).key)) {
                return true;
            }
        }
        return false;
    }

    /** The op's script call, its keys marked so a cluster-aware client routes it to their slot. */
    private static NodeTransport.Command command(NodeOp op, boolean bySha) {
        op.evalFallback = !bySha;
        String[] args = op.arguments();
        return new NodeTransport.Command(List.of(args), 3, Integer.parseInt(args[2]));
    }

    /** Learns the server's identity from the INFO (and CONFIG GET) replies at the head of a call. */
    private void learn(Quarantine.Connection conn, Object info, Object fsync) {
        Quarantine q = guard.quarantine();
        if (info instanceof NodeTransport.ErrorReply) {
            q.identityRefused(guard.identity(), ((NodeTransport.ErrorReply) info).message());
            return;
        }
        String text = info instanceof byte[] ? new String((byte[]) info, StandardCharsets.UTF_8) : String.valueOf(info);
        Boolean always = null;
        if (fsync != null) {
            if (fsync instanceof NodeTransport.ErrorReply) {
                q.persistenceRefused(guard.identity(), ((NodeTransport.ErrorReply) fsync).message());
                always = false;
            } else {
                always = fsync instanceof List
                        && ((List<?>) fsync).size() == 2
                        && "always".equals(Commands.text(((List<?>) fsync).get(1)));
            }
        }
        q.learn(guard.identity(), conn, text, always);
    }

    /** The node answered {@code op} with an error reply: answered (the node is up), and the vote is an error. */
    private void refused(NodeOp op, Throwable error) {
        op.answered = true;
        finish(op, NodeStatus.ERROR, error);
    }

    /**
     * The node answered {@code op} with {@code reply}. A reply of the wrong shape throws before anything is settled:
     * the connection is out of step, and the caller drops it.
     */
    private void answered(NodeOp op, Object reply, Quarantine.Connection conn) {
        NodeStatus status = op.statusOf(reply);
        op.answered = true;
        guard.settle(op, status, null, conn);
    }

    private void finish(NodeOp op, NodeStatus status, Throwable error) {
        guard.settle(op, status, error);
    }

    private static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private void failQueued() {
        NodeOp op;
        while ((op = queue.poll()) != null) {
            guard.unsent(op);
            op.complete(NodeStatus.ERROR, new IllegalStateException("the Redlock client is closed"));
        }
    }

    /** Stops accepting ops and lets the I/O thread flush what is queued, without waiting for it. */
    @Override
    public void initiateClose() {
        if (closing) {
            return;
        }
        closeDeadlineNanos = System.nanoTime() + closeGraceNanos;
        closing = true;
        LockSupport.unpark(thread);
    }

    @Override
    public void close() {
        initiateClose();
        try {
            thread.join(joinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn(
                    "node {}: I/O thread did not stop within {} ms; it is blocked in a call to the node",
                    spec.name(),
                    joinMillis);
            thread.interrupt();
        }
    }

    /** For tests: how many ops wait for the I/O thread. */
    int queued() {
        return queue.size();
    }

    /** For tests: whether the I/O thread has ended. */
    public boolean isTerminated() {
        return terminated && !thread.isAlive();
    }

    @Override
    public String toString() {
        return "TransportNodeClient{" + spec.name() + ", circuit=" + guard.circuitState() + '}';
    }
}
