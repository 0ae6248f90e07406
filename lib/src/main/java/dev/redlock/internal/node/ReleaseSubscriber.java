/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import io.github.resilience4j.core.IntervalFunction;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's release notifications: a single subscriber connection, on the client's {@link NioLoop}, subscribed to
 * the channels of the keys this client has waiters for ({@code release.lua} publishes on the key's name when it
 * deletes it). It connects only once some key has a waiter, subscribes and unsubscribes as keys gain and lose their
 * waiters, and after a lost connection (a restart, a network fault) reconnects with back-off and subscribes again;
 * meanwhile waiters poll. Notifications only make waiting shorter, so nothing here can harm safety: a stalled node
 * sends nothing, and a protocol violation drops the connection. Pub/sub is not authenticated, though: any client of a
 * node may PUBLISH on a lock's channel, and so wake waiters early (each then runs one more round) or, by repeating a
 * holder's token prefix, make the client drop the real notification (the waiter then polls). A node whose ACL
 * refuses SUBSCRIBE is asked again only every {@link #REFUSED_RETRY_MILLIS} ms.
 */
public final class ReleaseSubscriber implements NioLoop.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseSubscriber.class);
    /**
     * How long a connection must have listened before its loss starts the back-off over: a node that drops it at
     * each confirmation (a pub/sub output buffer limit, a hostile node) is then asked ever more slowly, since each
     * drop has the key's waiters poll and check again.
     */
    public static final long STABLE_MILLIS = 1_000;

    /** How long a node that refused SUBSCRIBE (an ACL without channel permissions) is left alone. */
    static final long REFUSED_RETRY_MILLIS = 60_000;

    /** For a Sentinel-managed node, which server is its master now; null otherwise. */
    private final MasterWatch watch;

    private final NodeSpec spec;
    private final NioLoop loop;
    private final BiConsumer<String, String> onRelease;
    /** Tells the engine that confirmed subscriptions went with a lost connection (see Subscriptions.Source). */
    private final Runnable lost;

    private final IntervalFunction backoff;
    private final long connectTimeoutNanos;
    /** How long the connection may be silent before a PING checks it is still there (a half-open TCP path). */
    private final long pingIntervalNanos;

    private final Resp.Limits limits;
    /** How a {@code rediss://} node is reached; null for a plain one. */
    private final TlsSetup tls;
    /** The channels waiters want, from any thread. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();

    // Loop thread only.
    private SocketChannel channel;
    /** The channel's bytes, in the clear or through TLS. */
    private Wire wire;

    private SelectionKey key;
    private boolean connected;
    private long connectStartedNanos;
    private int failures;
    /** When the connection's first subscription was confirmed. */
    private long listeningSinceNanos;

    private long notBeforeNanos = System.nanoTime();
    /** Channels a SUBSCRIBE was written for on the current connection (not yet unsubscribed). */
    private final Set<String> subscribed = new HashSet<>();
    /** Channels the node confirmed on the current connection and not unsubscribed since; read from any thread. */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /** AUTH replies still to come before the pushes start. */
    private int authLeft;

    private long lastReadNanos;
    /** When the unanswered PING went out; 0 if none is. */
    private long pingSentNanos;

    private ByteBuffer in = ByteBuffer.allocate(4096);
    private ByteBuffer out = ByteBuffer.allocate(0);
    private volatile boolean closed;
    /** The last connection ended with SUBSCRIBE refused (loop thread only). */
    private boolean refused;

    private boolean refusedLogged;
    /** Whether the subscription is up (for tests and the node report). */
    private volatile boolean listening;

    ReleaseSubscriber(NodeSpec spec, RedlockConfig config, NioLoop loop, BiConsumer<String, String> onRelease) {
        this(spec, config, loop, onRelease, null);
    }

    /** @param watch where a followed node's server is now; null for a node at a fixed address */
    ReleaseSubscriber(
            NodeSpec spec,
            RedlockConfig config,
            NioLoop loop,
            BiConsumer<String, String> onRelease,
            MasterWatch watch) {
        this.spec = spec;
        this.watch = watch;
        this.loop = loop;
        String tag = spec.keyTag();
        // A cluster slot's keys, and so the channels its releases publish on, start with the slot's tag: waiters know
        // the keys without it.
        BiConsumer<String, String> heard = (channel, payload) -> {
            if (payload == null && subscribed.contains(channel)) {
                // Before the engine hears of it: it counts the nodes that confirmed. Not for a confirmation that
                // comes after the channel's UNSUBSCRIBE went out (a waiter came and went at once).
                confirmed.add(channel);
            }
            onRelease.accept(channel, payload);
        };
        // The engine's own callback, not the wrapper below: a null channel has no tag to strip.
        this.lost = () -> onRelease.accept(null, null);
        this.onRelease = tag == null
                ? heard
                : (channel, payload) ->
                        heard.accept(channel.startsWith(tag) ? channel.substring(tag.length()) : channel, payload);
        this.backoff = IntervalFunction.ofExponentialRandomBackoff(
                Duration.ofMillis(10),
                2.0,
                0.5,
                Duration.ofMillis(Math.max(
                        10, Math.min(1_000, config.circuitOpenDuration().toMillis()))));
        this.connectTimeoutNanos = config.connectTimeout().toNanos();
        this.pingIntervalNanos = config.identityCheckInterval().toNanos();
        this.limits = Resp.Limits.DEFAULT.withMaxBulkBytes(config.maxReplyBytes());
        this.tls = spec.ssl() ? config.tls() : null;
        loop.add(this);
        if (watch != null) {
            // Releases are published on the master: follow it at once.
            watch.onChange(() -> loop.execute(() -> {
                if (channel != null) {
                    disconnect(new IOException("the node's server changed"));
                }
                notBeforeNanos = System.nanoTime();
            }));
        }
    }

    /** A key got its first waiter in this client. Never blocks. */
    void subscribe(String channelName) {
        if (wanted.add(channelName)) {
            loop.execute(this::sync);
        }
    }

    /** A key's last waiter left. Never blocks. */
    void unsubscribe(String channelName) {
        if (wanted.remove(channelName)) {
            loop.execute(this::sync);
        }
    }

    boolean listening() {
        return listening;
    }

    /** The node's name, as its node client and a lock's placement name it. */
    String nodeName() {
        return spec.name();
    }

    /** Whether the node confirmed the subscription to {@code channelName} on the current connection. */
    boolean confirmed(String channelName) {
        return confirmed.contains(channelName);
    }

    /** Closes the connection; the loop stops calling this handler once it sees the flag. */
    void close() {
        closed = true;
        loop.execute(() -> disconnect(null));
    }

    // ------------------------------------------------------------------------------------------------ loop side

    @Override
    public boolean listens() {
        return !closed && !wanted.isEmpty();
    }

    @Override
    public void sweep(long nowNanos) {
        if (closed) {
            return;
        }
        if (channel == null && !wanted.isEmpty() && nowNanos - notBeforeNanos >= 0) {
            connect();
        } else if (channel != null && !connected && nowNanos - connectStartedNanos > connectTimeoutNanos) {
            disconnect(new IOException("connect timed out"));
        } else if (connected && pingSentNanos != 0 && nowNanos - pingSentNanos > connectTimeoutNanos) {
            disconnect(new IOException("no answer to PING: the connection is gone"));
        } else if (connected && pingSentNanos == 0 && nowNanos - lastReadNanos > pingIntervalNanos) {
            try {
                pingSentNanos = nowNanos;
                queue(Resp.encode("PING"));
            } catch (IOException e) {
                disconnect(e);
            }
        }
    }

    @Override
    public void ready(SelectionKey k) {
        if (k != key) {
            k.cancel();
            return;
        }
        try {
            if (k.isConnectable()) {
                if (channel.finishConnect()) {
                    k.interestOps(SelectionKey.OP_READ);
                    secure();
                }
                return;
            }
            if (!connected) {
                secure();
                return;
            }
            if (k.isWritable()) {
                writeOut();
            }
            if (k.isReadable()) {
                read();
            }
        } catch (IOException | RuntimeException e) {
            disconnect(e);
        }
    }

    @Override
    public void crashed(Throwable t) {
        disconnect(t);
    }

    private void connect() {
        NodeSpec target = watch == null ? spec : watch.current();
        if (target == null) {
            notBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SentinelWatch.POLL_MILLIS);
            return;
        }
        try {
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            wire = tls == null ? Wire.plain(channel) : Wire.tls(channel, tls.engine(target.host(), target.port()));
            key = channel.register(loop.selector(), SelectionKey.OP_CONNECT, this);
            connectStartedNanos = System.nanoTime();
            if (channel.connect(new InetSocketAddress(target.host(), target.port()))) {
                secure();
            }
        } catch (IOException | RuntimeException e) {
            disconnect(e);
        }
    }

    /** Moves a TLS handshake on; once done (at once if plain), authenticates and subscribes. */
    private void secure() throws IOException {
        if (wire.handshake()) {
            connected();
        } else {
            key.interestOps(SelectionKey.OP_READ | (wire.wantsWrite() ? SelectionKey.OP_WRITE : 0));
        }
    }

    private void connected() throws IOException {
        connected = true;
        lastReadNanos = System.nanoTime();
        pingSentNanos = 0;
        key.interestOps(SelectionKey.OP_READ);
        if (spec.password() != null) {
            authLeft = 1;
            queue(
                    spec.user() == null
                            ? Resp.encode("AUTH", spec.password())
                            : Resp.encode("AUTH", spec.user(), spec.password()));
        }
        sync();
    }

    /** Brings the connection's subscriptions in line with what waiters want now. */
    private void sync() {
        if (closed || channel == null || !connected) {
            return;
        }
        List<String> add = new ArrayList<>();
        for (String c : wanted) {
            if (subscribed.add(c)) {
                add.add(c);
            }
        }
        List<String> drop = new ArrayList<>();
        for (String c : subscribed) {
            if (!wanted.contains(c)) {
                drop.add(c);
            }
        }
        subscribed.removeAll(drop);
        confirmed.removeAll(drop);
        try {
            if (!add.isEmpty()) {
                queue(command("SUBSCRIBE", add));
            }
            if (!drop.isEmpty()) {
                queue(command("UNSUBSCRIBE", drop));
            }
        } catch (IOException e) {
            disconnect(e);
        }
    }

    private byte[] command(String verb, List<String> channels) {
        String[] args = new String[channels.size() + 1];
        args[0] = verb;
        String tag = spec.keyTag();
        for (int i = 0; i < channels.size(); i++) {
            args[i + 1] = tag == null ? channels.get(i) : tag + channels.get(i);
        }
        return Resp.encode(args);
    }

    private void queue(byte[] command) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(out.remaining() + command.length);
        all.put(out).put(command).flip();
        out = all;
        writeOut();
    }

    /** Writes what the socket takes; the rest waits for OP_WRITE. Commands here are few and small. */
    private void writeOut() throws IOException {
        boolean all = wire.write(out);
        key.interestOps(all ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
    }

    private void read() throws IOException {
        do {
            readOnce();
        } while (wire.buffered() && channel != null); // TLS: records already read, or plaintext held back
    }

    private void readOnce() throws IOException {
        int n = wire.read(in);
        if (n < 0) {
            throw new IOException("connection closed by the server");
        }
        lastReadNanos = System.nanoTime();
        in.flip();
        while (true) {
            Object reply = Resp.parse(in, limits);
            if (reply == Resp.INCOMPLETE) {
                break;
            }
            handle(reply);
        }
        in.compact();
        if (!in.hasRemaining()) {
            if (in.capacity() >= limits.maxReplyBytes()) {
                throw new Resp.ProtocolException("a push longer than " + limits.maxReplyBytes() + " bytes");
            }
            ByteBuffer bigger = ByteBuffer.allocate(Math.min(in.capacity() * 2, limits.maxReplyBytes()));
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }

    private void handle(Object reply) throws IOException {
        if (authLeft > 0) {
            authLeft--;
            if (reply instanceof Resp.ErrorReply) {
                throw new IOException("AUTH rejected: " + reply);
            }
            return;
        }
        if (reply instanceof Resp.ErrorReply && passing(reply.toString())) {
            // A node at its maxclients limit answers a new connection so, then closes it: the usual back-off.
            throw new IOException("the node answered " + reply);
        }
        if (reply instanceof Resp.ErrorReply) {
            // SUBSCRIBE refused (an ACL without channel permissions): waiters keep polling; asking again every
            // second would only load the node.
            if (!refusedLogged) {
                refusedLogged = true;
                LOG.info(
                        "node {} refuses SUBSCRIBE ({}): its release notifications are off, waiters poll; allow the "
                                + "lock keys' channels for the client's user to have them",
                        spec.name(),
                        reply);
            }
            refused = true;
            throw new IOException("subscribe refused: " + reply);
        }
        String kind = push(reply, onRelease);
        if (kind.equals("pong")) {
            pingSentNanos = 0;
        } else if (kind.equals("subscribe") && !listening) {
            listening = true;
            listeningSinceNanos = System.nanoTime();
            LOG.debug("node {}: listening for release notifications", spec.name());
        }
    }

    /**
     * The least wait before reconnecting after the {@code failures}-th drop in a row of a connection that dropped
     * within {@link #STABLE_MILLIS} of its first confirmation: 20, 40 ... ms up to a second, whatever the back-off's
     * cap (which follows circuitOpenDuration), since each drop has the waiters poll and check again.
     */
    public static long flappedDelayMillis(int failures) {
        return Math.min(STABLE_MILLIS, 10L << Math.min(failures, 7));
    }

    /**
     * Whether an error reply on the subscriber connection passes (the node is at its client limit, loading, busy with a
     * script, or without its replicas): asked again with the back-off. Any other (an ACL without channel permissions,
     * a password the node wants, a renamed SUBSCRIBE) lasts: asked again only every {@link #REFUSED_RETRY_MILLIS} ms.
     */
    static boolean passing(String error) {
        return error.startsWith("ERR max number of clients")
                || error.startsWith("LOADING")
                || error.startsWith("BUSY")
                || error.startsWith("TRYAGAIN")
                || error.startsWith("MASTERDOWN");
    }

    /**
     * One reply of a subscribed connection, as {@link Resp} parsed it (not an error, not an AUTH reply): a message
     * goes to {@code onRelease} with its channel (the released key) and its payload as published, and a confirmed
     * subscription with its channel and a null payload; the simulation's subscribers hand their pushes here too.
     *
     * @return the push's kind: {@code message}, {@code subscribe}, {@code unsubscribe}, or {@code pong} (a PING's
     *     answer: ["pong", ""] while subscribed, +PONG once every channel was unsubscribed)
     * @throws Resp.ProtocolException if the reply is none of these
     */
    public static String push(Object reply, BiConsumer<String, String> onRelease) throws Resp.ProtocolException {
        if ("PONG".equals(reply)
                || (reply instanceof List
                        && ((List<?>) reply).size() == 2
                        && "pong".equals(text(((List<?>) reply).get(0))))) {
            return "pong";
        }
        if (!(reply instanceof List) || ((List<?>) reply).size() != 3) {
            throw new Resp.ProtocolException("not a pub/sub push");
        }
        List<?> push = (List<?>) reply;
        String kind = text(push.get(0));
        if (kind.equals("message")) {
            onRelease.accept(text(push.get(1)), text(push.get(2)));
        } else if (kind.equals("subscribe")) {
            onRelease.accept(text(push.get(1)), null); // from now on, this node's releases on the channel are heard
        } else if (!kind.equals("unsubscribe")) {
            throw new Resp.ProtocolException("not a pub/sub push: " + kind);
        }
        return kind;
    }

    private static String text(Object o) throws Resp.ProtocolException {
        if (o instanceof byte[]) {
            return new String((byte[]) o, StandardCharsets.UTF_8);
        }
        if (o instanceof Long) {
            return o.toString();
        }
        throw new Resp.ProtocolException("not a pub/sub push");
    }

    /** Drops the connection; unless closed, the next sweep after the back-off connects and subscribes again. */
    private void disconnect(Throwable cause) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("node {}: error closing the subscriber connection", spec.name(), e);
            }
        }
        if (cause != null && !closed) {
            boolean stable = System.nanoTime() - listeningSinceNanos >= TimeUnit.MILLISECONDS.toNanos(STABLE_MILLIS);
            if (listening && stable) {
                failures = 0;
            }
            long delay = refused ? REFUSED_RETRY_MILLIS : backoff.apply(++failures);
            if (listening && !stable) {
                delay = Math.max(delay, flappedDelayMillis(failures));
            }
            refused = false;
            notBeforeNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
            LOG.debug(
                    "node {}: release notifications down, waiters poll until they are back: {}",
                    spec.name(),
                    cause.toString());
        }
        channel = null;
        wire = null;
        key = null;
        connected = false;
        listening = false;
        authLeft = 0;
        subscribed.clear();
        boolean hadConfirmed = !confirmed.isEmpty();
        confirmed.clear();
        in.clear();
        out = ByteBuffer.allocate(0);
        if (hadConfirmed && !closed) {
            try {
                lost.run(); // last: this connection's state is gone whatever the engine does
            } catch (RuntimeException e) {
                LOG.warn("node {}: telling waiters of a lost subscriber connection failed", spec.name(), e);
            }
        }
    }
}
