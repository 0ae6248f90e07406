/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The five-node floor: what one Redlock cycle costs with nothing between the caller and the sockets. Each handle owns
 * one non-blocking connection to every node and one {@link Selector}, all driven by the calling thread: an acquire
 * writes the library's own {@code acquire.lua} by {@code EVALSHA} to every node at once and returns as soon as a
 * majority's replies decide; a release writes {@code release.lua} to every node and returns once a majority
 * confirmed. No engine, no I/O thread, no scheduler; RESP is encoded and parsed by hand. The scripts are read from
 * the library's resources, and the arguments have the shape the library sends for a plain, unfenced lock with restart
 * detection off: acquire {@code KEYS = {key, key:t:token}, ARGV = {token, ttl, "0"}}, release
 * {@code KEYS = {key}, ARGV = {token}}.
 */
final class FanOutFloor implements Contender {

    private static final HexFormat HEX = HexFormat.of();
    private static final String ACQUIRE_LUA = resource("acquire.lua");
    private static final String RELEASE_LUA = resource("release.lua");

    private final List<InetSocketAddress> nodes;
    private final long leaseMillis;
    private final long retryDelayNanos;
    private final double retryJitter;
    /**
     * Whether a second thread of the handle reads the replies and wakes the caller once the round is decided, as an
     * engine with an I/O thread does: the same work plus exactly that hand-off, to measure what it costs.
     */
    private final boolean ioThread;

    /**
     * @param uris the nodes, {@code redis://host:port}
     * @param retryDelay delay between attempts while waiting for a busy lock (our library's default schedule)
     */
    FanOutFloor(List<String> uris, java.time.Duration lease, java.time.Duration retryDelay, double retryJitter) {
        this(uris, lease, retryDelay, retryJitter, false);
    }

