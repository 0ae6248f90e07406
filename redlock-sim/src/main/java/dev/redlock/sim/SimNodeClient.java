/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.NodeGuard;
import dev.redlock.internal.node.NodeOp;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.node.QuietException;
import dev.redlock.internal.node.RedisErrorReply;
import dev.redlock.internal.script.LuaScript;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The engine's node client inside a simulation: what {@code NioNodeClient} does around the wire (the same
 * {@link NodeGuard} with its breaker and quarantine, the handshake that reads {@code INFO} before any command, the
 * send-by deadline of queued ops, stall detection at twice the per-node timeout, reset of a dropped connection,
 * reconnect back-off), over a simulated network to a {@link SimRedis} that runs the library's real scripts.
 *
 * <p>It lives in the node package because it drives the same package-private parts the real transports use. Not
 * thread-safe: a simulation runs on one thread.
 */
public final class SimNodeClient implements NodeClient {

    /** One connection: FIFO both ways, like a TCP stream. */
    private static final class Conn {
        final long id;
        final int incarnation;
        final Quarantine.Connection ident = new Quarantine.Connection();
        /** Sent and not answered yet, oldest first. */
        final ArrayDeque<Sent> awaiting = new ArrayDeque<>();
        /** Requests on their way to the server or waiting there, oldest first. */
        final ArrayDeque<Request> toServer = new ArrayDeque<>();
        /** Whether a stall check is scheduled for the oldest unanswered command. */
        boolean stallCheck;

        boolean ready;
        boolean broken;
        /** A message on this connection was lost: nothing more gets through (the path is dead). */
        boolean silent;

        long resetAt = Long.MAX_VALUE;
        long lastArrival;
        long lastReply;

        Conn(long id, int incarnation) {
            this.id = id;
            this.incarnation = incarnation;
        }
    }

    /**
     * A command on its way or waiting for its reply, and the world time at which it has waited twice the per-node
     * timeout (stall detection).
     */
    private record Sent(NodeOp op, long stalledAt) {}

    /** A request on its way to the server: when it arrives, and what the server does with it. */
    private record Request(long arrival, Runnable atServer) {}

    /** Hears each script a server ran for this client, once it ran (for checkers that need the nodes' view). */
    public interface ScriptListener {
        /**
         * A script ran on a server for this client.
         *
         * @param client the client's index
         * @param node the server's index
         * @param script the script's file name
         * @param keys its keys
         * @param argv its arguments
         * @param reply what it returned
         */
        void ran(int client, int node, String script, List<String> keys, List<String> argv, Object reply);
    }

    private final String name;
    private final RedlockConfig config;
    private final Quarantine quarantine;
    private final NodeGuard guard;
    private final SimProcess client;
    private final int clientIndex;
    private final SimRedis server;
    private final int serverIndex;
    private final SimNetwork net;
    private final long timeoutNanos;
    private final ArrayDeque<NodeOp> outbox = new ArrayDeque<>();
    private Conn conn;
    private ScriptListener listener;
    private long connections;
    private int failures;
    private long reconnectNotBefore;
    private boolean closing;
    private boolean closed;

    public SimNodeClient(
            String name,
            RedlockConfig config,
            Quarantine quarantine,
            SimProcess client,
            int clientIndex,
            SimRedis server,
            int serverIndex,
            SimNetwork net) {
        this.name = name;
        this.config = config;
        this.quarantine = quarantine;
        this.guard = new NodeGuard(name, config, quarantine);
        this.guard.maintenance(this::submit);
        this.client = client;
        this.clientIndex = clientIndex;
        this.server = server;
        this.serverIndex = serverIndex;
        this.net = net;
        this.timeoutNanos = config.perNodeTimeout().toNanos();
        this.reconnectNotBefore = config.ticker().nanoTime();
        server.onCrash(this::serverCrashed);
    }

    @Override
    public String name() {
        return name;
    }

    private long now() {
        return config.ticker().nanoTime();
    }

