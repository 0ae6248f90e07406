/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * The bytes of one non-blocking connection, in the clear or through TLS ({@link SSLEngine}). Callers read and write
 * plaintext; a TLS wire encrypts and decrypts in between. Never blocks.
 *
 * <p>Threading, as the connections use it: {@link #handshake()} and {@link #read} run on the I/O loop thread only;
 * {@link #write} runs on one thread at a time (the connection's flush-flag holder) and only once the handshake is
 * done. The JDK allows an engine's wrap and unwrap to run at the same time, so a reader and a writer never wait for
 * each other.
 */
abstract class Wire {

    final SocketChannel channel;

    Wire(SocketChannel channel) {
        this.channel = channel;
    }

    static Wire plain(SocketChannel channel) {
        return new Plain(channel);
    }

    static Wire tls(SocketChannel channel, SSLEngine engine) {
        return new Tls(channel, engine);
    }

    /**
     * Moves the TLS handshake on as far as the socket allows (loop thread).
     *
     * @return true once the connection carries plaintext; false if it waits for the socket ({@link #wantsWrite()}
     *     says whether for room to write, else for bytes to read)
     */
    abstract boolean handshake() throws IOException;

    /** Whether an unfinished handshake waits for the socket to take bytes. */
    boolean wantsWrite() {
        return false;
    }

    /**
     * Writes plaintext: as much of {@code src} as the socket takes.
     *
     * @return true if all of {@code src} went out; false if the socket is full (the rest stays in {@code src}, or is
     *     held here and goes first on the next write)
     */
    abstract boolean write(ByteBuffer src) throws IOException;

    /**
     * Reads plaintext into {@code dst} (in write mode).
     *
     * @return the bytes added, or -1 at the end of the stream with nothing added
     */
    abstract int read(ByteBuffer dst) throws IOException;

    /** Whether plaintext is ready without reading the socket again (so the reader must come back at once). */
    boolean buffered() {
        return false;
    }

    /** Whether this wire encrypts. */
    boolean isTls() {
        return false;
    }

    private static final class Plain extends Wire {
        Plain(SocketChannel channel) {
            super(channel);
        }

        @Override
        boolean handshake() {
            return true;
        }

        @Override
        boolean write(ByteBuffer src) throws IOException {
            while (src.hasRemaining()) {
                if (channel.write(src) == 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        int read(ByteBuffer dst) throws IOException {
            return channel.read(dst);
        }
    }

    /**
     * TLS over the channel. Buffers are sized from the session: {@code netOut} holds encrypted bytes the socket has
     * not taken yet (read mode), {@code netIn} encrypted bytes read but not yet decrypted (write mode), {@code appIn}
     * decrypted bytes the caller's buffer had no room for (read mode).
     */
    private static final class Tls extends Wire {
        private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

        private final SSLEngine engine;
        private ByteBuffer netOut;
        private ByteBuffer netIn;
        private ByteBuffer appIn;
        private boolean handshaken;
        private boolean wantsWrite;
        /** The last unwrap left whole records in {@code netIn}, or {@code appIn} holds plaintext (loop thread). */
        private boolean more;

        Tls(SocketChannel channel, SSLEngine engine) {
            super(channel);
            this.engine = engine;
            int packet = engine.getSession().getPacketBufferSize();
            this.netOut = ByteBuffer.allocate(packet).flip();
            this.netIn = ByteBuffer.allocate(packet);
            this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize())
                    .flip();
        }

        @Override
        boolean isTls() {
            return true;
        }

        @Override
        boolean wantsWrite() {
            return wantsWrite;
        }

        @Override
        boolean handshake() throws IOException {
            if (handshaken) {
                return true;
            }
            if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                    && !engine.getSession().isValid()) {
                engine.beginHandshake();
            }
            wantsWrite = false;
            while (true) {
                if (!flushNet()) {
                    wantsWrite = true;
                    return false;
                }
                switch (engine.getHandshakeStatus()) {
                    case NEED_WRAP: {
                        netOut.clear();
                        SSLEngineResult r = engine.wrap(EMPTY, netOut);
                        netOut.flip();
                        if (r.getStatus() == SSLEngineResult.Status.CLOSED && !netOut.hasRemaining()) {
                            throw new SSLException("the TLS engine closed during the handshake");
                        }
                        break;
                    }
                    case NEED_UNWRAP:
                    case NEED_UNWRAP_AGAIN: {
                        netIn.flip();
                        SSLEngineResult r;
                        try {
                            r = engine.unwrap(netIn, appInForWriting());
                        } finally {
                            netIn.compact();
                            appIn.flip();
                        }
                        if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
                                || r.getStatus() == SSLEngineResult.Status.OK
                                        && r.bytesConsumed() == 0
                                        && r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                            growNetIn();
                            int n = channel.read(netIn);
                            if (n < 0) {
                                throw new EOFException("the server closed the connection during the TLS handshake");
                            }
                            if (n == 0) {
                                return false;
                            }
                        } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                            throw new SSLException("the server closed the TLS session during the handshake");
                        }
                        break;
                    }
                    case NEED_TASK: {
                        // Certificate checks: a few milliseconds, once per connection, on the loop.
                        Runnable task;
                        while ((task = engine.getDelegatedTask()) != null) {
                            task.run();
                        }
                        break;
                    }
                    default: // FINISHED, NOT_HANDSHAKING
                        handshaken = true;
                        more = appIn.hasRemaining() || netIn.position() > 0;
                        return true;
                }
            }
        }

        /** Writes held encrypted bytes; false if the socket took only part of them. */
        private boolean flushNet() throws IOException {
            while (netOut.hasRemaining()) {
                if (channel.write(netOut) == 0) {
                    return false;
                }
            }
            return true;
        }

        private ByteBuffer appInForWriting() {
            appIn.compact();
            int need = engine.getSession().getApplicationBufferSize();
            if (appIn.remaining() < need) {
                ByteBuffer bigger = ByteBuffer.allocate(appIn.position() + need);
                appIn.flip();
                bigger.put(appIn);
                appIn = bigger;
            }
            return appIn;
        }

        private void growNetIn() {
            int need = engine.getSession().getPacketBufferSize();
            if (netIn.remaining() < need && netIn.capacity() < 2 * need) {
                ByteBuffer bigger = ByteBuffer.allocate(netIn.position() + need);
                netIn.flip();
                bigger.put(netIn);
                netIn = bigger;
            }
        }

        @Override
        boolean write(ByteBuffer src) throws IOException {
            while (true) {
                if (!flushNet()) {
                    return false;
                }
                if (!src.hasRemaining()) {
                    return true;
                }
                netOut.clear();
                SSLEngineResult r;
                try {
                    r = engine.wrap(src, netOut);
                } finally {
                    netOut.flip();
                }
                switch (r.getStatus()) {
                    case OK:
                        break;
                    case CLOSED:
                        throw new SSLException("the TLS session is closed");
                    default:
                        // netOut is sized for one record of the session: overflow means the session changed.
                        throw new SSLException("cannot encrypt: " + r.getStatus());
                }
                if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK
                        || r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_UNWRAP) {
                    throw new SSLException("the server asked for a new TLS handshake, which this client does not do");
                }
            }
        }

        @Override
        int read(ByteBuffer dst) throws IOException {
            int before = dst.position();
            drain(dst);
            if (appIn.hasRemaining()) {
                more = true;
                return dst.position() - before;
            }
            boolean eof = false;
            int n = channel.read(netIn);
            if (n < 0) {
                eof = true;
            }
            netIn.flip();
            try {
                while (netIn.hasRemaining() && !appIn.hasRemaining()) {
                    appIn.clear();
                    SSLEngineResult r;
                    try {
                        r = engine.unwrap(netIn, appIn);
                    } finally {
                        appIn.flip();
                    }
                    drain(dst);
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        break;
                    }
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                        appIn = ByteBuffer.allocate(Math.max(
                                        2 * appIn.capacity(),
                                        engine.getSession().getApplicationBufferSize()))
                                .flip();
                        continue;
                    }
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        eof = true;
                        break;
                    }
                    SSLEngineResult.HandshakeStatus hs = r.getHandshakeStatus();
                    if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                        Runnable task;
                        while ((task = engine.getDelegatedTask()) != null) {
                            task.run();
                        }
                    } else if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                        // A key update or renegotiation request: not something Redis sends; fail rather than stall.
                        throw new SSLException(
                                "the server asked for a new TLS handshake, which this client does not do");
                    }
                }
                // Whole records still waiting, or plaintext the caller had no room for: the caller comes back.
                more = appIn.hasRemaining() || (netIn.hasRemaining() && !eof && wholeRecord(netIn));
            } finally {
                netIn.compact();
            }
            growNetIn();
            int got = dst.position() - before;
            return got == 0 && eof ? -1 : got;
        }

        /** Whether {@code buf} (read mode) starts with a complete TLS record: 5-byte header with its length. */
        private static boolean wholeRecord(ByteBuffer buf) {
            if (buf.remaining() < 5) {
                return false;
            }
            int p = buf.position();
            int len = ((buf.get(p + 3) & 0xff) << 8) | (buf.get(p + 4) & 0xff);
            return buf.remaining() >= 5 + len;
        }

        private void drain(ByteBuffer dst) {
            int n = Math.min(appIn.remaining(), dst.remaining());
            if (n > 0) {
                ByteBuffer slice = appIn.slice();
                slice.limit(n);
                dst.put(slice);
                appIn.position(appIn.position() + n);
            }
        }

        @Override
        boolean buffered() {
            return more;
        }
    }
}
