/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.internal.script.LuaScript;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.core.IntervalFunction;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node over a non-blocking connection: the calling thread writes its command, the client's {@link NioLoop} reads
 * the replies and matches them to commands in order.
 *
 * <p>Writers never block each other: a command goes into an outbox, and whichever thread wins the flush flag writes
 * everything queued in one write, so under load many rounds share one system call. Replies are matched strictly in
 * send order, so a late reply can only ever complete its own command. A connection whose oldest unanswered command
 * is older than the per-node timeout is closed and its commands fail with {@link NodeStatus#TIMEOUT}; a command
 * still queued when its round gave up is not sent at all.
 *
 * <p>Used for every node given by URI, plain or TLS ({@link Wire}); the user's own transports use
 * {@link TransportNodeClient}.
 *
 * <p>Why a client of our own rather than a client library for every node: this is the hot path of every round. A blocking
 * client needs a thread per command in flight to reach N nodes at once, cannot leave unsent a command whose round
 * already gave up, and parses whatever a node sends; here one I/O thread serves every node, a round costs no thread
 * hand-off, and {@link Resp} parses only bounded replies, so a hostile or broken node fails alone.
 */
final class NioNodeClient implements NodeClient, NioLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(NioNodeClient.class);
    private static final long MAX_RECONNECT_DELAY_MILLIS = 500;
    /** Ops that may wait for a node that does not read its socket before new ones fail fast (releases always wait). */
    static final int MAX_QUEUED = 10_000;
    /** The write staging buffer: dozens of commands per write under load; a larger command goes out in pieces. */
    static final int OUT_BYTES = 8 * 1024;

    private static final String CLOSED = "the Redlock client is closed";
    private static final java.util.concurrent.atomic.AtomicLong CONNECTIONS =
            new java.util.concurrent.atomic.AtomicLong();

    /**
     * A handshake command queued ahead of the first op: AUTH and SELECT must succeed; SCRIPT LOAD may be refused
     * (a node that refuses it answers NOSCRIPT later, and the op falls back to EVAL).
     */
    private static final class Handshake extends Control {
        final String what;
        final boolean required;

        Handshake(String what, boolean required, long sentAtNanos) {
            super(sentAtNanos);
            this.what = what;
            this.required = required;
        }
    }

    /** A command of the client's own (handshake, identity probe) awaiting its reply, with when it was sent. */
    private abstract static class Control {
        final long sentAtNanos;

        Control(long sentAtNanos) {
            this.sentAtNanos = sentAtNanos;
        }
    }

    /** An identity probe ({@code INFO}, then {@code CONFIG GET appendfsync} when persistence is trusted). */
    private static final class Probe extends Control {
        final boolean fsync;
        /** Part of the connection's handshake: ops wait for it. */
        final boolean handshake;

        Probe(boolean fsync, boolean handshake, long sentAtNanos) {
            super(sentAtNanos);
            this.fsync = fsync;
            this.handshake = handshake;
        }
    }

    /** One TCP connection and the commands sent on it that await their reply, in send order. */
    private static final class Conn {
        /** This client's number for the connection, so a release knows whether it follows its acquire on it. */
        final long id = CONNECTIONS.incrementAndGet();

        final SocketChannel channel;
        /** The channel's bytes, in the clear or through TLS. */
        final Wire wire;
        /** The TLS handshake is done (always, for a plain connection); loop thread only. */
        boolean secured;

        final ConcurrentLinkedQueue<Object> awaiting = new ConcurrentLinkedQueue<>();
        final long startedNanos = System.nanoTime();
        /** What INFO said about the server behind this connection. */
        final Quarantine.Connection ident = new Quarantine.Connection();

        volatile boolean open;
        /** Every handshake reply has been read: the server's identity is known (or known to be unreadable). */
        volatile boolean ready;
        /** Handshake replies still to come (loop thread only). */
        int handshakeLeft;

        volatile boolean broken;
        /** The socket would not take more bytes: writers leave the rest to the loop, which waits for OP_WRITE. */
        volatile boolean writeBlocked;
        /** Whether the loop has been asked to wait for OP_WRITE (so it is asked once per blocked spell). */
        final AtomicBoolean writeInterest = new AtomicBoolean();
        /** The unwritten rest of a command larger than {@link #out} (flush-flag holder only). */
        ByteBuffer big;

        SelectionKey key;
        ByteBuffer in = ByteBuffer.allocate(16 * 1024);
        // Owned by whichever thread holds the flush flag.
        final ByteBuffer out = ByteBuffer.allocateDirect(OUT_BYTES);

        Conn(Wire wire) {
            this.wire = wire;
            this.channel = wire.channel;
            out.flip(); // empty, in read mode
        }
    }

    private final NodeSpec spec;
    /** For a Sentinel-managed node or a cluster slot, which server it is now; null otherwise. */
    private final MasterWatch watch;

    private final NioLoop loop;
    private final Ticker ticker;
    private final NodeGuard guard;
    private final Quarantine quarantine;
    private final Quarantine.Identity identity;
    private final long identityCheckNanos;
    /** The INFO text of a probe whose CONFIG GET reply is still to come (loop thread only). */
    private String probedInfo;

    private volatile boolean probeInFlight;
    private final long timeoutNanos;
    /**
     * When (loop clock) the sweep last ran its checks that need no hurry: the safety-net flush and the stall check.
     * Turn holder only. A pass runs every few microseconds while rounds are in flight, and these checks (a flag, a
     * clock read and an empty write per node) were a tenth of the engine's own work per round.
     */
    private long slowChecksAt;

    private final long connectTimeoutNanos;
    private final long closeGraceNanos;

    private final Resp.Limits limits;
    /** How a {@code rediss://} node is reached; null for a plain one. */
    private final TlsSetup tls;

    private final ConcurrentLinkedQueue<NodeOp> outbox = new ConcurrentLinkedQueue<>();
    /** Ops to send again after NOSCRIPT, ahead of everything queued after them (issue order per node). */
    private final java.util.concurrent.ConcurrentLinkedDeque<NodeOp> resend =
            new java.util.concurrent.ConcurrentLinkedDeque<>();

    private final AtomicBoolean flushing = new AtomicBoolean();
    private final AtomicBoolean connecting = new AtomicBoolean();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Ops in the outbox and the resend queue, bounded by {@link #MAX_QUEUED}. */
    private final AtomicInteger queued = new AtomicInteger();

    private final IntervalFunction reconnectBackoff;
    /** Failures since the last reply (loop thread mostly; a stale read only shifts one delay). */
    private final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();

    private volatile Conn conn;
    /** Done once the first connection is ready for ops or has failed: a new client waits for it (bounded). */
    private final java.util.concurrent.CompletableFuture<Void> firstSettled =
            new java.util.concurrent.CompletableFuture<>();

    private volatile long reconnectNotBefore = System.nanoTime();
    private volatile boolean closing;
    private volatile boolean closed;

    NioNodeClient(NodeSpec spec, RedlockConfig config, NioLoop loop, Quarantine quarantine) {
        this(spec, config, loop, quarantine, null);
    }

    /** @param watch where a followed node's server is now; null for a node at a fixed address */
    NioNodeClient(NodeSpec spec, RedlockConfig config, NioLoop loop, Quarantine quarantine, MasterWatch watch) {
        this.spec = spec;
        this.watch = watch;
        this.loop = loop;
        this.guard = new NodeGuard(spec.name(), config, quarantine);
        this.quarantine = quarantine;
        this.identity = guard.identity();
        this.identityCheckNanos = config.identityCheckInterval().toNanos();
        this.ticker = config.ticker();
        this.timeoutNanos = config.perNodeTimeout().toNanos();
        this.slowChecksAt = System.nanoTime() - timeoutNanos; // due at the first sweep, whatever the clock's origin
        this.connectTimeoutNanos = config.connectTimeout().toNanos();
        this.reconnectBackoff = IntervalFunction.ofExponentialRandomBackoff(
                Duration.ofMillis(10),
                2.0,
                0.5,
                Duration.ofMillis(Math.max(
                        10,
                        Math.min(
                                MAX_RECONNECT_DELAY_MILLIS,
                                config.circuitOpenDuration().toMillis()))));
        this.closeGraceNanos = Math.max(4 * timeoutNanos, TimeUnit.MILLISECONDS.toNanos(200));
        this.limits = Resp.Limits.DEFAULT.withMaxBulkBytes(config.maxReplyBytes());
        this.tls = spec.ssl() ? config.tls() : null;
        guard.maintenance(this::submit);
        loop.add(this);
        if (watch != null) {
            watch.onChange(() -> loop.execute(this::masterChanged));
            identity.extraWindowNanos = watch.extraQuarantineNanos();
            identity.failoverManaged = true;
        }
    }

    /**
     * The node's server changed (a failover, a slot move; loop thread): commands in flight on the old one fail (they
     * may have been applied there, which their rounds assume of any unanswered command), and the node reconnects at
     * once.
     */
    private void masterChanged() {
        failures.set(0);
        Conn c = conn;
        if (c != null && !c.broken) {
            fail(
                    c,
                    NodeStatus.ERROR,
                    new QuietException.NotConnected(
                            "the server of " + spec.name() + " changed ("
                                    + (spec.isClusterSlot()
                                            ? "the cluster moved its slot"
                                            : "the sentinels named a new master")
                                    + "); reconnecting",
                            null));
        }
        reconnectNotBefore = System.nanoTime();
        ensureConnecting();
    }

    @Override
    public void crashed(Throwable t) {
        LOG.error("node {}: unexpected failure on the I/O loop; dropping its connection", spec.name(), t);
        Conn c = conn;
        if (c != null) {
            fail(c, NodeStatus.ERROR, t);
        } else {
            failOutbox(t);
        }
    }

    /** Connects in the background so the first round does not pay for the handshake. */
    void start() {
        if (watch == null) {
            ensureConnecting();
        } else {
            // The first connection waits for the sentinels' first answer rather than fail for the lack of one.
            watch.firstAnswer().thenRun(this::ensureConnecting);
        }
    }

    /** Completes once the first connection is ready for ops, or has failed (it never completes exceptionally). */
    java.util.concurrent.CompletableFuture<Void> firstConnection() {
        return firstSettled;
    }

    @Override
    public String quarantined() {
        return guard.quarantined();
    }

    @Override
    public String name() {
        return spec.name();
    }

    CircuitBreaker.State circuitState() {
        return guard.circuitState();
    }

    // ------------------------------------------------------------------------------------------------ submit

    @Override
    public void submit(NodeOp op) {
        if (closed || (closing && op.kind != NodeOp.Kind.RELEASE)) {
            op.complete(NodeStatus.ERROR, new IllegalStateException(CLOSED));
            return;
        }
        if (!guard.admit(op)) {
            return;
        }
        Conn c = conn;
        if ((c == null || c.broken) && System.nanoTime() - reconnectNotBefore < 0) {
            // A dead node must cost neither a connect attempt nor a timeout per round.
            Throwable cause = new QuietException.NotConnected(
                    "not connected to " + spec.name()
                            + "; next reconnect attempt in "
                            + TimeUnit.NANOSECONDS.toMillis(reconnectNotBefore - System.nanoTime()) + " ms",
                    guard.lastFailure());
            guard.settle(op, NodeStatus.ERROR, cause);
            return;
        }
        if (queued.get() >= MAX_QUEUED && op.kind != NodeOp.Kind.RELEASE) {
            // The node does not take what it is sent: fail fast here rather than grow without bound.
            guard.settle(
                    op,
                    NodeStatus.ERROR,
                    new QuietException.NotConnected(
                            "not sent: " + spec.name() + " is not reading its commands (" + MAX_QUEUED + " queued)",
                            guard.lastFailure()));
            return;
        }
        inFlight.incrementAndGet();
        queued.incrementAndGet();
        outbox.add(op);
        try {
            flush();
        } catch (Throwable t) {
            // Never throw to the submitter (a round would stop half-sent): the node fails, its ops with it.
            crashed(t);
        }
        loop.sent();
    }

    /** Writes everything queued, if no other thread is already doing it; never blocks. */
    private void flush() {
        while (!outbox.isEmpty() || !resend.isEmpty()) {
            Conn c = conn;
            if (c == null || !c.open || c.broken) {
                ensureConnecting();
                return;
            }
            if (!c.ready || c.writeBlocked) {
                return; // the handshake's last reply, or the socket draining (OP_WRITE), flushes
            }
            if (!flushing.compareAndSet(false, true)) {
                return; // the thread holding the flag writes our op too: it re-checks the outbox before leaving
            }
            try {
                if (conn == c && c.ready && !c.broken && !c.writeBlocked) {
                    drainInto(c);
                }
            } finally {
                flushing.set(false);
            }
        }
    }

    /**
     * Writes what the socket takes (flush-flag holder only): first what an earlier flush could not write, then queued
     * ops, each registered as awaiting its reply before its bytes go out. Never blocks and never spins: when the socket
     * is full the connection is marked blocked, the loop waits for OP_WRITE, and writers leave their ops queued.
     */
    private void drainInto(Conn c) {
        try {
            if (!writePending(c)) {
                return;
            }
            long now = ticker.nanoTime();
            ByteBuffer out = c.out;
            out.clear();
            try {
                NodeOp op;
                while ((op = resend.peek() != null ? resend.peek() : outbox.peek()) != null) {
                    java.util.Queue<NodeOp> from = resend.peek() == op ? resend : outbox;
                    if (now - op.sendByNanos > 0) {
                        from.poll();
                        queued.decrementAndGet();
                        finish(
                                op,
                                NodeStatus.TIMEOUT,
                                new QuietException.NotSent("not sent: " + op.kind + " to " + spec.name()
                                        + " was still queued at its deadline"));
                        continue;
                    }
                    guard.prepare(op, c.ident);
                    if (op.kind == NodeOp.Kind.RELEASE) {
                        op.tombstone = op.needsTombstone(c.id);
                    }
                    byte[] bytes = op.encoded(spec.keyTag());
                    boolean oversized = bytes.length > out.capacity();
                    if (bytes.length > out.remaining() && !(oversized && out.position() == 0)) {
                        break; // write what we have; the outer loop comes back for the rest
                    }
                    from.poll();
                    queued.decrementAndGet();
                    op.sentAtNanos = now;
                    op.sentOn = c.id;
                    // Registered before its bytes go out, so the reader always finds the command of a reply.
                    c.awaiting.add(op);
                    if (oversized) {
                        c.big = ByteBuffer.wrap(bytes); // written in pieces, straight from the command's bytes
                        break;
                    }
                    out.put(bytes);
                }
            } finally {
                out.flip();
            }
            writePending(c);
        } catch (IOException e) {
            fail(c, NodeStatus.ERROR, e);
        }
    }

    /** Writes the bytes already taken from the queues; returns false if the socket is full (the loop resumes). */
    private boolean writePending(Conn c) throws IOException {
        ByteBuffer[] parts = {c.out, c.big};
        for (ByteBuffer part : parts) {
            // An empty part still goes through the wire: a TLS wire first sends what it holds encrypted.
            if (part != null && !c.wire.write(part)) {
                blocked(c);
                return false;
            }
        }
        c.big = null;
        return true;
    }

    /** The socket is full: writers stop here, and the loop waits for it to drain (asked once per spell). */
    private void blocked(Conn c) {
        c.writeBlocked = true;
        if (c.writeInterest.compareAndSet(false, true)) {
            loop.execute(() -> {
                if (c.key != null && c.key.isValid()) {
                    c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            });
        }
    }

    // ------------------------------------------------------------------------------------------------ connect

    private void ensureConnecting() {
        if (closed || !connecting.compareAndSet(false, true)) {
            return;
        }
        if (System.nanoTime() - reconnectNotBefore < 0) {
            connecting.set(false);
            failOutbox(new QuietException.NotConnected(
                    "not connected to " + spec.name() + " (reconnect back-off)", guard.lastFailure()));
            return;
        }
        loop.execute(this::connect);
    }

    /** On the loop thread. */
    private void connect() {
        Conn current = conn;
        if (current != null && !current.broken) {
            // A writer that saw the connection still opening asked again just as it opened: never replace a live
            // connection, or the commands already sent on it would wait for replies nobody reads.
            connecting.set(false);
            if (current.open) {
                flush();
            }
            return;
        }
        NodeSpec target = watch == null ? spec : watch.current();
        if (target == null) {
            connectFailed(new QuietException.NotConnected(watch.noMasterYet(), null));
            return;
        }
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            Conn c = new Conn(tls == null ? Wire.plain(ch) : Wire.tls(ch, tls.engine(target.host(), target.port())));
            if (watch != null) {
                c.ident.standing = () -> watch.unconfirmed(target);
                // Known once the watch has asked (a cluster's node timeout), before this connection's INFO is judged.
                identity.extraWindowNanos = watch.extraQuarantineNanos();
            }
            c.key = ch.register(loop.selector(), SelectionKey.OP_CONNECT, this);
            conn = c;
            if (ch.connect(new InetSocketAddress(target.host(), target.port()))) {
                secure(c);
            }
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                closeQuietly(ch);
            }
            connectFailed(e);
        }
    }

    /** Moves a TLS handshake on; once the connection is secured (at once if plain), sends the handshake commands. */
    private void secure(Conn c) throws IOException {
        if (c.wire.handshake()) {
            c.secured = true;
            connected(c);
        } else {
            c.key.interestOps(SelectionKey.OP_READ | (c.wire.wantsWrite() ? SelectionKey.OP_WRITE : 0));
        }
    }

    private void connected(Conn c) throws IOException {
        c.key.interestOps(SelectionKey.OP_READ);
        java.io.ByteArrayOutputStream hello = new java.io.ByteArrayOutputStream(8192);
        long now = ticker.nanoTime();
        if (spec.password() != null) {
            handshake(
                    c,
                    hello,
                    new Handshake("AUTH", true, now),
                    spec.user() == null
                            ? Resp.encode("AUTH", spec.password())
                            : Resp.encode("AUTH", spec.user(), spec.password()));
        }
        if (spec.database() != 0) {
            handshake(
                    c,
                    hello,
                    new Handshake("SELECT", true, now),
                    Resp.encode("SELECT", Integer.toString(spec.database())));
        }
        // Load every script, so a restarted node answers the first op instead of NOSCRIPT.
        for (LuaScript script : LuaScript.ALL) {
            handshake(
                    c,
                    hello,
                    new Handshake("SCRIPT LOAD " + script.name(), false, now),
                    Resp.encode("SCRIPT", "LOAD", script.source()));
        }
        // Learn who the server is before any op is written on this connection: ops name its run_id, and votes are
        // judged against it.
        probeInFlight = true;
        handshake(c, hello, new Probe(false, true, now), infoCommand());
        if (quarantine.trustPersistent()) {
            handshake(c, hello, new Probe(true, true, now), Resp.encode("CONFIG", "GET", "appendfsync"));
        }
        writeFully(c, ByteBuffer.wrap(hello.toByteArray()));
        c.open = true;
        connecting.set(false);
    }

    /**
     * INFO server is enough for the run_id; trusted persistence also needs the persistence section, and a
     * Sentinel-managed node the replication section (a server that turned replica must not vote).
     */
    private byte[] infoCommand() {
        return quarantine.trustPersistent() || watch != null ? Resp.encode("INFO") : Resp.encode("INFO", "server");
    }

    private static void handshake(Conn c, java.io.ByteArrayOutputStream hello, Object entry, byte[] command) {
        c.awaiting.add(entry);
        c.handshakeLeft++;
        hello.writeBytes(command);
    }

    /** One handshake reply was read; the last one opens the connection to ops (loop thread). */
    private void handshakeAnswered(Conn c) {
        if (!c.ready && --c.handshakeLeft == 0) {
            c.ready = true;
            firstSettled.complete(null);
            flush();
        }
    }

    /** Writes a fresh connection's handshake; a new socket's send buffer takes it at once. */
    private static void writeFully(Conn c, ByteBuffer hello) throws IOException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!c.wire.write(hello)) {
            if (System.nanoTime() - until > 0) {
                throw new IOException("could not write the connection handshake");
            }
        }
    }

    /**
     * As {@link #explained(Exception)}, but a plain I/O error (a broken pipe) during a TLS connection's setup is
     * replaced by the alert the server sent before it closed, if one was left to read: that says why.
     */
    private Exception explained(Conn c, Exception e) {
        if (tls != null && !c.ready && !(e instanceof javax.net.ssl.SSLException)) {
            try {
                c.wire.read(ByteBuffer.allocate(64 * 1024));
            } catch (javax.net.ssl.SSLException alert) {
                return explained(alert);
            } catch (IOException | RuntimeException ignored) {
                // Nothing more to learn: the original error stands.
            }
        }
        return explained(e);
    }

    /** A TLS failure as a sentence that names the node and what to do; other failures as they are. */
    private Exception explained(Exception e) {
        String why = tls == null ? null : TlsSetup.explain(spec.name(), e);
        return why == null ? e : new QuietException.TlsFailure(why, e);
    }

    private void connectFailed(Exception e) {
        firstSettled.complete(null);
        conn = null;
        backOff();
        connecting.set(false);
        guard.failed(e);
        failOutbox(e);
    }

    /**
     * Puts off the next connect: exponential with jitter from 10 ms, capped (at 500 ms, or the breaker's open time if
     * shorter). Every failure counts (a refused connect, a dropped stalled connection, a protocol error); a reply
     * read resets it. So a dead or hostile node costs neither a connect per round nor a busy reconnect loop.
     */
    private void backOff() {
        reconnectNotBefore =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(reconnectBackoff.apply(failures.incrementAndGet()));
    }

    // ------------------------------------------------------------------------------------------------ loop side

    @Override
    public void ready(SelectionKey key) {
        Conn c = conn;
        if (c == null || c.key != key) {
            key.cancel();
            return;
        }
        try {
            if (key.isConnectable()) {
                if (c.channel.finishConnect()) {
                    key.interestOps(SelectionKey.OP_READ);
                    secure(c);
                }
                return;
            }
            if (!c.secured) {
                secure(c);
                return;
            }
            if (key.isWritable()) {
                key.interestOps(SelectionKey.OP_READ);
                c.writeInterest.set(false);
                c.writeBlocked = false;
                flushPendingBytes(c);
            }
            if (key.isReadable()) {
                read(c);
            }
        } catch (IOException | RuntimeException e) {
            if (!c.open) {
                Exception why = explained(c, e);
                closeQuietly(c.channel);
                connectFailed(why);
            } else {
                // TLS 1.3: a server that refuses the client's certificate says so after the client's handshake ended.
                fail(c, NodeStatus.ERROR, explained(e));
            }
        }
    }

    /**
     * Writes bytes a flush could not send yet, then whatever is queued (loop thread). Whoever holds the flush flag
     * must look at the outbox again after releasing it (a writer that found the flag taken left its op there), so
     * this always ends with {@link #flush()}.
     */
    private void flushPendingBytes(Conn c) {
        if (flushing.compareAndSet(false, true)) {
            try {
                if (conn == c && c.ready && !c.broken && !c.writeBlocked) {
                    drainInto(c);
                }
            } finally {
                flushing.set(false);
            }
        }
        flush();
    }

    private void read(Conn c) throws IOException {
        do {
            readOnce(c);
        } while (c.wire.buffered() && !c.broken); // TLS: records already read, or plaintext held back
    }

    private void readOnce(Conn c) throws IOException {
        int n;
        try {
            n = c.wire.read(c.in);
        } catch (IOException e) {
            if (!c.ready && tls == null && !(e instanceof javax.net.ssl.SSLException)) {
                // A TLS-only port resets a plain client that sent it commands.
                throw new IOException(
                        "connection to " + spec.name() + " was dropped before it answered the handshake ("
                                + e.getMessage() + "); if the node requires TLS, use rediss://",
                        e);
            }
            throw e;
        }
        if (n < 0) {
            if (!c.ready && tls == null) {
                // Not one reply to the connection's first commands: a TLS-only port drops a plain client so.
                throw new IOException("connection to " + spec.name() + " closed by the server before it answered"
                        + " the handshake; if the node requires TLS, use rediss://");
            }
            throw new IOException("connection to " + spec.name() + " closed by the server");
        }
        c.in.flip();
        if (!c.ready && tls == null && c.in.hasRemaining() && (c.in.get(0) == 0x15 || c.in.get(0) == 0x16)) {
            throw new IOException("the node " + spec.name() + " answered with TLS, not in plain text: it requires"
                    + " TLS on this port; use rediss://");
        }
        while (true) {
            Object reply = Resp.parse(c.in, limits);
            if (reply == Resp.INCOMPLETE) {
                break;
            }
            Object head = c.awaiting.poll();
            if (head == null) {
                throw new Resp.ProtocolException("a reply with no command awaiting it");
            }
            answer(c, head, reply);
        }
        c.in.compact();
        if (!c.in.hasRemaining()) {
            // A reply larger than the buffer: grow it, up to what the largest reply allowed can take.
            if (c.in.capacity() >= limits.maxReplyBytes()) {
                throw new Resp.ProtocolException("a reply longer than " + limits.maxReplyBytes() + " bytes");
            }
            ByteBuffer bigger = ByteBuffer.allocate(Math.min(c.in.capacity() * 2, limits.maxReplyBytes()));
            c.in.flip();
            bigger.put(c.in);
            c.in = bigger;
        }
    }

    private void answer(Conn c, Object head, Object reply) throws Resp.ProtocolException {
        if (head instanceof Probe) {
            learn(c, (Probe) head, reply);
            if (((Probe) head).handshake) {
                handshakeAnswered(c);
            }
            return;
        }
        if (head instanceof Handshake) {
            Handshake h = (Handshake) head;
            if (reply instanceof Resp.ErrorReply) {
                if (h.required) {
                    throw new IllegalStateException(h.what + " rejected by " + spec.name() + ": " + reply);
                }
                LOG.debug("node {}: {} refused: {}", spec.name(), h.what, reply);
            }
            handshakeAnswered(c);
            return;
        }
        NodeOp op = (NodeOp) head;
        if (reply instanceof Resp.ErrorReply) {
            Resp.ErrorReply err = (Resp.ErrorReply) reply;
            if (err.isNoScript() && !op.evalFallback && !(op.isAcquire() && laterForSameKey(c, op))) {
                // Script cache flushed (SCRIPT FLUSH) since this connection loaded it: the node did not run the op.
                // Send it again as EVAL, which caches the script, ahead of every op queued after it, so the node
                // still sees this key's commands in issue order. An acquire with a command of its key already in
                // flight behind it (its release, say) is not sent again: it fails, as not applied.
                op.evalFallback = true;
                queued.incrementAndGet();
                resend.add(op); // first in, first out: several NOSCRIPT replies keep their order
                flush();
                return;
            }
            op.answered = true;
            if (watch != null && ClusterWatch.isRedirect(err.message)) {
                watch.askAgain(); // the slot moved, or is moving: learn its owner now rather than at the next poll
            }
            finish(op, NodeStatus.ERROR, new RedisErrorReply(spec.name() + ": " + err.message));
            return;
        }
        NodeStatus status;
        try {
            status = op.statusOf(reply);
        } catch (IllegalStateException e) {
            // A reply of the wrong shape: the connection is out of step. This op gets the error; the caller drops the
            // connection, which fails the ops behind it.
            op.answered = true;
            finish(op, NodeStatus.ERROR, new Resp.ProtocolException(spec.name() + ": " + e.getMessage()));
            throw new Resp.ProtocolException(e.getMessage());
        }
        op.answered = true;
        failures.set(0); // a reply: the node is back, the next failure starts the back-off afresh
        inFlight.decrementAndGet();
        guard.settle(op, status, null, c.ident);
        guard.answered(); // only an answer counts: a stalled node still accepts connections
    }

    /** Whether a command for {@code op}'s key was written on {@code c} after it and awaits its reply. */
    private static boolean laterForSameKey(Conn c, NodeOp op) {
        for (Object o : c.awaiting) {
            if (o instanceof NodeOp && ((NodeOp) o).key.equals(op.key)) {
                return true;
            }
        }
        return false;
    }

    /** Handles a probe reply; a node that refuses INFO has an unknown identity, one that refuses CONFIG no trust. */
    private void learn(Conn c, Probe probe, Object reply) {
        if (!probe.fsync) {
            if (!(reply instanceof byte[])) {
                guard.quarantine().identityRefused(identity, String.valueOf(reply));
                probedInfo = null;
                probeInFlight = false;
                return;
            }
            String info = new String((byte[]) reply, java.nio.charset.StandardCharsets.UTF_8);
            if (quarantine.trustPersistent()) {
                probedInfo = info; // completed by the CONFIG GET reply that follows
                return;
            }
            quarantine.learn(identity, c.ident, info, null);
            if (c.ident.replica && watch != null) {
                watch.askAgain();
            }
        } else {
            boolean always = false;
            if (reply instanceof java.util.List && ((java.util.List<?>) reply).size() == 2) {
                Object v = ((java.util.List<?>) reply).get(1);
                always = v instanceof byte[]
                        && "always".equals(new String((byte[]) v, java.nio.charset.StandardCharsets.UTF_8));
            } else {
                // Refused (or unreadable): persistence unknown counts as none, so restarts stay quarantined.
                quarantine.persistenceRefused(identity, String.valueOf(reply));
            }
            if (probedInfo != null) {
                quarantine.learn(identity, c.ident, probedInfo, always);
                probedInfo = null;
                if (c.ident.replica && watch != null) {
                    watch.askAgain();
                }
            }
        }
        probeInFlight = false;
    }

    /** Sends an identity probe on an open connection, if no other thread is writing right now (loop thread). */
    private void probe(Conn c) {
        if (c.writeBlocked || !flushing.compareAndSet(false, true)) {
            return; // try again next sweep
        }
        try {
            if (!writePending(c)) {
                return;
            }
            ByteBuffer out = c.out;
            out.clear();
            try {
                probeInFlight = true;
                long now = ticker.nanoTime();
                c.awaiting.add(new Probe(false, false, now));
                out.put(infoCommand());
                if (quarantine.trustPersistent()) {
                    c.awaiting.add(new Probe(true, false, now));
                    out.put(Resp.encode("CONFIG", "GET", "appendfsync"));
                }
            } finally {
                out.flip();
            }
            writePending(c);
        } catch (IOException e) {
            fail(c, NodeStatus.ERROR, e);
        } finally {
            flushing.set(false);
        }
        flush(); // a writer may have left its op while the probe held the flag
    }

    @Override
    public void sweep(long now) {
        Conn probed = conn;
        if (probed != null
                && probed.ready
                && !probed.broken
                && !probeInFlight
                && now - identity.checkedAtNanos > identityCheckNanos) {
            probe(probed);
        }
        // Once per eighth of the per-node timeout (half the loop's tick), not on every pass.
        boolean slowChecks = now - slowChecksAt >= timeoutNanos / 8;
        if (slowChecks) {
            slowChecksAt = now;
        }
        Conn c = conn;
        if (slowChecks && c != null && c.ready && !c.broken && !c.writeBlocked) {
            // A safety net: nothing queued or half-written may wait for the next caller to push it.
            flushPendingBytes(c);
        }
        if (c != null && !c.broken) {
            if (!c.open) {
                if (now - c.startedNanos > connectTimeoutNanos) {
                    boolean inTls = c.channel.isConnected() && !c.secured;
                    closeQuietly(c.channel);
                    connectFailed(
                            inTls
                                    ? new QuietException.TlsFailure(
                                            "TLS handshake with " + spec.name() + " got no answer within the connect"
                                                    + " timeout (" + TimeUnit.NANOSECONDS.toMillis(connectTimeoutNanos)
                                                    + " ms): the server may not speak TLS on this port; use redis://"
                                                    + " for a plain-text port",
                                            null)
                                    : new java.net.SocketTimeoutException("connect to " + spec.name() + " timed out"));
                }
            } else if (slowChecks && isStalled(c)) {
                // Replies may have arrived while this thread was not scheduled: read them before judging the node.
                try {
                    read(c);
                } catch (IOException | RuntimeException e) {
                    fail(c, NodeStatus.ERROR, e);
                    return;
                }
                if (isStalled(c)) {
                    // The node stopped answering: drop the connection rather than queue behind it.
                    fail(
                            c,
                            NodeStatus.TIMEOUT,
                            new QuietException.NodeTimeout("no reply from " + spec.name()
                                    + " for twice the per-node timeout; connection dropped"));
                }
            }
        }
        if (!outbox.isEmpty() && (c == null || !c.ready || c.writeBlocked)) {
            long t = ticker.nanoTime();
            outbox.removeIf(op -> {
                if (t - op.sendByNanos > 0) {
                    queued.decrementAndGet();
                    finish(
                            op,
                            NodeStatus.TIMEOUT,
                            new QuietException.NotSent("not sent: " + op.kind + " to " + spec.name()
                                    + " was still waiting for a connection at its deadline"));
                    return true;
                }
                return false;
            });
        }
        if (closing && !closed && (inFlight.get() == 0 || now - closeDeadline > 0)) {
            shutdownNow();
        }
    }

    /**
     * Whether the oldest unanswered command waited more than twice the per-node timeout. Rounds give up after one
     * timeout; the connection is dropped only later, so a client that is merely slow to read (an overloaded
     * machine) does not tear down healthy connections and open circuit breakers.
     */
    private boolean isStalled(Conn c) {
        Object head = c.awaiting.peek();
        if (head == null) {
            return false;
        }
        long sentAt = head instanceof NodeOp ? ((NodeOp) head).sentAtNanos : ((Control) head).sentAtNanos;
        return ticker.nanoTime() - sentAt > 2 * timeoutNanos;
    }

    // ------------------------------------------------------------------------------------------------ failures

    private void fail(Conn c, NodeStatus status, Throwable failure) {
        if (c.broken) {
            return;
        }
        Throwable cause = failure instanceof Exception ? explained(c, (Exception) failure) : failure;
        firstSettled.complete(null);
        c.broken = true;
        probeInFlight = false;
        probedInfo = null;
        if (conn == c) {
            conn = null;
        }
        if (c.key != null) {
            c.key.cancel();
        }
        if (!closed) {
            // Reset, not close: a stalled server then discards what it has not read yet (a plain close would leave
            // those commands to run when it resumes, an acquire among them setting a key nobody holds).
            try {
                c.channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException | RuntimeException e) {
                LOG.debug("node {}: cannot reset the connection: {}", spec.name(), e.toString());
            }
        }
        closeQuietly(c.channel);
        Object head;
        while ((head = c.awaiting.poll()) != null) {
            if (head instanceof NodeOp) {
                finish((NodeOp) head, status, cause);
            }
        }
        if (!closed) {
            guard.failed(cause);
            backOff();
        }
        if (!outbox.isEmpty() && !closed) {
            ensureConnecting();
        }
    }

    private void failOutbox(Throwable cause) {
        NodeOp op;
        while ((op = resend.poll()) != null) {
            queued.decrementAndGet();
            finish(op, NodeStatus.ERROR, cause);
        }
        while ((op = outbox.poll()) != null) {
            queued.decrementAndGet();
            finish(op, NodeStatus.ERROR, cause);
        }
    }

    private void finish(NodeOp op, NodeStatus status, Throwable error) {
        inFlight.decrementAndGet();
        guard.settle(op, status, error);
    }

    private void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            LOG.debug("node {}: error closing a connection", spec.name(), e);
        }
    }

    // ------------------------------------------------------------------------------------------------ close

    private volatile long closeDeadline;
    private final java.util.concurrent.CountDownLatch closedSignal = new java.util.concurrent.CountDownLatch(1);

    /** Stops taking acquires and extensions; queued releases still go out within the grace period. */
    @Override
    public void initiateClose() {
        if (!closing) {
            closeDeadline = System.nanoTime() + closeGraceNanos;
            closing = true;
        }
    }

    @Override
    public void close() {
        initiateClose();
        try {
            // The loop's sweep shuts the node down once its releases are out, or at the grace deadline.
            if (!closedSignal.await(closeGraceNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS)) {
                LOG.warn("node {}: not drained within the close grace period", spec.name());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!closed) {
            shutdownNow();
        }
    }

    /** Fails everything left and closes the connection; on the loop thread, or once the loop is gone. */
    private synchronized void shutdownNow() {
        if (closed) {
            return;
        }
        closed = true;
        firstSettled.complete(null);
        closedSignal.countDown();
        Conn c = conn;
        if (c != null) {
            fail(c, NodeStatus.ERROR, new IllegalStateException(CLOSED));
        }
        failOutbox(new IllegalStateException(CLOSED));
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "NioNodeClient{" + spec.name() + ", circuit=" + guard.circuitState() + '}';
    }
}