    @Override
    public void submit(NodeOp op) {
        if (closed || (closing && op.kind() != NodeOp.Kind.RELEASE)) {
            op.complete(NodeStatus.ERROR, new IllegalStateException("client closed"));
            return;
        }
        if (!guard.admit(op)) {
            return;
        }
        Conn c = conn;
        if ((c == null || c.broken) && now() - reconnectNotBefore < 0) {
            guard.settle(
                    op,
                    NodeStatus.ERROR,
                    new QuietException.NotConnected("not connected to " + name, guard.lastFailure()));
            return;
        }
        outbox.add(op);
        if (c == null || c.broken) {
            connect();
        }
        if (!conn.ready) {
            // Waits for the handshake, at most until its send-by time.
            client.afterClock(op.sendByNanos() - now() + 1, () -> {
                if (outbox.remove(op)) {
                    guard.settle(
                            op,
                            NodeStatus.TIMEOUT,
                            new QuietException.NotSent("not sent: " + op.kind() + " to " + name
                                    + " was still waiting for a connection at its deadline"));
                }
            });
        }
        flush();
    }

    private void flush() {
        Conn c = conn;
        if (c == null || !c.ready || c.broken) {
            return;
        }
        NodeOp op;
        while ((op = outbox.poll()) != null) {
            if (now() - op.sendByNanos() > 0) {
                guard.settle(
                        op,
                        NodeStatus.TIMEOUT,
                        new QuietException.NotSent(
                                "not sent: " + op.kind() + " to " + name + " was still queued at its deadline"));
                continue;
            }
            guard.prepare(op, c.ident);
            op.sending(c.id, now());
            send(c, op);
        }
    }

    private void send(Conn c, NodeOp op) {
        long stalledAt = net.world().now() + client.worldDelay(2 * timeoutNanos + 1);
        c.awaiting.add(new Sent(op, stalledAt));
        String[] args = op.arguments();
        NodeOp sent = op;
        dev.redlock.sim.SimWorld w = net.world();
        if (w.tracing()) {
            w.trace("c" + clientIndex + " -> " + name + " conn " + c.id + ": " + describe(op));
        }
        request(c, () -> {
            // A cluster slot that is migrating, or that this connection's master gave away, redirects the command.
            Object reply = server.redirect(c.incarnation);
            if (w.tracing()) {
                w.trace(name + (reply == null ? " runs c" : " redirects c") + clientIndex + " conn " + c.id + ": "
                        + describe(sent) + (reply == null ? "" : " (" + ((Exception) reply).getMessage() + ")"));
            }
            if (reply == null) {
                try {
                    reply = run(args);
                } catch (SimRedis.ErrorReply e) {
                    reply = e;
                }
            }
            Object r = reply;
            reply(c, () -> answered(c, sent, r));
        });
        if (!c.stallCheck) {
            c.stallCheck = true;
            client.at(stalledAt, () -> stallCheck(c));
        }
    }

    /**
     * Stall detection: the oldest unanswered command waited twice the per-node timeout. One check per connection is
     * scheduled at a time, for its oldest command; when that one was answered, the check moves on to the next.
     */
    private void stallCheck(Conn c) {
        c.stallCheck = false;
        Sent oldest = c.awaiting.peek();
        if (c.broken || oldest == null) {
            return;
        }
        if (oldest.stalledAt() <= net.world().now()) {
            fail(
                    c,
                    NodeStatus.TIMEOUT,
                    new QuietException.NodeTimeout(
                            "no reply from " + name + " for twice the per-node timeout; connection dropped"));
            return;
        }
        c.stallCheck = true;
        client.at(oldest.stalledAt(), () -> stallCheck(c));
    }

    private static String describe(NodeOp op) {
        return op.kind() + " " + op.key() + " "
                + (op.token().length() > 8 ? op.token().substring(0, 8) : op.token())
                + (op.tombstoned() ? " +tombstone" : "")
                + (op.kind() == NodeOp.Kind.EXTEND ? " seq " + op.candidate() : "");
    }

