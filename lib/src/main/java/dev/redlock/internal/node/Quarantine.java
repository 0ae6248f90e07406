/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.internal.Tokens;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restart protection, Redlock's "delayed restarts" made automatic and independent of the transport. A node that lost
 * data (restart without persistence, {@code FLUSHALL}, failover to a replica that lacks writes, or an address that now
 * reaches another server) may have forgotten keys it granted, so for as long as a lease granted before the loss could
 * still be valid (the longest TTL in use, plus drift) its acquire votes must not count.
 *
 * <p>The rule: an acquire vote counts only if the client knows the node has not lost data since it last confirmed
 * the node's identity. It rests on three facts, each checked in the round trip of the vote itself:
 * <ul>
 *   <li>the node's <b>incarnation marker</b>, a hash that {@code acquire.lua} creates when it is missing and returns
 *       when it is not the one the client named: a dataset that lost its data has lost its marker too, so a new or
 *       changed marker means "lost data then", and its age says how long ago;</li>
 *   <li>the <b>run_id</b> of the server on the very connection the vote came on ({@code INFO} is read first on every
 *       connection, or in the same pipeline for user-built clients): a marker written under another run_id means
 *       the server restarted from a persistent copy that may lack its latest writes, so the marker is rotated (a
 *       new incarnation starts), unless persistence is trusted;</li>
 *   <li>the server's <b>uptime</b>, and any change of run_id this client saw, as a second, local check.</li>
 * </ul>
 * A node whose run_id cannot be read (INFO refused by an ACL) does not vote at all, unless the user opted it out.
 *
 * <p>Only acquire votes are judged: an extension or fencing vote says the node holds this lease's own token now,
 * which no data loss can fake. Every decision reads the configured {@link Ticker}. Thread-safe.
 */
public final class Quarantine {

    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    private final boolean enabled;
    private final boolean trustPersistent;
    private final Set<String> identityOptional;
    private final String markerKey;
    private final Ticker ticker;
    private final RedlockConfig config;
    /** The longest TTL this client has used, in milliseconds; at least the configured lease time. */
    private final AtomicLong maxTtlMillis;

    /** Where new incarnation ids come from. */
    private final RandomGenerator random;

    public Quarantine(RedlockConfig config) {
        this(config, Tokens.SECURE);
    }

    /** @param random where new incarnation ids come from (a simulation passes a seeded source) */
    public Quarantine(RedlockConfig config, RandomGenerator random) {
        this.random = random;
        this.config = config;
        this.enabled = config.restartQuarantine();
        this.trustPersistent = config.trustPersistentNodes();
        this.identityOptional = config.unverifiedIdentityNodes();
        this.markerKey = enabled ? config.keyPrefix() + "node-incarnation" : null;
        this.ticker = config.ticker();
        this.maxTtlMillis = new AtomicLong(config.leaseTime().toMillis());
    }

    /** Records a TTL about to be used, so quarantines last at least that long. */
    public void observeTtl(long ttlMillis) {
        maxTtlMillis.accumulateAndGet(ttlMillis, Math::max);
    }

    long maxTtlMillis() {
        return maxTtlMillis.get();
    }

    boolean enabled() {
        return enabled;
    }

    public boolean trustPersistent() {
        return trustPersistent;
    }

    /** The key of every node's incarnation marker, or null when restart protection is off. */
    public String markerKey() {
        return markerKey;
    }

    /**
     * How long a node stays out after it lost data: the longest TTL in use, plus its drift, plus two per-node
     * timeouts (a round in flight when the loss happened may still be deciding on the others).
     */
    private long windowNanos() {
        long ttl = TimeUnit.MILLISECONDS.toNanos(maxTtlMillis.get());
        return ttl + config.driftNanos(ttl) + 2 * config.perNodeTimeout().toNanos();
    }

