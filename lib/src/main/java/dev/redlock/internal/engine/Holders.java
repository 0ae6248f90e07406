/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.internal.node.NodeOp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * This client's entry on every node: who it is (host, process id, client name) and, for each of its leases held for
 * about a second or more, the thread that asked and since when. An inspection of a lock finds the entry through the
 * holder's token (its second half is the client's id) and shows it, so an operator can tell which process holds a
 * lock that will not free.
 *
 * <p>Off the lock's path on purpose: nothing is written when a lease starts or ends. Once a second a timer compares
 * the leases held for a second or more with those last written, and writes the entry again only when they changed,
 * or every {@link #REFRESH_NANOS} (the entry lives {@link #TTL_MILLIS}, so a client that died leaves it for at most
 * that long). A short lease is shown with its client but without thread or start. Thread-safe: the timer runs on the
 * client's scheduler, one tick at a time.
 */
public final class Holders extends EnginePart {

    /** How often the leases held are looked at. */
    static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How old a lease must be to be written: shorter ones would cost a write each and be gone when read. */
    static final long MIN_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How often the entry is written when nothing changed. */
    static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long an entry lives without being written again. */
    static final long TTL_MILLIS = 30_000;
    /** At most this many leases are named in one entry (the oldest first), which bounds the write. */
    static final int MAX_LEASES = 1_000;

    private final String entryPrefix;
    private final String key;
    private String identity; // set by the first tick, on the scheduler: finding the host name may take a while
    private String written; // the last fields written; guarded by this
    private long writtenAt;
    private ScheduledFuture<?> timer;
    private boolean stopped;

    Holders(QuorumEngine engine) {
        super(engine);
        this.entryPrefix = config.keyPrefix() + "client:";
        this.key = entryPrefix + engine.clientId;
    }

    /** The key prefix of clients' entries, which inspections read. */
    public String entryPrefix() {
        return entryPrefix;
    }

    /** Writes the entry now, then keeps it current until {@link #stop()}. */
    public synchronized void start() {
        if (timer == null && !stopped) {
            timer = engine.schedule(this::tick, 0);
        }
    }

    /**
     * Stops the timer and deletes the entry on every node, waiting at most one per-node timeout for the nodes to
     * answer (a node that does not keeps the entry until it expires).
     */
    public void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            if (timer != null) {
                timer.cancel(false);
            }
            if (written == null) {
                return;
            }
        }
        try {
            write("", 0).get(perNodeTimeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // The entry expires on its own.
        }
    }

    private void tick() {
        try {
            synchronized (this) {
                if (stopped || engine.closed) {
                    return;
                }
                if (identity == null) {
                    identity = "host\t" + clean(hostName()) + "\npid\t"
                            + ProcessHandle.current().pid() + "\nname\t" + clean(config.clientName()) + "\n";
                }
                long now = ticker.nanoTime();
                String fields = identity + leases(now);
                if (!fields.equals(written) || now - writtenAt >= REFRESH_NANOS) {
                    written = fields;
                    writtenAt = now;
                    write(fields, TTL_MILLIS);
                }
            }
        } catch (RuntimeException e) {
            LOG.debug("could not write this client's entry (who holds what) to the nodes", e);
        } finally {
            synchronized (this) {
                if (!stopped) {
                    timer = engine.schedule(this::tick, TICK_NANOS);
                }
            }
        }
    }

    /** 'l:prefix<TAB>thread<TAB>since' lines for the leases held for a second or more, oldest first. */
    private String leases(long now) {
        TreeMap<Long, String> byAge = new TreeMap<>();
        for (DefaultLease lease : engine.leases.snapshot()) {
            String thread = lease.holderThread();
            if (thread != null && lease.isValid() && now - lease.startNanos() >= MIN_AGE_NANOS) {
                String line = "l:"
                        + lease.token().substring(0, Math.min(8, lease.token().length())) + "\t" + clean(thread) + "\t"
                        + lease.heldSinceEpochMillis() + "\n";
                byAge.merge(lease.startNanos(), line, String::concat);
            }
        }
        StringBuilder s = new StringBuilder();
        int n = 0;
        for (Map.Entry<Long, String> e : byAge.entrySet()) {
            if (n++ >= MAX_LEASES) {
                break;
            }
            s.append(e.getValue());
        }
        return s.toString();
    }

    private CompletableFuture<Round> write(String fields, long ttlMillis) {
        long t = ticker.nanoTime();
        Round round = new Round(NodeOp.Kind.HOLDERS, placement.all(), nodes.size(), t, ticker);
        CompletableFuture<Round> all = round.allAnswered();
        engine.fanOut(round, i -> round.op(i, key, fields, ttlMillis, t + perNodeTimeoutNanos));
        return all;
    }

    /** A value holds no tab, newline or other control character (the entry's separators), and stays short. */
    static String clean(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 200));
        for (int i = 0; i < s.length() && b.length() < 200; i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) ? ' ' : c);
        }
        return b.toString();
    }

    /** The host's name, without a network lookup where the system offers it as a file or a variable. */
    static String hostName() {
        try {
            Path p = Path.of("/proc/sys/kernel/hostname");
            if (Files.isReadable(p)) {
                String h = Files.readString(p, StandardCharsets.UTF_8).trim();
                if (!h.isEmpty()) {
                    return h;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // Not Linux, or not readable: try the others.
        }
        for (String var : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            String h = System.getenv(var);
            if (h != null && !h.isBlank()) {
                return h.trim();
            }
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