    /** @param ioThread whether replies are read by a thread of their own, which wakes the caller */
    FanOutFloor(
            List<String> uris,
            java.time.Duration lease,
            java.time.Duration retryDelay,
            double retryJitter,
            boolean ioThread) {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String uri : uris) {
            URI u = URI.create(uri);
            addresses.add(new InetSocketAddress(u.getHost(), u.getPort()));
        }
        this.nodes = List.copyOf(addresses);
        this.leaseMillis = lease.toMillis();
        this.retryDelayNanos = retryDelay.toNanos();
        this.retryJitter = retryJitter;
        this.ioThread = ioThread;
    }

    @Override
    public String id() {
        return ioThread ? "floor-fanout-5-io" : "floor-fanout-5";
    }

    @Override
    public String label() {
        return ioThread
                ? "floor with an I/O thread: the same fan-out, replies read by a second thread that wakes the caller"
                : "floor: NIO fan-out of acquire.lua/release.lua (5 nodes, caller's thread)";
    }

    @Override
    public String settings() {
        return "per thread: one non-blocking socket per node (TCP_NODELAY) and one Selector on the calling thread;"
                + " EVALSHA of the library's acquire.lua (KEYS key, key:t:token; ARGV token, " + leaseMillis
                + ", '0') to all " + nodes.size() + " nodes, decided at " + (nodes.size() / 2 + 1)
                + " replies; release.lua (KEYS key; ARGV token) to all, decided at a majority of confirmations;"
                + " hand-written RESP; token = 128 random bits from ThreadLocalRandom; failed acquires release on"
                + " all nodes; while waiting, the same retry schedule as the floor"
                + (ioThread
                        ? "; replies read by one more thread per handle, which unparks the caller once the round is"
                                + " decided (the caller writes the commands and parks)"
                        : "");
    }

    @Override
    public Handle open(String lockName) throws IOException {
        return new FanOutHandle("redlock:{" + lockName + "}");
    }

    @Override
    public void close() {
        // Connections belong to the handles and are closed with them.
    }

    private static String resource(String name) {
        String path = "/dev/redlock/lua/" + name;
        try (InputStream in = FanOutFloor.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is missing from the classpath (the library jar)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What a reply is awaited for, per connection, in the order the commands were written. */
    private enum Expect {
        ACQUIRE,
        RELEASE
    }

    /** Marks a reply not yet complete in the read buffer. */
    private static final Object INCOMPLETE = new Object();

    private final class FanOutHandle implements Handle {
        private final String key;
        private final byte[] keyBytes;
        private final String acquireSha;
        private final String releaseSha;
        private final Selector selector;
        private final SocketChannel[] channels;
        private final ByteBuffer[] reads;
        private final List<ArrayDeque<Expect>> expected = new ArrayList<>();
        private final ByteBuffer out = ByteBuffer.allocateDirect(1024);
        private final int quorum;
        private String token;
        /** Replies of the round in progress. */
        private int yes;

        private int no;
        private Expect round;
        private String error;
        /** With an I/O thread: the reader, the caller it wakes, and whether the handle is closing. */
        private Thread reader;

        private volatile Thread waiter;
        private volatile boolean closing;

        FanOutHandle(String key) throws IOException {
            this.key = key;
            this.keyBytes = key.getBytes(StandardCharsets.UTF_8);
            this.acquireSha = sha1(ACQUIRE_LUA);
            this.releaseSha = sha1(RELEASE_LUA);
            this.quorum = nodes.size() / 2 + 1;
            this.selector = Selector.open();
            this.channels = new SocketChannel[nodes.size()];
            this.reads = new ByteBuffer[nodes.size()];
            try {
                for (int i = 0; i < nodes.size(); i++) {
                    SocketChannel ch = SocketChannel.open(nodes.get(i));
                    channels[i] = ch;
                    ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    reads[i] = ByteBuffer.allocateDirect(64 * 1024);
                    expected.add(new ArrayDeque<>());
                    // Cache both scripts on the node (blocking, before the loop): EVALSHA then always finds them.
                    loadScript(ch, reads[i], ACQUIRE_LUA, acquireSha);
                    loadScript(ch, reads[i], RELEASE_LUA, releaseSha);
                    ch.configureBlocking(false);
                    ch.register(selector, SelectionKey.OP_READ, i);
                }
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
            if (ioThread) {
                reader = new Thread(this::readLoop, "fanout-io");
                reader.setDaemon(true);
                reader.start();
            }
        }

        /** The I/O thread: reads replies as they come, and wakes the caller once its round is decided. */
        private void readLoop() {
            try {
                while (!closing) {
                    selector.select();
                    Thread wake = null;
                    synchronized (this) {
                        for (SelectionKey k : selector.selectedKeys()) {
                            drain((Integer) k.attachment());
                        }
                        selector.selectedKeys().clear();
                        if (round != null && (yes >= quorum || no >= quorum)) {
                            wake = waiter;
                        }
                    }
                    if (wake != null) {
                        LockSupport.unpark(wake);
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (!closing) {
                    error = String.valueOf(e);
                    no = quorum;
                    LockSupport.unpark(waiter);
                }
            }
        }

        private void loadScript(SocketChannel ch, ByteBuffer in, String source, String sha) throws IOException {
            out.clear();
            ByteBuffer cmd = ByteBuffer.wrap(encode("SCRIPT", "LOAD", source));
            while (cmd.hasRemaining()) {
                ch.write(cmd);
            }
            in.clear();
            while (true) {
                if (ch.read(in) < 0) {
                    throw new IOException("node closed the connection during SCRIPT LOAD");
                }
                in.flip();
                Object reply = parse(in);
                if (reply != INCOMPLETE) {
                    in.compact();
                    if (!sha.equals(reply)) {
                        throw new IllegalStateException("SCRIPT LOAD answered " + reply + ", expected " + sha);
                    }
                    return;
                }
                in.position(in.limit()).limit(in.capacity());
            }
        }

        @Override
        public boolean acquire(long waitMillis) throws IOException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
            while (true) {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                String candidate = HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
                byte[] tokenBytes = candidate.getBytes(StandardCharsets.US_ASCII);
                byte[] tombstone = (key + ":t:" + candidate).getBytes(StandardCharsets.UTF_8);
                out.clear();
                command(
                        ascii("EVALSHA"),
                        ascii(acquireSha),
                        ascii("2"),
                        keyBytes,
                        tombstone,
                        tokenBytes,
                        ascii(Long.toString(leaseMillis)),
                        ascii("0"));
                if (runRound(Expect.ACQUIRE)) {
                    token = candidate;
                    return true;
                }
                // Refused by a majority: give back what was won, on every node, as the library does.
                token = candidate;
                release();
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                double factor =
                        1 + retryJitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
                LockSupport.parkNanos(Math.min(remaining, (long) (retryDelayNanos * factor)));
            }
        }

        @Override
        public void release() throws IOException {
            out.clear();
            command(ascii("EVALSHA"), ascii(releaseSha), ascii("1"), keyBytes, ascii(token));
            runRound(Expect.RELEASE);
            token = null;
        }

        /** Writes the command in {@link #out} to every node and reads until a majority decided the round. */
        private boolean runRound(Expect kind) throws IOException {
            if (ioThread) {
                return runRoundWithReader(kind);
            }
            start(kind);
            while (yes < quorum && no < quorum) {
                selector.select();
                for (SelectionKey k : selector.selectedKeys()) {
                    drain((Integer) k.attachment());
                }
                selector.selectedKeys().clear();
            }
            if (error != null && yes < quorum) {
                throw new IllegalStateException("node error: " + error);
            }
            return yes >= quorum;
        }

        /** Starts a round: resets its count and writes the command in {@link #out} to every node. */
        private void start(Expect kind) throws IOException {
            round = kind;
            yes = 0;
            no = 0;
            error = null;
            out.flip();
            for (int i = 0; i < channels.length; i++) {
                ByteBuffer b = out.duplicate();
                while (b.hasRemaining()) {
                    channels[i].write(b);
                }
                expected.get(i).addLast(kind);
            }
        }

        /** As {@link #runRound}, the replies read by the I/O thread: the caller writes, then parks until woken. */
        private boolean runRoundWithReader(Expect kind) throws IOException {
            waiter = Thread.currentThread();
            synchronized (this) {
                start(kind);
            }
            while (true) {
                synchronized (this) {
                    if (yes >= quorum || no >= quorum) {
                        if (error != null && yes < quorum) {
                            throw new IllegalStateException("node error: " + error);
                        }
                        round = null;
                        return yes >= quorum;
                    }
                }
                LockSupport.park(this);
            }
        }

        /** Reads what node {@code i} sent and counts each complete reply to the round in progress. */
        private void drain(int i) throws IOException {
            ByteBuffer in = reads[i];
            if (channels[i].read(in) < 0) {
                throw new IOException("node " + (i + 1) + " closed the connection");
            }
            in.flip();
            while (true) {
                int start = in.position();
                Object reply = parse(in);
                if (reply == INCOMPLETE) {
                    in.position(start);
                    break;
                }
                Expect was = expected.get(i).pollFirst();
                if (was != round || !expected.get(i).isEmpty()) {
                    // A straggler of an earlier round: the connection stays in step, its vote no longer counts.
                    continue;
                }
                if (reply instanceof String s && s.startsWith("-")) {
                    error = s;
                    no++;
                } else if (was == Expect.ACQUIRE) {
                    // Plain lock, restart detection off: 1 granted, or {0, holderTtl}.
                    if (reply instanceof Long n && n == 1) {
                        yes++;
                    } else {
                        no++;
                    }
                } else {
                    // 1 released, 0 absent, -1 another owner: the key is no longer ours in every case.
                    yes++;
                }
            }
            in.compact();
        }

        private void command(byte[]... args) {
            out.put((byte) '*')
                    .put(ascii(Integer.toString(args.length)))
                    .put((byte) '\r')
                    .put((byte) '\n');
            for (byte[] a : args) {
                out.put((byte) '$')
                        .put(ascii(Integer.toString(a.length)))
                        .put((byte) '\r')
                        .put((byte) '\n');
                out.put(a).put((byte) '\r').put((byte) '\n');
            }
        }

        @Override
        public void close() {
            closing = true;
            if (reader != null) {
                selector.wakeup();
                try {
                    reader.join(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            for (SocketChannel ch : channels) {
                if (ch != null) {
                    try {
                        ch.close();
                    } catch (IOException e) {
                        // Closing anyway.
                    }
                }
            }
            try {
                selector.close();
            } catch (IOException e) {
                // Closing anyway.
            }
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] encode(String... args) {
        StringBuilder sb = new StringBuilder();
        sb.append('*').append(args.length).append("\r\n");
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * One RESP2 value from {@code in} (integers as {@link Long}, simple strings and bulk strings as {@link String},
     * errors as a String starting with '-', arrays as lists), or {@link #INCOMPLETE} if it has not all arrived yet.
     */
    private static Object parse(ByteBuffer in) {
        if (!in.hasRemaining()) {
            return INCOMPLETE;
        }
        byte type = in.get();
        String line = line(in);
        if (line == null) {
            return INCOMPLETE;
        }
        switch (type) {
            case ':':
                return Long.parseLong(line);
            case '+':
                return line;
            case '-':
                return "-" + line;
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return "";
                }
                if (in.remaining() < n + 2) {
                    return INCOMPLETE;
                }
                byte[] b = new byte[n];
                in.get(b);
                in.position(in.position() + 2);
                return new String(b, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                List<Object> items = new ArrayList<>(Math.max(n, 0));
                for (int j = 0; j < n; j++) {
                    Object item = parse(in);
                    if (item == INCOMPLETE) {
                        return INCOMPLETE;
                    }
                    items.add(item);
                }
                return items;
            }
            default:
                throw new IllegalStateException("unexpected RESP type '" + (char) type + "'");
        }
    }

    /** The rest of a line up to CRLF (consumed), or null if the CRLF has not arrived. */
    private static String line(ByteBuffer in) {
        int start = in.position();
        for (int p = start; p + 1 < in.limit(); p++) {
            if (in.get(p) == '\r' && in.get(p + 1) == '\n') {
                byte[] b = new byte[p - start];
                in.get(b);
                in.position(p + 2);
                return new String(b, StandardCharsets.US_ASCII);
            }
        }
        return null;
    }
}