    /** What the client knows of one node, across connections. Written by the node's I/O thread. */
    public static final class Identity {
        final String node;
        final boolean optional;
        /** The last run_id seen on any connection; null until one was read. */
        volatile String runId;
        /** The server's start, on the ticker; {@link Long#MIN_VALUE} until learned. */
        volatile long bootNanos = Long.MIN_VALUE;
        /** When this client saw the run_id change (another process behind the address), on the ticker. */
        volatile long runChangedAtNanos = Long.MIN_VALUE;
        /** Whether the server fsyncs every write ({@code appendonly yes}, {@code appendfsync always}). */
        volatile boolean persistent;
        /** Why the run_id could not be read, or null. */
        volatile String identityProblem;
        /** Why persistence could not be read (with trusted persistence), or null. */
        volatile String persistenceProblem;
        /** The incarnation marker id last seen, or null. */
        volatile String markerId;
        /** When the marker's incarnation started, on the ticker (or when this client saw it change). */
        volatile long markerBornNanos = Long.MIN_VALUE;

        volatile long checkedAtNanos = System.nanoTime();
        /**
         * Added to the quarantine after a loss: a Sentinel-managed node's staleness limit, the time a client cut off
         * from the sentinels may still count the old master's votes; 0 otherwise.
         */
        volatile long extraWindowNanos;
        /**
         * A node that fails over (Sentinel-managed): persistence is never trusted across a change of server, and the
         * server's identity includes its replication id.
         */
        volatile boolean failoverManaged;

        Identity(String node, boolean optional) {
            this.node = node;
            this.optional = optional;
        }
    }

    /** What {@code INFO} (and {@code CONFIG GET appendfsync}) said on one connection: one server process. */
    public static final class Connection {
        /** The run_id of the server on this connection; null until read, or if it cannot be. */
        volatile String runId;
        /** Whether it persists every write before answering ({@code appendonly yes}, {@code appendfsync always}). */
        volatile boolean persistsEveryWrite;
        /** Whether its INFO says it is a replica ({@code role:slave}): its writes are not the node's. */
        volatile boolean replica;
        /**
         * Why this connection's server may not vote now although it answers (a Sentinel-managed node whose sentinels
         * did not confirm it as master lately), or null if it may; null for a node at a fixed address.
         */
        volatile java.util.function.Supplier<String> standing;

        /** A connection whose server is not known yet (its {@code INFO} not read). */
        public Connection() {}
    }

    Identity identity(String node) {
        return new Identity(node, identityOptional.contains(node));
    }

    /** Updates a node's identity from an {@code INFO} reply read on {@code conn}. */
    public void learn(Identity id, Connection conn, String info, Boolean fsyncAlways) {
        String runId = field(info, "run_id");
        String replid = field(info, "master_replid");
        if (id.failoverManaged && runId != null && !runId.isEmpty() && replid != null && !replid.isEmpty()) {
            // A failover-managed node's server is its process and its replication history: a promotion (also back to
            // a former master that never restarted) starts a new replication id, and must count as a change of server.
            runId = runId + "/" + replid;
        }
        String uptime = field(info, "uptime_in_seconds");
        String aof = field(info, "aof_enabled");
        long now = ticker.nanoTime();
        id.checkedAtNanos = System.nanoTime();
        // Only a full INFO (or its replication section) names the role; INFO server does not, and then it stays as is.
        String role = field(info, "role");
        if (role != null) {
            conn.replica = "slave".equals(role);
        }
        if (runId == null || runId.isEmpty()) {
            id.identityProblem = "its INFO reply has no run_id";
            return;
        }
        boolean persistent = fsyncAlways != null && fsyncAlways && "1".equals(aof);
        String before = id.runId;
        if (before != null && !runId.equals(before)) {
            boolean lostNothing = trustPersistent && persistent && !id.failoverManaged;
            if (!lostNothing) {
                id.runChangedAtNanos = now;
            }
            LOG.warn(
                    "node {}: a different server process answers now (run_id {} -> {}){}",
                    id.node,
                    prefix(before),
                    prefix(runId),
                    !enabled
                            ? ""
                            : lostNothing
                                    ? "; it persists every write, so nothing was lost"
                                    : "; its votes do not count for "
                                            + TimeUnit.NANOSECONDS.toMillis(windowNanos() + id.extraWindowNanos)
                                            + " ms");
        }
        if (uptime != null) {
            try {
                // Whole seconds, rounded down: take the latest start the reply allows, so that a quarantine can only
                // last longer than needed, never end too early.
                id.bootNanos = now - TimeUnit.SECONDS.toNanos(Long.parseLong(uptime.trim()));
            } catch (NumberFormatException e) {
                LOG.debug("node {}: unreadable uptime '{}'", id.node, uptime);
            }
        }
        id.persistent = persistent;
        id.runId = runId;
        id.identityProblem = null;
        conn.runId = runId;
        conn.persistsEveryWrite = persistent;
    }

