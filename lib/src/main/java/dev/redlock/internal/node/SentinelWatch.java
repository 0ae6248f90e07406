/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which server is a Sentinel-managed node's master now. One thread per such node asks its sentinels
 * ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}) at start, whenever a sentinel announces {@code +switch-master}, and once a
 * second in any case. An address counts once a majority of the configured sentinels name it; when it changes, the
 * node's connections drop the old master and reconnect.
 *
 * <p>Safety does not rest on following them quickly:
 * <ul>
 *   <li>a failover is data loss for the node (the promoted replica may lack the latest writes, and it is another
 *       server process), so restart protection keeps its votes out for a lease plus {@link #staleLimitNanos()} after
 *       it;</li>
 *   <li>a vote counts only while a majority of the sentinels named its server as master within
 *       {@link #staleLimitNanos()} ({@link #unconfirmed}): a client cut off from the sentinels stops counting the old
 *       master's votes within that time, which is the extra quarantine every other client adds after a failover;</li>
 *   <li>a server that says it is a replica never votes, however it was reached.</li>
 * </ul>
 * Thread-safe; {@link #close()} stops the thread and closes its connections.
 */
public final class SentinelWatch implements MasterWatch, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SentinelWatch.class);
    /** How often the sentinels are asked without a {@code +switch-master} message. */
    static final long POLL_MILLIS = 1000;
    /** How long to wait before trying again after no sentinel answered. */
    private static final long RETRY_MILLIS = 200;
    /** A sentinel that failed is asked again after this long, unless the others cannot form a majority without it. */
    private static final long FAILED_SENTINEL_PAUSE_MILLIS = 5_000;

    private final NodeSpec spec;
    private final RedlockConfig config;
    private final Thread thread;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CompletableFuture<Void> firstAnswer = new CompletableFuture<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final dev.redlock.Ticker ticker;
    private final long staleLimitNanos;
    /** One query connection per sentinel (watch thread; volatile entries so close() can break a read). */
    private final java.util.concurrent.atomic.AtomicReferenceArray<BlockingConnection> queries;
    /** When each sentinel that failed may be asked again (System.nanoTime), or 0. Watch thread only. */
    private final long[] pausedUntil;

    /** The master the sentinels named last (kept when no sentinel answers), or null before any answer. */
    private volatile NodeSpec current;
    /** Why the last attempt to ask the sentinels failed, or null after an answer. */
    private volatile String problem;
    /** When a majority of the sentinels last named {@link #current} as master, on the ticker. */
    private volatile long confirmedAtNanos = Long.MIN_VALUE;
    /** A connection found a replica where the master should be: ask again at the next wake-up. */
    private volatile boolean askAgain;
    // The watch thread's subscription; volatile so that close() can break a blocked read.
    private volatile BlockingConnection subscription;

    /**
     * @param spec a Sentinel-managed node ({@link NodeSpec#isSentinelManaged()})
     * @param threadName the watch thread's name
     */
    public SentinelWatch(NodeSpec spec, RedlockConfig config, String threadName) {
        if (!spec.isSentinelManaged()) {
            throw new IllegalArgumentException(spec.name() + " is not a Sentinel-managed node");
        }
        this.spec = spec;
        this.config = config;
        this.ticker = config.ticker();
        // A poll, plus one sentinel that does not answer its connect and read, plus a poll's slack.
        this.staleLimitNanos = TimeUnit.MILLISECONDS.toNanos(2 * POLL_MILLIS)
                + 2 * config.connectTimeout().toNanos();
        this.queries = new java.util.concurrent.atomic.AtomicReferenceArray<>(
                spec.sentinels().size());
        this.pausedUntil = new long[spec.sentinels().size()];
        this.thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
    }

    /** Starts asking the sentinels, in the background. */
    @Override
    public void start() {
        thread.start();
    }

    /** The master as last named by the sentinels, or null if none answered yet. */
    @Override
    public NodeSpec current() {
        return current;
    }

    /** Why no sentinel answered the last time they were asked, or null. */
    public String problem() {
        return problem;
    }

    /** Completes after the first attempt to ask the sentinels, answered or not. */
    @Override
    public CompletableFuture<Void> firstAnswer() {
        return firstAnswer;
    }

    /** Runs {@code listener} (on the watch thread; it must not block) whenever the sentinels name another master. */
    @Override
    public void onChange(Runnable listener) {
        listeners.add(listener);
    }

    /** Asks the sentinels again at the next wake-up (within a second): the node's server turned out a replica. */
    @Override
    public void askAgain() {
        askAgain = true;
    }

    /**
     * How long after a majority of the sentinels last named a server as master its votes still count; also what every
     * client adds to the quarantine after a failover.
     */
    @Override
    public long staleLimitNanos() {
        return staleLimitNanos;
    }

    /**
     * Why a vote of the server at {@code target} must not count now: the sentinels name another master, or no majority
     * of them confirmed it within {@link #staleLimitNanos()}; null if it counts.
     */
    @Override
    public String unconfirmed(NodeSpec target) {
        NodeSpec master = current;
        if (master == null || !sameAddress(master, target)) {
            return "the sentinels no longer name " + target.host() + ":" + target.port() + " as its master";
        }
        long age = ticker.nanoTime() - confirmedAtNanos;
        if (confirmedAtNanos == Long.MIN_VALUE || age > staleLimitNanos) {
            return "no majority of its sentinels confirmed " + target.host() + ":" + target.port() + " as master in "
                    + "the last " + TimeUnit.NANOSECONDS.toMillis(staleLimitNanos) + " ms"
                    + (problem == null ? "" : " (" + problem + ")");
        }
        return null;
    }

    @Override
    public long extraQuarantineNanos() {
        return staleLimitNanos;
    }

    private static boolean sameAddress(NodeSpec a, NodeSpec b) {
        return MasterWatch.sameAddress(a, b);
    }

    /** Why a connection cannot be made now: no sentinel has named the master yet. */
    @Override
    public String noMasterYet() {
        String why = problem;
        return "no sentinel has named the master '" + spec.masterName() + "' of node " + spec.name() + " yet"
                + (why == null ? "" : ": " + why);
    }

    private void run() {
        long failures = 0;
        while (stop.getCount() > 0) {
            askAgain = false;
            try {
                update(ask());
                failures = 0;
            } catch (RuntimeException e) {
                problem = e.getMessage();
                if (failures++ == 0) {
                    LOG.warn("node {}: {}", spec.name(), e.getMessage());
                }
            }
            firstAnswer.complete(null);
            if (current == null || problem != null) {
                // Nothing to listen to yet: try again soon.
                await(RETRY_MILLIS);
                continue;
            }
            listen();
        }
        // close() may have raced a connection opened just before the loop saw it: close everything again.
        closeQuietly(subscription);
        for (int i = 0; i < queries.length(); i++) {
            closeQuietly(queries.get(i));
        }
    }

    /** Waits for a {@code +switch-master} message (or any other), at most {@link #POLL_MILLIS}. */
    private void listen() {
        try {
            BlockingConnection s = subscription;
            if (s == null) {
                s = subscribe();
                subscription = s;
            }
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS);
            while (!askAgain && stop.getCount() > 0 && System.nanoTime() - until < 0) {
                Object message = s.next();
                if (message instanceof List && isSwitchOfOurMaster((List<?>) message)) {
                    LOG.info("node {}: a sentinel announced a failover of '{}'", spec.name(), spec.masterName());
                    return;
                }
            }
        } catch (RuntimeException e) {
            // The sentinel went away: the next ask tries the others, and a new subscription follows.
            closeQuietly(subscription);
            subscription = null;
            await(RETRY_MILLIS);
        }
    }

    private boolean isSwitchOfOurMaster(List<?> message) {
        // ["message", "+switch-master", "<name> <old-ip> <old-port> <new-ip> <new-port>"]
        if (message.size() != 3 || !(message.get(2) instanceof byte[])) {
            return false;
        }
        String text = new String((byte[]) message.get(2), java.nio.charset.StandardCharsets.UTF_8);
        return text.startsWith(spec.masterName() + " ");
    }

    private BlockingConnection subscribe() {
        RuntimeException last = null;
        for (NodeSpec sentinel : spec.sentinels()) {
            BlockingConnection c = null;
            try {
                c = connect(sentinel, Duration.ofMillis(POLL_MILLIS));
                Object ok = command(c, sentinel, "SUBSCRIBE", "+switch-master");
                if (!(ok instanceof List)) {
                    throw new IllegalStateException("sentinel " + sentinel.name() + " refused SUBSCRIBE: " + ok);
                }
                return c;
            } catch (RuntimeException e) {
                closeQuietly(c);
                last = e;
            }
        }
        throw last != null ? last : new IllegalStateException("no sentinel");
    }

    /**
     * Asks the sentinels in turn until a majority of those configured name the same master, keeping a connection to
     * each; a sentinel that failed sits out a while, unless the others cannot form a majority without it.
     *
     * @return the master a majority names, on the ticker's time of that answer
     * @throws IllegalStateException if no majority agrees, with what each sentinel said
     */
    private NodeSpec ask() {
        List<NodeSpec> sentinels = spec.sentinels();
        int majority = sentinels.size() / 2 + 1;
        java.util.Map<String, Integer> votes = new java.util.HashMap<>();
        java.util.Map<String, NodeSpec> named = new java.util.HashMap<>();
        StringBuilder why = new StringBuilder();
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < sentinels.size(); i++) {
                long now = System.nanoTime();
                boolean paused = pausedUntil[i] != 0 && now - pausedUntil[i] < 0;
                if (paused == (pass == 0) || stop.getCount() == 0) {
                    continue; // first pass: the healthy ones; second pass: the paused ones, if still needed
                }
                NodeSpec sentinel = sentinels.get(i);
                BlockingConnection c = queries.get(i);
                try {
                    if (c == null) {
                        c = connect(sentinel, config.connectTimeout());
                        queries.set(i, c);
                    }
                    NodeSpec master = addressFrom(c, sentinel);
                    pausedUntil[i] = 0;
                    String address = master.host() + ":" + master.port();
                    named.putIfAbsent(address, master);
                    if (votes.merge(address, 1, Integer::sum) >= majority) {
                        confirmedAtNanos = ticker.nanoTime();
                        return named.get(address);
                    }
                } catch (RuntimeException e) {
                    closeQuietly(c);
                    queries.set(i, null);
                    pausedUntil[i] = now + TimeUnit.MILLISECONDS.toNanos(FAILED_SENTINEL_PAUSE_MILLIS);
                    why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
                }
            }
        }
        throw new IllegalStateException("no majority (" + majority + " of " + sentinels.size() + ") of the sentinels"
                + " named the same master for '" + spec.masterName() + "'"
                + (votes.isEmpty() ? "" : "; answers: " + votes)
                + (why.length() == 0 ? "" : " (" + why + ")"));
    }

    private void update(NodeSpec master) {
        problem = null;
        NodeSpec before = current;
        if (before != null && sameAddress(before, master)) {
            return;
        }
        current = master;
        if (before == null) {
            LOG.debug("node {}: master at {}:{}", spec.name(), master.host(), master.port());
        } else {
            LOG.warn(
                    "node {}: the sentinels name a new master, {}:{} (was {}:{}); reconnecting to it",
                    spec.name(),
                    master.host(),
                    master.port(),
                    before.host(),
                    before.port());
        }
        // Also the first answer: connections that failed for the lack of one reconnect now, not after a back-off.
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.error("node {}: a listener of master changes failed", spec.name(), e);
            }
        }
    }

    /**
     * Asks the sentinels once, in the caller's thread, taking the first answer (for the short-lived connections of
     * checks and repairs, off the hot path: what they read is not a vote).
     *
     * @return the node at the master's address
     * @throws UncheckedIOException naming the node and why each sentinel gave no answer
     */
    public static NodeSpec resolve(NodeSpec spec, RedlockConfig config) {
        StringBuilder why = new StringBuilder();
        for (NodeSpec sentinel : spec.sentinels()) {
            try (BlockingConnection c = connect(sentinel, config, config.connectTimeout())) {
                return addressFrom(c, sentinel, spec);
            } catch (RuntimeException e) {
                why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
            }
        }
        throw new UncheckedIOException(
                spec.name() + ": no sentinel named the master '" + spec.masterName() + "' (" + why + ")",
                new java.io.IOException(why.toString()));
    }

    private BlockingConnection connect(NodeSpec sentinel, Duration readTimeout) {
        return connect(sentinel, config, readTimeout);
    }

    private static BlockingConnection connect(NodeSpec sentinel, RedlockConfig config, Duration readTimeout) {
        try {
            return BlockingConnection.open(sentinel, config, readTimeout, false);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("sentinel " + e.getMessage(), e);
        }
    }

    private NodeSpec addressFrom(BlockingConnection c, NodeSpec sentinel) {
        return addressFrom(c, sentinel, spec);
    }

    private static NodeSpec addressFrom(BlockingConnection c, NodeSpec sentinel, NodeSpec spec) {
        Object reply = command(c, sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", spec.masterName());
        if (reply == null) {
            throw new IllegalStateException(
                    "sentinel " + sentinel.name() + " monitors no master named '" + spec.masterName() + "'");
        }
        if (!(reply instanceof List) || ((List<?>) reply).size() != 2) {
            throw new IllegalStateException("sentinel " + sentinel.name() + " gave an unexpected answer");
        }
        List<?> pair = (List<?>) reply;
        String host = text(pair.get(0));
        String port = text(pair.get(1));
        try {
            int p = Integer.parseInt(port);
            if (host.isEmpty() || p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return spec.at(host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host, p);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(
                    "sentinel " + sentinel.name() + " named an address that is not host and port", e);
        }
    }

    /** Sends a command to a sentinel; one that requires a password gets the node's credentials first. */
    private static Object command(BlockingConnection c, NodeSpec sentinel, String... args) {
        try {
            return c.call(args);
        } catch (RedisErrorReply e) {
            if (!e.getMessage().startsWith("NOAUTH") || sentinel.password() == null) {
                throw new IllegalStateException(
                        "sentinel " + sentinel.name() + " refused " + args[0] + ": " + e.getMessage(), e);
            }
        }
        try {
            c.call(sentinel.authCommand());
            return c.call(args);
        } catch (RedisErrorReply e) {
            throw new IllegalStateException(
                    "sentinel " + sentinel.name() + " refused the node's credentials: " + e.getMessage(), e);
        }
    }

    private static String text(Object o) {
        return o instanceof byte[] ? new String((byte[]) o, java.nio.charset.StandardCharsets.UTF_8) : "";
    }

    private void await(long millis) {
        try {
            stop.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop.countDown();
        }
    }

    private static void closeQuietly(BlockingConnection c) {
        if (c != null) {
            c.close();
        }
    }

    /** Stops the watch thread and closes its connections; waits for the thread at most a second. */
    @Override
    public void close() {
        stop.countDown();
        closeQuietly(subscription);
        for (int i = 0; i < queries.length(); i++) {
            closeQuietly(queries.get(i));
        }
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        firstAnswer.complete(null);
    }
}
