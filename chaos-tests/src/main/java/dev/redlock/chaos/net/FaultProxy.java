/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process TCP proxy in front of one Redis node that injects network faults without root,
 * containers or network namespaces.
 *
 * <p>The proxy listens on {@code 127.0.0.1} on a free port and forwards every accepted connection
 * to {@code 127.0.0.1:<targetPort>}. Traffic never leaves the loopback interface. Faults can be
 * switched on and off at any time, from any thread:
 *
 * <ul>
 *   <li>{@link #latency(Duration)}: every chunk of bytes is held for at least the given delay after
 *       it arrives, in both directions, and chunks are always delivered in order;
 *   <li>{@link #freeze()} / {@link #unfreeze()}: connections stay open but nothing is delivered
 *       (what arrives is buffered, up to a cap per direction), like a partition that does not
 *       reset TCP connections;
 *   <li>{@link #dropConnections()}: every current connection is reset (RST) on both sides;
 *   <li>{@link #refuseConnections(boolean)}: new connections are refused, like a node that is down;
 *   <li>{@link #retarget(int)}: forward new connections to another port, e.g. after a node was
 *       restarted on a different port.
 * </ul>
 *
 * <p>Implementation: one thread per proxy (named {@code fault-proxy-<port>}) runs a
 * {@link Selector} loop over non-blocking channels. Control methods hand their work to that thread
 * and wait until it has been applied, so when a control method returns its effect is in place
 * (for instance, {@link #dropConnections()} has reset every connection). All instances are
 * thread-safe.
 *
 * <p>When either side of a connection closes (a half-close) or fails, the proxy first delivers the
 * bytes it already received from that side (subject to latency and freeze), then closes both sides
 * of that connection. Errors on a connection never stop the proxy.
 *
 * <p>Why a proxy of our own rather than Toxiproxy: Toxiproxy is a separate server, usually run in a container; this
 * one starts in-process in milliseconds with no container runtime, and its control calls return only once the fault
 * is in place, which the chaos schedules rely on to place faults exactly.
 */
public final class FaultProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);

    /** Prefix of the name of the thread every proxy runs; the port follows it. */
    static final String THREAD_PREFIX = "fault-proxy-";

    private static final InetAddress LOOPBACK = loopback();
    /** Size of the shared read buffer; also the largest chunk the proxy forwards at once. */
    private static final int READ_BUFFER_BYTES = 64 * 1024;
    /** Per direction: stop reading from the source while this much is waiting (freeze, latency). */
    private static final long MAX_BUFFERED_BYTES = 16L * 1024 * 1024;
    /** Longer latencies are capped to this. */
    private static final Duration MAX_LATENCY = Duration.ofDays(365);
    /** How long a control method waits for the proxy thread before it gives up. */
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(10);
    /** How long close() waits for the proxy thread to end. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Selector selector;
    private final int port;
    private final Thread thread;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong bytesForwarded = new AtomicLong();
    private final AtomicLong connectionErrors = new AtomicLong();

    /** Work handed to the proxy thread; guarded by itself, together with {@link #acceptingTasks}. */
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    private boolean acceptingTasks = true;

    // The fields below are owned by the proxy thread; the volatile ones are also read by getters.
    private ServerSocketChannel listener;
    /** Holds the port while connections are refused, so no other socket can take it meanwhile. */
    private SocketChannel placeholder;
    /** Fallback when the port cannot be held without a listener: accept, then reset at once. */
    private boolean resetOnAccept;

    private final Set<Link> links = new LinkedHashSet<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES);
    private volatile int targetPort;
    private volatile long latencyNanos;
    private volatile boolean frozen;
    private volatile boolean refusing;
    private volatile int openConnections;
    private volatile boolean running = true;
    private int nextLinkId;

    private FaultProxy(int targetPort, Selector selector, ServerSocketChannel listener, int port) {
        this.targetPort = targetPort;
        this.selector = selector;
        this.listener = listener;
        this.port = port;
        this.thread = new Thread(this::run, THREAD_PREFIX + port);
        // Daemon: a test that forgets close() must not keep the JVM alive.
        this.thread.setDaemon(true);
    }

    /**
     * Starts a proxy listening on {@code 127.0.0.1} on a free port, forwarding to
     * {@code 127.0.0.1:targetPort}. The target does not have to be listening yet: a connection
     * whose target cannot be reached is closed.
     *
     * @param targetPort the port of the Redis node on {@code 127.0.0.1}
     * @return a running proxy with no faults; the caller must {@link #close()} it
     * @throws IllegalArgumentException if {@code targetPort} is not a valid TCP port
     * @throws IllegalStateException if the listening socket cannot be opened
     */
    public static FaultProxy start(int targetPort) {
        checkPort(targetPort);
        Selector selector = null;
        ServerSocketChannel listener = null;
        try {
            selector = Selector.open();
            listener = openListener(0);
            int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
            listener.register(selector, SelectionKey.OP_ACCEPT);
            FaultProxy proxy = new FaultProxy(targetPort, selector, listener, port);
            proxy.thread.start();
            LOG.debug("Fault proxy 127.0.0.1:{} -> 127.0.0.1:{} started", port, targetPort);
            return proxy;
        } catch (IOException | RuntimeException e) {
            closeQuietly(listener, "listener of a proxy that failed to start");
            closeQuietly(selector, "selector of a proxy that failed to start");
            throw new IllegalStateException("Cannot start a fault proxy to 127.0.0.1:" + targetPort, e);
        }
    }

    /**
     * Returns the port the proxy listens on; it stays the same for the life of the proxy, also
     * while connections are refused.
     *
     * @return the proxy's TCP port on {@code 127.0.0.1}
     */
    public int port() {
        return port;
    }

    /**
     * Returns a Redis URI that reaches the target node through this proxy.
     *
     * @return {@code "redis://127.0.0.1:" + port()}
     */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /**
     * Forwards new connections to another port on {@code 127.0.0.1} and drops every current
     * connection (they lead to the old target), e.g. after the node was restarted on another port.
     *
     * @param targetPort the new target port
     * @throws IllegalArgumentException if {@code targetPort} is not a valid TCP port
     * @throws IllegalStateException if the proxy is closed
     */
    public void retarget(int targetPort) {
        checkPort(targetPort);
        onProxyThread(() -> {
            this.targetPort = targetPort;
            closeAllLinks("retarget to port " + targetPort);
        });
    }

    /**
     * Sets the delay added to every chunk of bytes, in both directions. A chunk is delivered once
     * it has been held for at least the current delay, so the setting also applies to bytes that
     * are already waiting (lowering it releases them sooner). Order is always preserved.
     *
     * @param perDirection the one-way delay; {@link Duration#ZERO} for none (capped at a year)
     * @throws IllegalArgumentException if the delay is negative
     * @throws IllegalStateException if the proxy is closed
     */
    public void latency(Duration perDirection) {
        Objects.requireNonNull(perDirection, "perDirection");
        if (perDirection.isNegative()) {
            throw new IllegalArgumentException("Negative latency: " + perDirection);
        }
        long nanos = saturatedNanos(perDirection);
        onProxyThread(() -> latencyNanos = nanos);
    }

    /**
     * Freezes every connection: they stay open but deliver nothing in either direction. What
     * arrives meanwhile is buffered (up to 16 MiB per direction, then the proxy stops reading that
     * side, as TCP flow control would). New connections are still accepted, and are frozen too.
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void freeze() {
        onProxyThread(() -> frozen = true);
    }

    /**
     * Ends a {@link #freeze()}: buffered bytes are delivered in order (still subject to
     * {@link #latency(Duration)}) and forwarding resumes. Does nothing if not frozen.
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void unfreeze() {
        onProxyThread(() -> frozen = false);
    }

    /**
     * Resets every current connection on both sides (TCP RST, buffered bytes are discarded). New
     * connections are still accepted.
     *
     * @throws IllegalStateException if the proxy is closed
     */
    public void dropConnections() {
        onProxyThread(() -> closeAllLinks("dropConnections"));
    }

    /**
     * Switches connection refusal on or off. While on, every current connection is dropped and
     * new connection attempts are refused (the listening socket is closed, while the port stays
     * reserved for this proxy); should the port not be reservable, new connections are accepted
     * and reset at once instead. Either way a client fails fast. Turning it off listens again on
     * the same port.
     *
     * @param refuse {@code true} to refuse connections, {@code false} to accept them again
     * @throws IllegalStateException if the proxy is closed, or the port cannot be listened on again
     */
    public void refuseConnections(boolean refuse) {
        onProxyThread(() -> applyRefuse(refuse));
    }

    /**
     * Removes every fault: latency zero, unfrozen, connections accepted. Connections that were
     * dropped stay dropped, and the target set by {@link #retarget(int)} is kept.
     *
     * @throws IllegalStateException if the proxy is closed, or the port cannot be listened on again
     */
    public void heal() {
        onProxyThread(() -> {
            latencyNanos = 0;
            frozen = false;
            applyRefuse(false);
        });
    }

    /**
     * Returns the number of client connections the proxy currently holds open.
     *
     * @return open connections; 0 once the proxy is closed
     */
    public int openConnections() {
        return openConnections;
    }

    /**
     * Returns the total number of bytes delivered so far, in both directions, over all connections.
     *
     * @return bytes written to clients and to the target
     */
    public long bytesForwarded() {
        return bytesForwarded.get();
    }

    /**
     * Stops the proxy: closes every connection, the listening socket and the proxy thread, and
     * waits (at most 10 s) for that thread to end. Idempotent.
     *
     * @throws IllegalStateException if the proxy thread does not end in time, or the caller is
     *     interrupted while waiting for it (the interrupt flag is then set again)
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            running = false;
            selector.wakeup();
        }
        // Join even on a repeated call: the thread may have ended the loop on its own (error).
        if (Thread.currentThread() == thread) {
            return; // Cannot join itself; the loop ends as soon as the current iteration does.
        }
        try {
            thread.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while closing " + this, e);
        }
        if (thread.isAlive()) {
            throw new IllegalStateException(thread.getName() + " did not stop within " + CLOSE_TIMEOUT);
        }
    }

    /**
     * Describes this proxy for logs and assertion messages.
     *
     * @return e.g. {@code FaultProxy[127.0.0.1:40001 -> 6379, 2 connections, frozen]}
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("FaultProxy[127.0.0.1:")
                .append(port)
                .append(" -> ")
                .append(targetPort)
                .append(", ")
                .append(openConnections)
                .append(" connections");
        if (closed.get()) {
            sb.append(", closed");
        }
        if (latencyNanos > 0) {
            sb.append(", latency ").append(Duration.ofNanos(latencyNanos));
        }
        if (frozen) {
            sb.append(", frozen");
        }
        if (refusing) {
            sb.append(", refusing");
        }
        return sb.append(']').toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Control: hand work to the proxy thread and wait for it.
    // ---------------------------------------------------------------------------------------------

    /** Runs {@code action} on the proxy thread and waits until it has been applied. */
    private void onProxyThread(Runnable action) {
        call(() -> {
            action.run();
            return null;
        });
    }

    private <T> T call(Supplier<T> action) {
        if (Thread.currentThread() == thread) {
            return action.get(); // Already on the proxy thread; queueing would wait for ourselves.
        }
        CompletableFuture<T> done = new CompletableFuture<>();
        synchronized (tasks) {
            // Checked under the lock so a task is never queued after the loop has drained the queue.
            if (!acceptingTasks || closed.get()) {
                throw new IllegalStateException(this + " is closed");
            }
            tasks.add(() -> {
                try {
                    done.complete(action.get());
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
        }
        selector.wakeup();
        try {
            return done.get(CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException(cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException(thread.getName() + " did not respond within " + CONTROL_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + thread.getName(), e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The selector loop (proxy thread only from here on).
    // ---------------------------------------------------------------------------------------------

    private void run() {
        try {
            long nextDeadline = Long.MAX_VALUE;
            while (running) {
                // Never busy-spin: block until I/O, a wakeup (control call, close) or the next chunk is
                // due. select(0) would mean "forever", hence the minimum of 1 ms.
                if (nextDeadline == Long.MAX_VALUE) {
                    selector.select();
                } else {
                    long waitNanos = nextDeadline - System.nanoTime();
                    if (waitNanos <= 0) {
                        selector.selectNow();
                    } else {
                        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999)));
                    }
                }
                runTasks();
                if (!running) {
                    break;
                }
                handleSelectedKeys();
                nextDeadline = pumpAll();
            }
        } catch (IOException | RuntimeException e) {
            // Only a broken selector gets here; per-connection errors are handled per connection.
            LOG.error("{} stopped on an unexpected error", thread.getName(), e);
        } catch (Error e) {
            // E.g. NoClassDefFoundError when target/classes is rebuilt under a running test JVM.
            LOG.error("{} stopped on an error", thread.getName(), e);
            throw e;
        } finally {
            shutdown();
        }
    }

    private void runTasks() {
        while (true) {
            Runnable task;
            synchronized (tasks) {
                task = tasks.poll();
            }
            if (task == null) {
                return;
            }
            task.run();
        }
    }

    private void handleSelectedKeys() {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            if (!key.isValid()) {
                continue; // Closed by an earlier event or task in this iteration.
            }
            Object attachment = key.attachment();
            if (attachment == null) {
                accept();
            } else {
                Link link = (Link) attachment;
                try {
                    link.handle(key);
                } catch (IOException | RuntimeException e) {
                    connectionErrors.incrementAndGet();
                    LOG.debug("{}: connection {} failed, closing both sides", thread.getName(), link.id, e);
                    link.close(true);
                }
            }
        }
    }

    private void accept() {
        while (true) {
            SocketChannel client;
            try {
                ServerSocketChannel l = listener;
                client = l == null ? null : l.accept();
            } catch (IOException e) {
                // E.g. too many open files: the proxy itself must survive; the client is not accepted.
                connectionErrors.incrementAndGet();
                LOG.debug("{}: accept failed", thread.getName(), e);
                return;
            }
            if (client == null) {
                return;
            }
            if (refusing) {
                abort(client, "connection accepted while refusing");
                continue;
            }
            Link link = new Link(nextLinkId++, client);
            try {
                link.open();
                links.add(link);
                openConnections = links.size();
            } catch (IOException | RuntimeException e) {
                connectionErrors.incrementAndGet();
                LOG.debug("{}: cannot open connection {} to port {}", thread.getName(), link.id, targetPort, e);
                link.close(true);
            }
        }
    }

    /** Delivers whatever is due on every connection; returns the next time something is due. */
    private long pumpAll() {
        long now = System.nanoTime();
        long next = Long.MAX_VALUE;
        // Copy: pumping may close (and so remove) links.
        for (Link link : new ArrayList<>(links)) {
            try {
                next = Math.min(next, link.pump(now));
            } catch (IOException | RuntimeException e) {
                connectionErrors.incrementAndGet();
                LOG.debug("{}: connection {} failed while writing, closing both sides", thread.getName(), link.id, e);
                link.close(true);
            }
        }
        return next;
    }

    private void closeAllLinks(String why) {
        if (!links.isEmpty()) {
            LOG.debug("{}: dropping {} connections ({})", thread.getName(), links.size(), why);
        }
        for (Link link : new ArrayList<>(links)) {
            link.close(true);
        }
        flushClosedChannels();
    }

    /**
     * A registered channel is only really closed when its key is deregistered by the next select;
     * do it now so the reset has been sent when the control method returns.
     */
    private void flushClosedChannels() {
        try {
            selector.selectNow();
        } catch (IOException e) {
            LOG.debug("{}: selectNow failed", thread.getName(), e);
        }
    }

    private void applyRefuse(boolean refuse) {
        if (refuse) {
            refusing = true;
            closeAllLinks("refusing connections");
            if (listener != null && !resetOnAccept) {
                stopListening();
            }
        } else if (refusing) {
            refusing = false;
            resetOnAccept = false;
            if (listener == null) {
                closeQuietly(placeholder, "port placeholder");
                placeholder = null;
                listen();
            }
        }
    }

    /** Closes the listener (connects are then refused) and keeps the port with a bound socket. */
    private void stopListening() {
        SelectionKey key = listener.keyFor(selector);
        if (key != null) {
            key.cancel();
            flushClosedChannels(); // Deregister first, so close() below releases the socket at once.
        }
        closeQuietly(listener, "listener");
        listener = null;
        try {
            // A bound socket that does not listen: the kernel answers SYNs with RST (connection
            // refused) and no one else can bind the port until we listen on it again.
            SocketChannel holder = SocketChannel.open();
            try {
                holder.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                holder.bind(new InetSocketAddress(LOOPBACK, port));
            } catch (IOException | RuntimeException e) {
                closeQuietly(holder, "port placeholder that could not bind");
                throw e;
            }
            placeholder = holder;
        } catch (IOException | RuntimeException e) {
            // Could not reserve the port: listen again and reset every connection at accept instead.
            connectionErrors.incrementAndGet();
            LOG.debug(
                    "{}: cannot reserve port {} without listening; resetting at accept instead",
                    thread.getName(),
                    port,
                    e);
            resetOnAccept = true;
            listen();
        }
    }

    private void listen() {
        try {
            ServerSocketChannel l = openListener(port);
            l.register(selector, SelectionKey.OP_ACCEPT);
            listener = l;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot listen on 127.0.0.1:" + port + " again", e);
        }
    }

    private void shutdown() {
        running = false;
        List<Runnable> pending;
        synchronized (tasks) {
            acceptingTasks = false;
            pending = new ArrayList<>(tasks);
            tasks.clear();
        }
        // Control calls that raced with close(): let them fail rather than wait for a timeout.
        for (Runnable task : pending) {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.debug("{}: control task failed during shutdown", thread.getName(), e);
            }
        }
        for (Link link : new ArrayList<>(links)) {
            link.close(true);
        }
        closeQuietly(listener, "listener");
        listener = null;
        closeQuietly(placeholder, "port placeholder");
        placeholder = null;
        try {
            selector.close(); // Also deregisters and closes what is left.
        } catch (IOException | ClosedSelectorException e) {
            LOG.debug("{}: closing the selector failed", thread.getName(), e);
        }
        openConnections = 0;
        closed.set(true);
        LOG.debug(
                "{} stopped ({} bytes forwarded, {} connection errors)",
                thread.getName(),
                bytesForwarded.get(),
                connectionErrors.get());
    }

    // ---------------------------------------------------------------------------------------------
    // One proxied connection: the client side, the target side and a queue per direction.
    // ---------------------------------------------------------------------------------------------

    /** Bytes read from one side, waiting to be written to the other; no data means end of stream. */
    private static final class Chunk {
        final ByteBuffer data;
        final long arrivedAt;

        Chunk(ByteBuffer data, long arrivedAt) {
            this.data = data;
            this.arrivedAt = arrivedAt;
        }
    }

    /** One direction of a connection: a FIFO queue, so order survives latency and freezes. */
    private static final class Direction {
        final ArrayDeque<Chunk> queue = new ArrayDeque<>();
        long queuedBytes;
        /** The source sent EOF (queued as a chunk without data); stop reading it. */
        boolean sourceEof;
        /** The queued EOF is due: close the connection. */
        boolean eofDelivered;
        /** The destination's send buffer is full: wait for OP_WRITE before writing again. */
        boolean awaitingWritable;

        boolean wantsRead() {
            return !sourceEof && queuedBytes < MAX_BUFFERED_BYTES;
        }
    }

    private final class Link {
        final int id;
        final SocketChannel client;
        SocketChannel server;
        SelectionKey clientKey;
        SelectionKey serverKey;
        boolean serverConnected;
        boolean closed;
        final Direction up = new Direction(); // client -> server
        final Direction down = new Direction(); // server -> client

        Link(int id, SocketChannel client) {
            this.id = id;
            this.client = client;
        }

        void open() throws IOException {
            client.configureBlocking(false);
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            clientKey = client.register(selector, 0, this);
            server = SocketChannel.open();
            server.configureBlocking(false);
            server.setOption(StandardSocketOptions.TCP_NODELAY, true);
            serverKey = server.register(selector, 0, this);
            // Loopback only, by construction: the target host is never configurable.
            serverConnected = server.connect(new InetSocketAddress(LOOPBACK, targetPort));
            updateInterest();
        }

        void handle(SelectionKey key) throws IOException {
            if (key == serverKey && key.isConnectable()) {
                serverConnected = server.finishConnect();
            }
            if (key.isValid() && key.isReadable()) {
                if (key == clientKey) {
                    read(client, up);
                } else {
                    read(server, down);
                }
            }
            if (key.isValid() && key.isWritable()) {
                // The destination has room again; pumpAll() will write what is due.
                (key == clientKey ? down : up).awaitingWritable = false;
            }
            if (!closed) {
                updateInterest();
            }
        }

        private void read(SocketChannel source, Direction dir) throws IOException {
            readBuffer.clear();
            int n = source.read(readBuffer);
            if (n < 0) {
                // Half-close: nothing more will come from this side. Queue the end of stream like data,
                // so it is delayed and frozen like the bytes before it; delivering it closes both sides.
                dir.sourceEof = true;
                dir.queue.add(new Chunk(null, System.nanoTime()));
                return;
            }
            if (n == 0) {
                return;
            }
            readBuffer.flip();
            ByteBuffer copy = ByteBuffer.allocate(n);
            copy.put(readBuffer).flip();
            dir.queue.add(new Chunk(copy, System.nanoTime()));
            dir.queuedBytes += n;
        }

        /** Writes what is due in both directions; returns when the next chunk becomes due. */
        long pump(long now) throws IOException {
            long next = Math.min(pump(up, server, serverConnected, now), pump(down, client, true, now));
            if (closed) {
                return Long.MAX_VALUE;
            }
            // A side that closed and whose bytes have all been delivered ends the connection.
            if (up.eofDelivered || down.eofDelivered) {
                close(false);
                return Long.MAX_VALUE;
            }
            updateInterest();
            return next;
        }

        private long pump(Direction dir, SocketChannel dest, boolean destReady, long now) throws IOException {
            if (frozen || !destReady || dir.awaitingWritable) {
                return Long.MAX_VALUE; // unfreeze(), OP_CONNECT or OP_WRITE wakes the selector.
            }
            long latency = latencyNanos;
            Chunk head;
            while ((head = dir.queue.peek()) != null) {
                long due = head.arrivedAt + latency;
                if (due - now > 0) {
                    return due; // Head-of-line: later chunks wait behind it, which preserves order.
                }
                if (head.data == null) {
                    dir.queue.poll();
                    dir.eofDelivered = true;
                    return Long.MAX_VALUE;
                }
                int written = dest.write(head.data);
                bytesForwarded.addAndGet(written);
                dir.queuedBytes -= written;
                if (head.data.hasRemaining()) {
                    dir.awaitingWritable = true;
                    return Long.MAX_VALUE;
                }
                dir.queue.poll();
            }
            return Long.MAX_VALUE;
        }

        void updateInterest() {
            if (closed) {
                return;
            }
            int clientOps =
                    (up.wantsRead() ? SelectionKey.OP_READ : 0) | (down.awaitingWritable ? SelectionKey.OP_WRITE : 0);
            int serverOps;
            if (!serverConnected) {
                serverOps = SelectionKey.OP_CONNECT;
            } else {
                serverOps = (down.wantsRead() ? SelectionKey.OP_READ : 0)
                        | (up.awaitingWritable ? SelectionKey.OP_WRITE : 0);
            }
            if (clientKey.interestOps() != clientOps) {
                clientKey.interestOps(clientOps);
            }
            if (serverKey.interestOps() != serverOps) {
                serverKey.interestOps(serverOps);
            }
        }

        /** Closes both sides; {@code abort} resets them (RST) instead of a normal FIN. */
        void close(boolean abort) {
            if (closed) {
                return;
            }
            closed = true;
            if (links.remove(this)) {
                openConnections = links.size();
            }
            up.queue.clear();
            down.queue.clear();
            if (abort) {
                abort(client, "client side of connection " + id);
                abort(server, "target side of connection " + id);
            } else {
                closeQuietly(client, "client side of connection " + id);
                closeQuietly(server, "target side of connection " + id);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Helpers.
    // ---------------------------------------------------------------------------------------------

    private static ServerSocketChannel openListener(int port) throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open();
        try {
            l.configureBlocking(false);
            // The same port is listened on again after refuseConnections(false), despite TIME_WAITs.
            l.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            l.bind(new InetSocketAddress(LOOPBACK, port));
            return l;
        } catch (IOException | RuntimeException e) {
            closeQuietly(l, "listener that could not bind");
            throw e;
        }
    }

    /** Closes with SO_LINGER 0, so the peer gets a reset rather than an orderly end of stream. */
    private static void abort(SocketChannel channel, String what) {
        if (channel == null) {
            return;
        }
        try {
            if (channel.isOpen()) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
        } catch (IOException | RuntimeException e) {
            // Not connected yet or already reset: a plain close is all that is left to do.
            LOG.debug("Cannot set SO_LINGER 0 on {}", what, e);
        }
        closeQuietly(channel, what);
    }

    private static void closeQuietly(AutoCloseable closeable, String what) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing is best effort: the socket is gone either way, and the proxy must go on.
            LOG.debug("Error closing {}", what, e);
        }
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Not a TCP port: " + port);
        }
    }

    private static long saturatedNanos(Duration d) {
        // A year is as good as "never", and keeps the deadline arithmetic far from overflow.
        return d.compareTo(MAX_LATENCY) > 0 ? MAX_LATENCY.toNanos() : d.toNanos();
    }

    private static InetAddress loopback() {
        try {
            // Not InetAddress.getLoopbackAddress(): that may be ::1 when IPv6 is preferred.
            return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