    /** The node refused {@code INFO} (or answered it with something else): its identity stays unknown. */
    void identityRefused(Identity id, String why) {
        id.checkedAtNanos = System.nanoTime(); // asked: the periodic probe waits its interval before asking again
        if (id.identityProblem == null && enabled) {
            LOG.warn(
                    "node {}: cannot read its identity ({}); {}",
                    id.node,
                    why,
                    id.optional
                            ? "it votes anyway (opted out with unverifiedIdentity)"
                            : "its votes do not count until it can be read (grant INFO to the client's user, or opt it out "
                                    + "with RedlockConfig.Builder#unverifiedIdentity)");
        }
        id.identityProblem = "INFO refused: " + why;
    }

    /** The node refused {@code CONFIG GET appendfsync}: with trusted persistence, it counts as not persistent. */
    void persistenceRefused(Identity id, String why) {
        if (id.persistenceProblem == null) {
            LOG.warn(
                    "node {}: trustPersistentNodes is on but its persistence cannot be read ({}); it is treated as "
                            + "not persistent, so its restarts are quarantined",
                    id.node,
                    why);
        }
        id.persistenceProblem = "CONFIG GET appendfsync refused: " + why;
    }

    /**
     * Judges an acquire's answer: returns null if its vote counts, else why not (the vote is then reported as
     * quarantined). Learns the node's marker from the reply, sets whether its fencing read may be used, and hands
     * marker maintenance (rotate, adopt) to {@code maintenance}.
     *
     * @param conn what the connection the answer came on said about its server; null if none was read
     */
    String judge(Identity id, NodeOp op, Connection conn, Consumer<NodeOp> maintenance) {
        op.readTrusted = true;
        if (conn != null && conn.replica) {
            // A writable replica granted it: the grant is not on the master, and the next sync erases it.
            op.readTrusted = false;
            return "it is a replica (role:slave), not a master: what it grants is not kept";
        }
        String unconfirmed = unconfirmed(conn);
        if (unconfirmed != null) {
            op.readTrusted = false;
            return unconfirmed;
        }
        if (!enabled) {
            return null;
        }
        long now = ticker.nanoTime();
        String connRun = conn == null ? null : conn.runId;
        String reason = null;
        if (connRun == null && !id.optional) {
            reason = "its identity is unknown ("
                    + (id.identityProblem != null ? id.identityProblem : "no INFO reply read on this connection") + ")";
        }
        String markerId = op.replyMarkerId != null ? op.replyMarkerId : op.knownMarkerId;
        String markerRun = op.replyMarkerId != null ? op.replyMarkerRun : op.encodedRunId;
        if (op.replyMarkerId != null) {
            learnMarker(id, op.replyMarkerId, op.replyMarkerAgeMillis, now);
        }
        if (connRun != null && markerRun.isEmpty() && op.token.equals(op.replyMarkerId)) {
            // This very command created the marker, on this connection's server, before its run_id was known.
            maintenance.accept(NodeOp.adoptRunId(markerKey, markerId, connRun, now + TimeUnit.SECONDS.toNanos(1)));
        } else if (connRun != null && !connRun.equals(markerRun) && !markerId.isEmpty()) {
            // The marker was written under another server process: a restart since then, from a copy that may lack
            // its latest writes. One new incarnation for everyone, unless every write was persisted.
            // A promoted replica that persists every write still lacks what replication had not brought it.
            boolean lostNothing = trustPersistent && conn.persistsEveryWrite && !id.failoverManaged;
            long sendBy = now + TimeUnit.SECONDS.toNanos(1);
            maintenance.accept(
                    lostNothing
                            ? NodeOp.adoptRunId(markerKey, markerId, connRun, sendBy)
                            : NodeOp.rotateMarker(markerKey, markerId, connRun, Tokens.next(random), sendBy));
            if (!lostNothing) {
                reason =
                        "another server process holds its data since it was last known intact (a restart or a failover;"
                                + " marker run_id " + prefix(markerRun)
                                + ", server " + prefix(connRun) + ")";
            }
        }
        if (reason != null) {
            op.readTrusted = false;
            return reason;
        }
        return recentLoss(id, now);
    }

