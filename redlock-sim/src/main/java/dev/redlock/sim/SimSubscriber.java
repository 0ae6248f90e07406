/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.RedlockConfig;
import dev.redlock.internal.node.ReleaseSubscriber;
import dev.redlock.internal.node.Resp;
import dev.redlock.internal.node.Subscriptions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One simulated client's release notifications from one simulated node: what {@link ReleaseSubscriber} does, over the
 * simulated network. One subscriber connection, opened once some key has a waiter; {@code SUBSCRIBE} and
 * {@code UNSUBSCRIBE} as keys gain and lose their waiters; a PING when the connection was silent for the identity
 * check interval, and the connection dropped if no answer comes within the connect timeout; after a lost connection
 * (the node crashed, a PING went unanswered, a message was lost) a reconnection with the same random exponential
 * back-off, and every wanted key subscribed again. Every push the node sends goes through
 * {@link ReleaseSubscriber#push} as the real connection's do, so a message reaches the engine's callback exactly as it
 * would from a real node: channel and payload as published.
 *
 * <p>The network treats its messages as it treats the command connection's: delayed, lost (a lost message silences
 * the connection for good, as a dead TCP path does), cut by partitions; a stopped node answers nothing until it
 * resumes (its kernel still accepts connections), a crashed one forgets every subscription. Not thread-safe: a
 * simulation runs on one thread.
 */
public final class SimSubscriber {

    /** One subscriber connection: FIFO both ways, like a TCP stream; the node sees it as a {@link SimRedis.Subscriber}. */
    private final class Conn implements SimRedis.Subscriber {
        final long id;
        final int incarnation;
        /** Channels a SUBSCRIBE was sent for on this connection (not yet unsubscribed). */
        final Set<String> subscribed = new LinkedHashSet<>();
        /** Channels the node confirmed on this connection, not unsubscribed since. */
        final Set<String> confirmed = new LinkedHashSet<>();

        boolean connected;
        boolean broken;
        /** A message on this connection was lost: nothing more gets through (the path is dead). */
        boolean silent;

        long lastArrival;
        long lastReply;
        /** When the client last read from the connection, on its own clock. */
        long lastRead;
        /** When the unanswered PING went out, on the client's clock; 0 if none is. */
        long pingSent;

        Conn(long id, int incarnation) {
            this.id = id;
            this.incarnation = incarnation;
        }

        /** At the node: a push goes back to the client. */
        @Override
        public void push(Object push) {
            reply(this, () -> received(this, push));
        }
    }

    private final String name;
    private final SimProcess client;
    private final int clientIndex;
    private final SimRedis server;
    private final int serverIndex;
    private final SimNetwork net;
    private final BiConsumer<String, String> onRelease;
    private final long connectTimeoutNanos;
    private final long pingIntervalNanos;
    private final long backoffCapNanos;
    /** The channels waiters want, in the order they were first wanted. */
    private final Set<String> wanted = new LinkedHashSet<>();

    private Conn conn;
    private long connections;
    private int failures;
    /** When the connection's first subscription was confirmed (see ReleaseSubscriber.STABLE_MILLIS). */
    private long listeningSince;
    /** No connection is opened before this time of the client's clock (the back-off after a lost one). */
    private long notBefore;

    private boolean listening;
    private boolean closed;
    private long messages;

    /**
     * @param name the node's name
     * @param onRelease the engine's callback, given each message's channel and payload
     */
    public SimSubscriber(
            String name,
            RedlockConfig config,
            SimProcess client,
            int clientIndex,
            SimRedis server,
            int serverIndex,
            SimNetwork net,
            BiConsumer<String, String> onRelease) {
        this.name = name;
        this.client = client;
        this.clientIndex = clientIndex;
        this.server = server;
        this.serverIndex = serverIndex;
        this.net = net;
        this.onRelease = onRelease;
        this.connectTimeoutNanos = config.connectTimeout().toNanos();
        this.pingIntervalNanos = config.identityCheckInterval().toNanos();
        this.backoffCapNanos = TimeUnit.MILLISECONDS.toNanos(
                Math.max(10, Math.min(1_000, config.circuitOpenDuration().toMillis())));
        this.notBefore = client.clockNanos();
        server.onCrash(this::serverCrashed);
    }

