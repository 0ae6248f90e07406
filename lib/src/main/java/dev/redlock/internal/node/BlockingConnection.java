/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import javax.net.ssl.SSLSocket;

/**
 * A short-lived, blocking connection of the library's own to a node given by URI, plain or TLS, for the topology
 * check and the fencing counter repair: one command at a time, replies parsed with {@link Resp} within limits, so a
 * hostile node fails its own check and nothing else. Not thread-safe; close it when done.
 */
public final class BlockingConnection implements Commands, AutoCloseable {

    /** Limits for these commands' replies: INFO texts, SCAN pages, CONFIG GET lists. */
    private static final Resp.Limits LIMITS = new Resp.Limits(100_000, 16 * 1024 * 1024, 3, 64 * 1024);
    /** The most one reply may take here, whatever the limits above would allow in theory. */
    private static final int MAX_REPLY_BYTES = 32 * 1024 * 1024;

    private final NodeSpec spec;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private ByteBuffer buffer = ByteBuffer.allocate(16 * 1024).flip();

    private BlockingConnection(NodeSpec spec, Socket socket) throws IOException {
        this.spec = spec;
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /**
     * Connects (within the connect timeout, the TLS handshake included), authenticates and selects the database.
     *
     * @param readTimeout how long one reply may take
     * @throws UncheckedIOException if the node cannot be reached; its message names the node and, for TLS, says why
     * @throws RedisErrorReply if AUTH or SELECT is refused
     */
    public static BlockingConnection open(NodeSpec spec, RedlockConfig config, Duration readTimeout) {
        if (spec.isFollowed() && spec.host() == null) {
            // Off the hot path: ask the sentinels or the cluster now which server the node is.
            spec = MasterWatch.resolve(spec, config);
        }
        return open(spec, config, readTimeout, true);
    }

    /**
     * As {@link #open(NodeSpec, RedlockConfig, Duration)} for a node at a known address; {@code authenticate} false
     * leaves AUTH to the caller (a sentinel, which may have no password although its master has one).
     */
    static BlockingConnection open(NodeSpec spec, RedlockConfig config, Duration readTimeout, boolean authenticate) {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            int connectMs = (int) Math.min(
                    Integer.MAX_VALUE, Math.max(1, config.connectTimeout().toMillis()));
            socket.connect(new InetSocketAddress(spec.host(), spec.port()), connectMs);
            Socket s = socket;
            if (spec.ssl()) {
                TlsSetup tls = config.tls();
                SSLSocket ssl = (SSLSocket)
                        tls.context().getSocketFactory().createSocket(socket, spec.host(), spec.port(), true);
                ssl.setSSLParameters(tls.parameters(spec.host()));
                ssl.setSoTimeout(connectMs);
                try {
                    ssl.startHandshake();
                } catch (IOException e) {
                    String why = TlsSetup.explain(spec.name(), e);
                    throw why == null ? e : new QuietException.TlsFailure(why, e);
                }
                s = ssl;
            }
            s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, readTimeout.toMillis())));
            BlockingConnection c = new BlockingConnection(spec, s);
            try {
                if (authenticate && spec.password() != null) {
                    c.call(spec.authCommand());
                }
                if (spec.database() != 0) {
                    c.call("SELECT", Integer.toString(spec.database()));
                }
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            return c;
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException(spec.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Object call(String... args) {
        String tag = spec.keyTag();
        Object reply = send(tag == null ? args : KeyTags.command(args, tag));
        return tag == null ? reply : KeyTags.reply(args, reply, tag);
    }

    private Object send(String... args) {
        try {
            out.write(Resp.encode(args));
            out.flush();
            while (true) {
                Object reply = Resp.parse(buffer, LIMITS);
                if (reply != Resp.INCOMPLETE) {
                    if (reply instanceof Resp.ErrorReply) {
                        throw new RedisErrorReply(((Resp.ErrorReply) reply).message);
                    }
                    return reply;
                }
                fill();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(spec.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads the next message the server sends unasked (a pub/sub message), waiting at most the read timeout.
     *
     * @return the message, or null if none came within the read timeout (the connection stays usable)
     * @throws UncheckedIOException if the connection broke
     */
    Object next() {
        try {
            while (true) {
                Object reply = Resp.parse(buffer, LIMITS);
                if (reply != Resp.INCOMPLETE) {
                    return reply;
                }
                fill();
            }
        } catch (java.net.SocketTimeoutException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(spec.name() + ": " + e.getMessage(), e);
        }
    }

    /** Reads more bytes behind the unparsed rest, growing the buffer up to what one reply may take. */
    private void fill() throws IOException {
        buffer.compact();
        if (!buffer.hasRemaining()) {
            if (buffer.capacity() >= MAX_REPLY_BYTES) {
                throw new Resp.ProtocolException("a reply longer than " + MAX_REPLY_BYTES + " bytes");
            }
            ByteBuffer bigger = ByteBuffer.allocate(Math.min(2 * buffer.capacity(), MAX_REPLY_BYTES));
            buffer.flip();
            bigger.put(buffer);
            buffer = bigger;
        }
        int n;
        try {
            n = in.read(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        } catch (IOException e) {
            buffer.flip(); // back to read mode: after a read timeout the connection is still used
            throw e;
        }
        if (n < 0) {
            buffer.flip();
            throw new IOException("connection closed by the server");
        }
        buffer.position(buffer.position() + n);
        buffer.flip();
    }

    /** The node this connection reaches. */
    NodeSpec spec() {
        return spec;
    }

    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Nothing to do: the connection is gone either way.
        }
    }

    /** The node's name, for messages. */
    String name() {
        return spec.name();
    }

    /** The host this connection reached, as written. */
    String host() {
        return spec.host();
    }

    @Override
    public String toString() {
        return "BlockingConnection{" + spec.name() + "}";
    }
}