    /**
     * Why the server on {@code conn} may not vote now although it answered (its sentinels did not vouch for it lately),
     * or null; null for a node at a fixed address. Applies to every kind of vote: acquire, extension, fencing.
     */
    static String unconfirmed(Connection conn) {
        java.util.function.Supplier<String> standing = conn == null ? null : conn.standing;
        return standing == null ? null : standing.get();
    }

    private void learnMarker(Identity id, String markerId, long ageMillis, long now) {
        String known = id.markerId;
        if (known == null) {
            // First sight: the marker's own age says how long this dataset has been intact.
            id.markerBornNanos = now - TimeUnit.MILLISECONDS.toNanos(Math.max(0, ageMillis));
        } else if (!known.equals(markerId)) {
            // A change this client saw: the loss happened at an unknown time since it last saw the old marker, or the
            // address now reaches another dataset altogether. Count from now.
            id.markerBornNanos = now;
            LOG.warn(
                    "node {}: its data was lost or replaced (incarnation {} -> {}){}",
                    id.node,
                    prefix(known),
                    prefix(markerId),
                    "; its votes do not count for " + TimeUnit.NANOSECONDS.toMillis(windowNanos() + id.extraWindowNanos)
                            + " ms");
        }
        id.markerId = markerId;
    }

    /**
     * Why the node's votes do not count now because it lost data recently, with about how long until they do, or
     * null (also when restart protection is off). For reports; a vote is judged by {@link #judge}.
     */
    public String standingOut(Identity id) {
        if (!enabled) {
            return null;
        }
        long now = ticker.nanoTime();
        String why = recentLoss(id, now);
        if (why == null) {
            return null;
        }
        long window = windowNanos() + id.extraWindowNanos;
        long left = 0;
        for (long since : new long[] {
            trustPersistent && id.persistent ? Long.MIN_VALUE : id.bootNanos,
            id.runChangedAtNanos,
            markerKey == null ? Long.MIN_VALUE : id.markerBornNanos
        }) {
            if (since != Long.MIN_VALUE) {
                left = Math.max(left, window - (now - since));
            }
        }
        return "restart protection: its votes count again in about " + (ms(left) + 999) / 1000 + " s (" + why + ")";
    }

    /** Why a node must not vote now because it lost data recently, or null. */
    private String recentLoss(Identity id, long now) {
        long window = windowNanos() + id.extraWindowNanos;
        long boot = id.bootNanos;
        if (boot != Long.MIN_VALUE && now - boot < window && !(trustPersistent && id.persistent)) {
            return "it has been up " + ms(now - boot) + " ms, less than the longest lease in use plus drift ("
                    + ms(window) + " ms)";
        }
        long changed = id.runChangedAtNanos;
        if (changed != Long.MIN_VALUE && now - changed < window) {
            return "a different server process answered " + ms(now - changed) + " ms ago";
        }
        long born = id.markerBornNanos;
        if (markerKey != null && born != Long.MIN_VALUE && now - born < window) {
            return "its data is " + ms(now - born) + " ms old (new incarnation), less than the longest lease in use "
                    + "plus drift (" + ms(window) + " ms)";
        }
        return null;
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static String prefix(String id) {
        return id == null || id.isEmpty() ? "(none)" : id.length() <= 8 ? id : id.substring(0, 8);
    }

    private static String field(String info, String name) {
        String prefix = name + ":";
        int at = info.indexOf("\n" + prefix);
        int start = at >= 0 ? at + 1 + prefix.length() : info.startsWith(prefix) ? prefix.length() : -1;
        if (start < 0) {
            return null;
        }
        int end = info.indexOf('\n', start);
        return (end < 0 ? info.substring(start) : info.substring(start, end)).trim();
    }
}