    /**
     * The subscriptions of a client's subscribers, one per node, as {@code NodeClients} fans them out.
     *
     * @param subscribers the client's subscriber of each node
     */
    public static Subscriptions fanOut(List<SimSubscriber> subscribers) {
        List<SimSubscriber> all = List.copyOf(subscribers);
        return new Subscriptions() {
            @Override
            public void subscribe(String key) {
                for (SimSubscriber s : all) {
                    s.subscribe(key);
                }
            }

            @Override
            public void subscribe(String key, java.util.Set<String> nodes) {
                for (SimSubscriber s : all) {
                    if (nodes == null || nodes.contains(s.name)) {
                        s.subscribe(key);
                    }
                }
            }

            @Override
            public void unsubscribe(String key) {
                for (SimSubscriber s : all) {
                    s.unsubscribe(key);
                }
            }

            @Override
            public int listening() {
                // As NodeClients counts them: the engine wakes at a majority of reports only while it hears that many.
                return (int) all.stream().filter(SimSubscriber::listening).count();
            }

            @Override
            public int listening(java.util.Set<String> nodes) {
                return (int) all.stream()
                        .filter(s -> s.listening() && (nodes == null || nodes.contains(s.name)))
                        .count();
            }

            @Override
            public int confirmed(String channel) {
                return (int) all.stream().filter(s -> s.confirmed(channel)).count();
            }
        };
    }

    /** A key got its first waiter in this client. */
    public void subscribe(String channel) {
        if (wanted.add(channel)) {
            sync();
        }
    }

    /** A key's last waiter left. */
    public void unsubscribe(String channel) {
        if (wanted.remove(channel)) {
            sync();
        }
    }

    /** Whether the node confirmed the subscription to {@code channel} on the current connection. */
    public boolean confirmed(String channel) {
        Conn c = conn;
        return c != null && c.confirmed.contains(channel);
    }

    /** Whether the subscription is up: a subscribe push came on the current connection. */
    public boolean listening() {
        return listening;
    }

    /** How many messages this subscriber handed to the engine. */
    public long messages() {
        return messages;
    }

    /** Closes the connection for good (the client closed). */
    public void close() {
        closed = true;
        Conn c = conn;
        if (c != null) {
            disconnect(c, "client closed");
        }
    }

    private long now() {
        return client.clockNanos();
    }

    private SimWorld world() {
        return net.world();
    }

    private void trace(Conn c, String what) {
        if (world().tracing()) {
            world().trace("c" + clientIndex + " ~ " + name + " sub " + c.id + ": " + what);
        }
    }

    // ------------------------------------------------------------------------------------------------ client side

    /** Brings the connection's subscriptions in line with what waiters want now; connects first if need be. */
    private void sync() {
        if (closed) {
            return;
        }
        Conn c = conn;
        if (c == null) {
            if (!wanted.isEmpty() && now() - notBefore >= 0) {
                connect();
            }
            return;
        }
        if (!c.connected) {
            return;
        }
        List<String> add = new ArrayList<>();
        for (String ch : wanted) {
            if (c.subscribed.add(ch)) {
                add.add(ch);
            }
        }
        List<String> drop = new ArrayList<>();
        for (String ch : c.subscribed) {
            if (!wanted.contains(ch)) {
                drop.add(ch);
            }
        }
        c.subscribed.removeAll(drop);
        c.confirmed.removeAll(drop);
        if (!add.isEmpty()) {
            trace(c, "SUBSCRIBE " + add);
            request(c, () -> add.forEach(ch -> server.subscribe(c, ch)));
        }
        if (!drop.isEmpty()) {
            trace(c, "UNSUBSCRIBE " + drop);
            request(c, () -> drop.forEach(ch -> server.unsubscribe(c, ch)));
        }
    }

    private void connect() {
        Conn c = new Conn(++connections, server.incarnation());
        conn = c;
        trace(c, "connecting");
        if (server.down() && !net.isCut(clientIndex, serverIndex)) {
            // Connection refused, after one round trip.
            client.at(world().now() + 2 * net.delay(), () -> disconnect(c, "connection refused"));
            return;
        }
        // The TCP handshake: the node's kernel answers even while the process is stopped.
        if (!c.silent && !net.isCut(clientIndex, serverIndex) && !net.requestLost()) {
            long arrival = world().now() + net.delay();
            c.lastArrival = arrival;
            world().at(arrival, null, () -> {
                if (!server.down() && server.incarnation() == c.incarnation) {
                    reply(c, () -> connected(c));
                }
            });
        } else {
            c.silent = true;
        }
        client.afterClock(connectTimeoutNanos + 1, () -> {
            if (!c.connected && !c.broken) {
                disconnect(c, "connect timed out");
            }
        });
    }

    private void connected(Conn c) {
        if (closed) {
            disconnect(c, "client closed");
            return;
        }
        trace(c, "connected");
        c.connected = true;
        c.lastRead = now();
        check(c);
        sync();
    }