    /**
     * A request travels to the server and runs there in connection order, unless the path or the server died. A
     * connection to a master that gave the node's cluster slot away still reaches that master, which still runs.
     */
    private void request(Conn c, Runnable atServer) {
        if (c.silent || net.isCut(clientIndex, serverIndex) || net.requestLost()) {
            c.silent = true;
            return;
        }
        long arrival = Math.max(net.world().now() + net.delay(), c.lastArrival);
        c.lastArrival = arrival;
        c.toServer.add(new Request(arrival, atServer));
        server.at(arrival, () -> {
            // The oldest request of the connection, which is this event's unless a stop of the server postponed an
            // earlier one past it (and another process took the address, ending the stop early): a connection's
            // requests run in the order they were sent.
            Request r = c.toServer.poll();
            if (c.silent
                    || ((server.down() || server.incarnation() != c.incarnation) && !server.movedAway(c.incarnation))) {
                return;
            }
            // After a reset the server discards what it had not read yet; what a stopped server had already read
            // (pipelined behind the command it stopped in) may still run when it resumes.
            if (c.broken && !(r.arrival() < c.resetAt && net.keptOnReset())) {
                return;
            }
            r.atServer().run();
        });
    }

    /** A reply travels back in connection order, unless the path died or the client dropped the connection. */
    private void reply(Conn c, Runnable atClient) {
        if (c.broken || c.silent || net.isCut(clientIndex, serverIndex) || net.replyLost()) {
            c.silent = true;
            return;
        }
        long at = Math.max(net.world().now() + net.delay(), c.lastReply);
        c.lastReply = at;
        client.at(at, () -> {
            if (!c.broken) {
                atClient.run();
            }
        });
    }

    /** Sets who hears the scripts the server runs for this client. */
    public void listen(ScriptListener l) {
        this.listener = l;
    }

    private Object run(String[] args) {
        LuaScript script = script(args[1]);
        int keys = Integer.parseInt(args[2]);
        List<String> all = Arrays.asList(args);
        Object reply = server.eval(
                script.name(), script.source(), all.subList(3, 3 + keys), all.subList(3 + keys, all.size()));
        if (listener != null) {
            listener.ran(
                    clientIndex,
                    serverIndex,
                    script.name(),
                    all.subList(3, 3 + keys),
                    all.subList(3 + keys, all.size()),
                    reply);
        }
        return wire(reply);
    }

    private static final List<LuaScript> SCRIPTS = List.of(
            LuaScript.ACQUIRE,
            LuaScript.RELEASE,
            LuaScript.EXTEND,
            LuaScript.FENCE,
            LuaScript.MARKER,
            LuaScript.REPAIR,
            LuaScript.INSPECT,
            LuaScript.FORCE);

    /**
     * The library script an {@code EVALSHA} names by SHA-1 (or an {@code EVAL} by source): a simulated server has
     * every script loaded.
     *
     * @throws SimRedis.ErrorReply NOSCRIPT for anything else
     */
    public static LuaScript script(String shaOrSource) {
        for (LuaScript s : SCRIPTS) {
            if (s.sha1().equals(shaOrSource) || s.source().equals(shaOrSource)) {
                return s;
            }
        }
        throw new SimRedis.ErrorReply("NOSCRIPT No matching script. Please use EVAL.");
    }