    /**
     * The real subscriber's sweep for one connection, at the next time it could act: a PING once the connection was
     * silent for the identity check interval, the connection dropped once a PING waited the connect timeout.
     */
    private void check(Conn c) {
        if (c.broken) {
            return;
        }
        long now = now();
        if (c.pingSent != 0 && now - c.pingSent > connectTimeoutNanos) {
            disconnect(c, "no answer to PING: the connection is gone");
            return;
        }
        if (c.pingSent == 0 && now - c.lastRead > pingIntervalNanos) {
            c.pingSent = now;
            trace(c, "PING");
            request(c, () -> server.ping(c));
        }
        long due = c.pingSent != 0 ? c.pingSent + connectTimeoutNanos + 1 : c.lastRead + pingIntervalNanos + 1;
        client.afterClock(due - now, () -> check(c));
    }

    /** A push arrived: through the real subscriber's handling of it. */
    private void received(Conn c, Object push) {
        if (closed) {
            return;
        }
        c.lastRead = now();
        String kind;
        try {
            kind = ReleaseSubscriber.push(push, (channel, payload) -> {
                if (payload == null) {
                    trace(c, "subscribed to " + channel);
                    if (c.subscribed.contains(channel)) {
                        c.confirmed.add(channel); // before the engine hears of it (see ReleaseSubscriber)
                    }
                    onRelease.accept(channel, null);
                    return;
                }
                messages++;
                trace(c, "message " + payload + " on " + channel);
                onRelease.accept(channel, payload);
            });
        } catch (Resp.ProtocolException e) {
            disconnect(c, e.getMessage());
            return;
        }
        if (kind.equals("pong")) {
            c.pingSent = 0;
        } else if (kind.equals("subscribe") && !listening) {
            listening = true;
            listeningSince = now();
        }
    }

    /** A request travels to the node and runs there in connection order, unless the path or the node died. */
    private void request(Conn c, Runnable atServer) {
        if (c.silent || net.isCut(clientIndex, serverIndex) || net.requestLost()) {
            c.silent = true;
            return;
        }
        long arrival = Math.max(world().now() + net.delay(), c.lastArrival);
        c.lastArrival = arrival;
        server.at(arrival, () -> {
            if (server.down() || server.incarnation() != c.incarnation || c.broken) {
                return;
            }
            atServer.run();
        });
    }

    /** A push travels back in connection order, unless the path died or the client dropped the connection. */
    private void reply(Conn c, Runnable atClient) {
        if (c.broken || c.silent || net.isCut(clientIndex, serverIndex) || net.replyLost()) {
            c.silent = true;
            return;
        }
        long at = Math.max(world().now() + net.delay(), c.lastReply);
        c.lastReply = at;
        client.at(at, () -> {
            if (!c.broken) {
                atClient.run();
            }
        });
    }

    private void serverCrashed() {
        Conn c = conn;
        if (c == null || c.broken || c.incarnation >= server.incarnation()) {
            return;
        }
        if (net.isCut(clientIndex, serverIndex)) {
            c.silent = true; // nothing reaches the client: the PING finds out
            return;
        }
        client.at(world().now() + net.delay(), () -> disconnect(c, "connection closed by the server"));
    }

    /** Drops the connection; unless closed, the next connection after the back-off subscribes again. */
    private void disconnect(Conn c, String cause) {
        if (c.broken) {
            return;
        }
        trace(c, "dropped: " + cause);
        c.broken = true;
        if (conn != c) {
            return;
        }
        conn = null;
        boolean lasted = now() - listeningSince >= TimeUnit.MILLISECONDS.toNanos(ReleaseSubscriber.STABLE_MILLIS);
        boolean stable = listening && lasted;
        boolean flapped = listening && !lasted;
        listening = false;
        if (!c.silent && !net.isCut(clientIndex, serverIndex)) {
            // The node sees the connection close and forgets its subscriptions.
            server.at(world().now() + net.delay(), () -> {
                if (server.incarnation() == c.incarnation) {
                    server.disconnected(c);
                }
            });
        }
        if (closed) {
            return;
        }
        if (stable) {
            failures = 0;
        }
        long delay = backoff(++failures);
        if (flapped) {
            delay = Math.max(delay, TimeUnit.MILLISECONDS.toNanos(ReleaseSubscriber.flappedDelayMillis(failures)));
        }
        notBefore = now() + delay;
        client.afterClock(delay + 1, this::sync);
        if (!c.confirmed.isEmpty()) {
            onRelease.accept(null, null); // its confirmations no longer count (see ReleaseSubscriber)
        }
    }

    /**
     * The real subscriber's back-off: 10 ms doubling per failure, randomized by half either way, at most the cap (the
     * circuit breaker's open time, at most a second).
     */
    private long backoff(int failure) {
        double interval = 10_000_000.0 * Math.pow(2, Math.min(failure - 1, 20));
        return Math.min(
                backoffCapNanos, (long) (interval * (0.5 + world().random().nextDouble())));
    }
}