    /** A reply as the RESP parser hands it over: bulk strings as bytes. */
    private static Object wire(Object reply) {
        if (reply instanceof String) {
            return ((String) reply).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        if (reply instanceof List) {
            List<Object> out = new java.util.ArrayList<>();
            for (Object o : (List<?>) reply) {
                out.add(wire(o));
            }
            return out;
        }
        return reply;
    }

    private void answered(Conn c, NodeOp op, Object reply) {
        Sent oldest = c.awaiting.peek();
        if (oldest == null || oldest.op() != op) {
            throw new IllegalStateException("reply out of order on " + name);
        }
        c.awaiting.poll();
        op.answered();
        if (reply instanceof SimRedis.ErrorReply) {
            String message = ((Exception) reply).getMessage();
            RedisErrorReply error = new RedisErrorReply(name + ": " + message);
            guard.settle(op, NodeStatus.ERROR, error);
            guard.answered();
            if (message.startsWith("MOVED")) {
                // The node's cluster slot has another owner. The library's cluster watch looks the owner up at once
                // on a redirect and the node reconnects when it changes; here the next command goes to the new owner
                // on a new connection (whose INFO names that server) right away, the earliest it could.
                fail(c, NodeStatus.ERROR, error);
            }
            return;
        }
        NodeStatus status;
        try {
            status = op.statusOf(reply);
        } catch (IllegalStateException e) {
            guard.settle(op, NodeStatus.ERROR, e);
            fail(c, NodeStatus.ERROR, e);
            return;
        }
        if (net.world().tracing()) {
            // A fenced acquire's counter read and a fence's candidate: what a fencing token is made of.
            String fencing = op.kind() == NodeOp.Kind.ACQUIRE_FENCED
                    ? " (counter " + op.counter() + (op.counterValid() ? "" : " not valid")
                            + (op.intact() ? "" : ", node not intact") + ")"
                    : op.kind() == NodeOp.Kind.FENCE ? " (candidate " + op.candidate() + ")" : "";
            net.world()
                    .trace("c" + clientIndex + " <- " + name + " conn " + c.id + ": " + describe(op) + " = " + status
                            + fencing);
        }
        guard.settle(op, status, null, c.ident);
        guard.answered();
    }

    // ------------------------------------------------------------------------------------------------ connections

    private void connect() {
        Conn c = new Conn(++connections, server.incarnation());
        conn = c;
        if (server.down() && !net.isCut(clientIndex, serverIndex)) {
            // Connection refused, after one round trip.
            client.at(net.world().now() + 2 * net.delay(), () -> connectFailed(c, "connection refused"));
            return;
        }
        // The handshake: INFO first; nothing else goes out before its reply (it says which server this is).
        request(c, () -> {
            String info = server.info(c.incarnation);
            reply(c, () -> {
                quarantine.learn(
                        guard.identity(), c.ident, info, quarantine.trustPersistent() ? server.persistent() : null);
                c.ready = true;
                failures = 0;
                guard.answered();
                flush();
            });
        });
        client.afterClock(Math.max(2 * timeoutNanos, config.connectTimeout().toNanos()) + 1, () -> {
            if (!c.ready && !c.broken) {
                connectFailed(c, "handshake timed out");
            }
        });
    }

    private void connectFailed(Conn c, String why) {
        if (c.broken) {
            return;
        }
        Exception cause = new java.net.ConnectException(name + ": " + why);
        fail(c, NodeStatus.ERROR, cause);
        NodeOp op;
        while ((op = outbox.poll()) != null) {
            guard.settle(op, NodeStatus.ERROR, new QuietException.NotConnected("not connected to " + name, cause));
        }
    }

    private void serverCrashed() {
        Conn c = conn;
        // A connection to a master that gave the node's cluster slot away is not the crashed server's.
        if (c == null || c.broken || c.incarnation >= server.incarnation() || server.movedAway(c.incarnation)) {
            return;
        }
        if (net.isCut(clientIndex, serverIndex)) {
            c.silent = true; // nothing reaches the client: stall detection finds out
            return;
        }
        client.at(
                net.world().now() + net.delay(),
                () -> fail(c, NodeStatus.ERROR, new java.io.IOException(name + ": connection reset by peer")));
    }

    private void fail(Conn c, NodeStatus status, Throwable cause) {
        if (c.broken) {
            return;
        }
        net.world().trace("c" + clientIndex + " drops conn " + c.id + " to " + name + ": " + cause.getMessage());
        c.broken = true;
        c.resetAt = net.world().now();
        if (conn == c) {
            conn = null;
        }
        Sent sent;
        while ((sent = c.awaiting.poll()) != null) {
            guard.settle(sent.op(), status, cause);
        }
        if (!closed) {
            guard.failed(cause);
            failures++;
            long cap = Math.min(500, config.circuitOpenDuration().toMillis());
            long ms = Math.min(cap, 10L << Math.min(failures - 1, 10));
            long delay = TimeUnit.MILLISECONDS.toNanos(ms);
            reconnectNotBefore = now() + delay / 2 + net.world().random().nextLong(delay / 2 + 1);
        }
        if (!outbox.isEmpty() && !closed && now() - reconnectNotBefore >= 0) {
            connect();
        }
    }

    @Override
    public void initiateClose() {
        closing = true;
    }

    @Override
    public void close() {
        closing = true;
        closed = true;
        Conn c = conn;
        if (c != null) {
            fail(c, NodeStatus.ERROR, new IllegalStateException("client closed"));
        }
        NodeOp op;
        while ((op = outbox.poll()) != null) {
            guard.settle(op, NodeStatus.ERROR, new IllegalStateException("client closed"));
        }
    }
}
