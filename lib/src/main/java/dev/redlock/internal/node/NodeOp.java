/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeStatus;
import dev.redlock.internal.script.LockRef;
import dev.redlock.internal.script.LuaScript;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One command for one node, belonging to one round (its {@link Replies}; or to none: marker maintenance). Completed exactly once,
 * by whichever thread learns its outcome (the node's I/O thread, or the submitter when it is rejected up front).
 *
 * <p>The engine fills in what the command is; the node client fills in, right before encoding, what only it knows
 * (the incarnation marker it expects, the run_id of the server on the connection), and parses the reply into the
 * fields below, which its {@link NodeGuard} judges before the round counts the vote.
 */
public final class NodeOp {

    /** Where an op's outcome goes: the round it votes in, which counts the answers of all its nodes. */
    public interface Replies {
        /** Node {@code index} answered {@code status} (with the error, if it failed); called once per op. */
        void onReply(int index, NodeStatus status, Throwable error, NodeOp op);
    }

    /** What the command does; each maps to one script call. */
    public enum Kind {
        /** {@code acquire.lua}: SET NX PX, with the release tombstone and the incarnation marker checked. */
        ACQUIRE,
        /** {@code release.lua}: compare-and-delete (and a tombstone when the acquire's outcome is unknown). */
        RELEASE,
        /** {@code extend.lua}: compare-and-expire. */
        EXTEND,
        /** {@code acquire.lua}, fenced: also reads the lock's fencing counter, whether granted or not. */
        ACQUIRE_FENCED,
        /** {@code fence.lua}: raise the fencing counter to a candidate while the key still holds our token. */
        FENCE,
        /** {@code marker.lua}: maintenance of the node's incarnation marker; belongs to no round. */
        MARKER,
        /** {@code inspect.lua}: who holds the key (a token prefix) and its TTL; changes nothing. */
        INSPECT,
        /** {@code force.lua}: deletes the key if the holder an inspection saw still has it (a forced unlock). */
        FORCE_RELEASE,
        /**
         * {@code holders.lua}: replaces the client's entry (who it is, its leases held for a while); the token field
         * carries the entry's fields and the TTL its lifetime. Belongs to no lock.
         */
        HOLDERS
    }

    final Kind kind;
    final String key;
    final String token;
    final long ttlMillis;
    /** The fencing counter's key, for the fenced kinds; null otherwise. */
    final String counterKey;
    /** The candidate fencing token of a {@link Kind#FENCE}; the round's number within the lease for an EXTEND. */
    final long candidate;
    /** Ticker time after which sending is useless (the round gave up, or the key has expired anyway). */
    final long sendByNanos;

    private final Replies round;
    private final int index;
    /** {@link Kind#MARKER} only: the script's ARGV (action, expected id, run_id, new id). */
    private final String[] markerArgs;

    /** The lock's shape, for a kind other than the plain lock (see {@link LockRef.Kind}); null for a plain one. */
    LockRef ref;
    /** Release only: the lease or acquisition ends, so a fair waiter or a queued writer also leaves its queue. */
    boolean leaving;
    /** Release only: the acquire it undoes on this node, if any (see {@link #needsTombstone(long)}). */
    NodeOp after;
    /** Release only: leave a tombstone if the key is not ours, because our acquire may still arrive here. */
    boolean tombstone;
    /** The connection this op was last written on (a node client's own numbering); 0 if never written. */
    volatile long sentOn;
    /** Whether a server answered this op (as opposed to a timeout, a lost connection, or no send at all). */
    volatile boolean answered;
    /**
     * Set before completion when this op was answered without ever being written: refused by an open breaker, or
     * dropped unsent at its deadline or at close. It ran on no server, and never will.
     */
    volatile boolean neverSent;

    // Set by the node client before encoding.
    /** The node's incarnation marker key, or null when restart detection is off. */
    String markerKey;
    /** The marker id the client knows for the node ("" if none). */
    String knownMarkerId = "";
    /** The run_id of the server on the connection this op goes out on, as known when encoding ("" if not). */
    String encodedRunId = "";

    // Parsed from an acquire's reply.
    /** The lock's fencing counter on the node ({@link Kind#ACQUIRE_FENCED}); -1 before a reply. */
    long value = -1;
    /** Whether the counter may be trusted in a fencing read, as the node's script judged it. */
    boolean counterValid;
    /** An inspection: the first 8 characters of the token the key holds there; null if absent or before a reply. */
    String holderPrefix;
    /**
     * An inspection: the holder's client entry there, {host, pid, name, lease} (an element null when missing); null
     * when the node has no entry for that client.
     */
    String[] holderEntry;
    /** A refused acquire: the holder's key's remaining TTL on the node in ms (-1 none, -2 gone); -1 before a reply. */
    long holderTtlMillis = -1;
    /** Whether the node's fencing counters are intact (never lost since the cluster's counters started). */
    boolean intact;
    /** The node's marker, when the reply carried it (it differed from what the client named); null otherwise. */
    String replyMarkerId;

    String replyMarkerRun;
    long replyMarkerAgeMillis;

    // Set by the node client and its guard.
    /** Set by the node when a circuit-breaker permission was taken for this op, so it is returned exactly once. */
    boolean permitted;

    long sentAtNanos;
    /** Set after a NOSCRIPT reply: the next send uses EVAL with the script's source. */
    boolean evalFallback;
    /** The round's shared encodings (see {@link #encoded(String)}); null for an op of its own. */
    private SameCommand siblings;
    /** Whether the acquire's counter read counts in a fencing read: answered, and the node's identity trusted. */
    boolean readTrusted;

    public NodeOp(
            Kind kind,
            String key,
            String token,
            long ttlMillis,
            long sendByNanos,
            Replies round,
            int index,
            String counterKey,
            long candidate) {
        this.kind = kind;
        this.key = key;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.counterKey = counterKey;
        this.candidate = candidate;
        this.sendByNanos = sendByNanos;
        this.round = round;
        this.index = index;
        this.markerArgs = null;
    }

    /** A marker maintenance op: no round waits for it. */
    private NodeOp(String markerKey, long sendByNanos, String... markerArgs) {
        this.kind = Kind.MARKER;
        this.key = markerKey;
        this.token = "";
        this.ttlMillis = 0;
        this.counterKey = null;
        this.candidate = 0;
        this.sendByNanos = sendByNanos;
        this.round = null;
        this.index = -1;
        this.markerKey = markerKey;
        this.markerArgs = markerArgs;
    }

    /** Starts a new incarnation of the node's marker, if it is still {@code expectedId} under another run_id. */
    static NodeOp rotateMarker(String markerKey, String expectedId, String runId, String newId, long sendByNanos) {
        return new NodeOp(markerKey, sendByNanos, "rotate", expectedId, runId, newId);
    }

    /** Records the server's new run_id in the marker: a restart that lost nothing (persistence trusted). */
    static NodeOp adoptRunId(String markerKey, String expectedId, String runId, long sendByNanos) {
        return new NodeOp(markerKey, sendByNanos, "adopt", expectedId, runId, "");
    }

    public Kind kind() {
        return kind;
    }

    public String key() {
        return key;
    }

    public String token() {
        return token;
    }

    public long ttlMillis() {
        return ttlMillis;
    }

    public long sendByNanos() {
        return sendByNanos;
    }

    /** The fencing counter's key, for the fenced kinds; null otherwise. */
    public String counterKey() {
        return counterKey;
    }

    /** Whether this op ran on no server and never will (see {@link #neverSent}). */
    public boolean neverSent() {
        return neverSent;
    }

    /** Whether it went out on some connection and no server answered it: it may still run (see {@link #sentOn}). */
    public boolean mayStillRun() {
        return sentOn != 0 && !answered;
    }

    /** Release only: names the acquire this release undoes on this node (see {@link #needsTombstone(long)}). */
    public NodeOp undoing(NodeOp acquire) {
        this.after = acquire;
        return this;
    }

    /** An inspection's answer: the first 8 characters of the holder's token there; null if absent or unanswered. */
    public String holderPrefix() {
        return holderPrefix;
    }

    /**
     * An inspection's answer: the holder's client entry there, {host, pid, name, lease} (see {@code inspect.lua}); null
     * when absent.
     */
    public String[] holderEntry() {
        return holderEntry == null ? null : holderEntry.clone();
    }

    /** A refused acquire's answer: the holder's key's remaining TTL in ms (-1 none, -2 gone); -1 before a reply. */
    public long holderTtlMillis() {
        return holderTtlMillis;
    }

    /** Whether this acquire's counter read counts in a fencing read (answered, node identity trusted). */
    public boolean readTrusted() {
        return readTrusted;
    }

    /** Whether the counter read may be trusted, as the node's script judged it. */
    public boolean counterValid() {
        return counterValid;
    }

    /** Whether the node's fencing counters are intact (never lost since the cluster's counters started). */
    public boolean intact() {
        return intact;
    }

    /** The lock's fencing counter the node answered ({@link Kind#ACQUIRE_FENCED}); -1 before a reply. */
    public long counter() {
        return value;
    }

    /**
     * Gives this op the shape of {@code lock} (ignored for a plain lock without a hand-over queue, whose commands stay
     * as they were).
     */
    public NodeOp shaped(LockRef lock, boolean leavingQueue) {
        // Every plain lock without a hand-over queue shares the one PLAIN shape: an identity check, on every op.
        this.ref = lock.shape() == LockRef.Shape.PLAIN ? null : lock;
        this.leaving = leavingQueue;
        return this;
    }

    /** Whether this op is a vote in a round (as opposed to a release or maintenance). */
    boolean isVote() {
        return kind == Kind.ACQUIRE || kind == Kind.ACQUIRE_FENCED || kind == Kind.EXTEND || kind == Kind.FENCE;
    }

    boolean isAcquire() {
        return kind == Kind.ACQUIRE || kind == Kind.ACQUIRE_FENCED;
    }

    /** The candidate counter value a fencing round proposes ({@link Kind#FENCE}), or the extension's sequence. */
    public long candidate() {
        return candidate;
    }

    /**
     * A node client writes this op on connection {@code connection} at ticker time {@code nowNanos}: a release first
     * decides whether it must leave a tombstone there (see {@link #needsTombstone}), which its arguments then name.
     */
    public void sending(long connection, long nowNanos) {
        if (kind == Kind.RELEASE) {
            tombstone = needsTombstone(connection);
        }
        sentAtNanos = nowNanos;
        sentOn = connection;
    }

    /** Whether this release leaves a tombstone (decided when it was written, see {@link #sending}). */
    public boolean tombstoned() {
        return tombstone;
    }

    /** The node answered this op (or its connection failed after it was written): a later release needs no tombstone. */
    public void answered() {
        answered = true;
    }

    /** For fakes of the node interface: the counter read a node answered, as if its script had (intact if valid). */
    public void read(long counter, boolean valid) {
        this.value = counter;
        this.counterValid = valid;
        this.intact = valid;
        this.readTrusted = true;
    }

    /** Reports this node's answer to the round. */
    public void complete(NodeStatus status, Throwable error) {
        if (round != null) {
            round.onReply(index, status, error, this);
        }
    }

    /**
     * Whether this release must leave a tombstone when written on connection {@code connection}: the acquire it
     * undoes went out on another connection and never got an answer, so it may still run after this release (a
     * stalled node processes both sockets in any order). Behind the acquire on the same connection, order is kept.
     */
    public boolean needsTombstone(long connection) {
        NodeOp a = after;
        return a != null && a.sentOn != 0 && a.sentOn != connection && !a.answered;
    }

    /** The release tombstone of this op's token: a late acquire of that token finds it and sets nothing. */
    String tombstoneKey() {
        return key + ":t:" + token;
    }

    /** The command as RESP bytes: a script by SHA-1 (or by source after NOSCRIPT). */
    byte[] encoded() {
        return Resp.encode(arguments());
    }

    /**
     * The command as RESP bytes for a node whose keys all start with {@code tag} (a Redis Cluster's hash slot, see
     * {@link NodeSpec#keyTag()}); as {@link #encoded()} when the tag is null. An op of a round usually sends the very
     * command its siblings sent to the other nodes: then their bytes are reused rather than built again (this is on
     * every round's path, and building the arguments and their bytes was a third of the caller's own work).
     */
    byte[] encoded(String tag) {
        if (tag != null) {
            return Resp.encode(tagged(arguments(), tag, kind == Kind.INSPECT));
        }
        SameCommand shared = siblings;
        if (shared == null || markerKey != null) {
            return encoded(); // a watched node's command names its own marker and server
        }
        Encoded last = shared.last;
        if (last != null && last.isFor(this)) {
            return last.bytes;
        }
        byte[] bytes = encoded();
        shared.last = new Encoded(this, bytes);
        return bytes;
    }

    /** Where the ops of one round keep the command last encoded by one of them (see {@link #encoded(String)}). */
    public static final class SameCommand {
        volatile Encoded last;
    }

    /** A command's bytes, and the op and per-node choices they were encoded from. */
    private static final class Encoded {
        final NodeOp from;
        final boolean tombstone;
        final boolean evalFallback;
        final byte[] bytes;

        Encoded(NodeOp from, byte[] bytes) {
            this.from = from;
            this.tombstone = from.tombstone;
            this.evalFallback = from.evalFallback;
            this.bytes = bytes;
        }

        /** Whether {@code op}'s command is exactly these bytes: every field its arguments are made of is equal. */
        boolean isFor(NodeOp op) {
            NodeOp o = from;
            return tombstone == op.tombstone
                    && evalFallback == op.evalFallback
                    && o.kind == op.kind
                    && o.ttlMillis == op.ttlMillis
                    && o.candidate == op.candidate
                    && o.ref == op.ref
                    && o.leaving == op.leaving
                    && o.markerArgs == null
                    && op.markerArgs == null
                    && o.key.equals(op.key)
                    && o.token.equals(op.token)
                    && java.util.Objects.equals(o.counterKey, op.counterKey);
        }
    }

    /** Shares encoded commands with the other ops of the same round; set before the op is submitted. */
    public NodeOp sharingWith(SameCommand siblings) {
        this.siblings = siblings;
        return this;
    }

    /**
     * A script call's arguments with {@code tag} before each key, so that all of a command's keys hash to the tag's
     * slot. The scripts name no other key, except inspection's prefix of clients' entries (ARGV[1], read with
     * {@code pcall}), which gets the tag too when {@code prefixArgument}.
     */
    static String[] tagged(String[] scriptCall, String tag, boolean prefixArgument) {
        String[] out = scriptCall.clone();
        int keys = Integer.parseInt(out[2]);
        for (int i = 3; i < 3 + keys; i++) {
            out[i] = tag + out[i];
        }
        if (prefixArgument && out.length > 3 + keys && !out[3 + keys].isEmpty()) {
            out[3 + keys] = tag + out[3 + keys];
        }
        return out;
    }

    /** The arguments of this op's command, for transports that build their own command (the user's). */
    public String[] arguments() {
        boolean watched = markerKey != null;
        switch (kind) {
            case ACQUIRE:
            case ACQUIRE_FENCED: {
                boolean fenced = kind == Kind.ACQUIRE_FENCED;
                List<String> own = ref == null ? List.of() : ref.acquireKeys();
                String[] keys = new String[2 + (fenced ? 1 : 0) + own.size() + (watched ? 1 : 0)];
                keys[0] = key;
                keys[1] = tombstoneKey();
                if (fenced) {
                    keys[2] = counterKey;
                }
                for (int i = 0; i < own.size(); i++) {
                    keys[2 + (fenced ? 1 : 0) + i] = own.get(i);
                }
                if (watched) {
                    keys[keys.length - 1] = markerKey;
                }
                String ttl = Long.toString(ttlMillis);
                String spec = ref == null ? (fenced ? "1" : "0") : ref.acquireSpec(fenced);
                String[] argv = watched
                        ? new String[] {token, ttl, spec, knownMarkerId, encodedRunId}
                        : new String[] {token, ttl, spec};
                return script(LuaScript.ACQUIRE, keys, argv);
            }
            case RELEASE: {
                String spec = ref == null ? null : ref.releaseSpec(leaving);
                if (spec == null) {
                    return tombstone
                            ? script(LuaScript.RELEASE, new String[] {key, tombstoneKey()}, new String[] {
                                token, Long.toString(Math.max(1, ttlMillis))
                            })
                            : script(LuaScript.RELEASE, new String[] {key}, new String[] {token});
                }
                List<String> own = ref.releaseKeys(leaving);
                String[] keys = new String[1 + own.size() + (tombstone ? 1 : 0)];
                keys[0] = key;
                for (int i = 0; i < own.size(); i++) {
                    keys[1 + i] = own.get(i);
                }
                if (tombstone) {
                    keys[keys.length - 1] = tombstoneKey();
                }
                return script(LuaScript.RELEASE, keys, new String[] {
                    token, tombstone ? Long.toString(Math.max(1, ttlMillis)) : "0", spec
                });
            }
            case EXTEND: {
                // The candidate field carries the extension round's number within the lease.
                String seq = Long.toString(candidate);
                String spec = ref == null ? null : ref.extendSpec();
                if (spec == null) {
                    return script(LuaScript.EXTEND, new String[] {key, key + ":x"}, new String[] {
                        token, Long.toString(ttlMillis), seq
                    });
                }
                List<String> own = ref.extendKeys();
                String[] keys = new String[2 + own.size()];
                keys[0] = key;
                keys[1] = ref.extensionKey(token);
                for (int i = 0; i < own.size(); i++) {
                    keys[2 + i] = own.get(i);
                }
                return script(LuaScript.EXTEND, keys, new String[] {token, Long.toString(ttlMillis), seq, spec});
            }
            case FENCE:
                return script(
                        LuaScript.FENCE,
                        watched ? new String[] {key, counterKey, markerKey} : new String[] {key, counterKey},
                        new String[] {token, Long.toString(candidate)});
            case MARKER:
                return script(LuaScript.MARKER, new String[] {markerKey}, markerArgs);
            case INSPECT:
                // The token field carries the key prefix of clients' entries.
                return script(LuaScript.INSPECT, new String[] {key}, new String[] {token});
            case HOLDERS:
                return script(LuaScript.HOLDERS, new String[] {key}, new String[] {Long.toString(ttlMillis), token});
            case FORCE_RELEASE:
                // The token field carries the holder's prefix the inspection saw on this node.
                return script(LuaScript.FORCE, LockRef.forceKeys(key).toArray(new String[0]), new String[] {token});
            default:
                throw new IllegalStateException("unknown op " + kind);
        }
    }

    /** How many of {@link #arguments()} after the script reference are keys (cluster-aware clients route by them). */
    int keyCount() {
        return Integer.parseInt(arguments()[2]);
    }

    private String[] script(LuaScript script, String[] keys, String[] argv) {
        String[] all = new String[3 + keys.length + argv.length];
        all[0] = evalFallback ? "EVAL" : "EVALSHA";
        all[1] = evalFallback ? script.source() : script.sha1();
        all[2] = Integer.toString(keys.length);
        System.arraycopy(keys, 0, all, 3, keys.length);
        System.arraycopy(argv, 0, all, 3 + keys.length, argv.length);
        return all;
    }

    /**
     * Maps a raw Redis reply to this op's status, keeping what an acquire's reply says besides the vote.
     *
     * @throws IllegalStateException on a reply of the wrong shape: the connection is out of step with its commands
     */
    public NodeStatus statusOf(Object reply) {
        if (isAcquire()) {
            if (reply instanceof Long) {
                // Plain, and the marker is as the client named it: nothing else to learn.
                return granted((Long) reply);
            }
            if (reply instanceof List && ((List<?>) reply).size() == 2) {
                // Plain and refused: the holder's remaining TTL comes with the refusal.
                List<?> r = (List<?>) reply;
                holderTtlMillis = number(r.get(1));
                return granted(number(r.get(0)));
            }
            if (reply instanceof List && (((List<?>) reply).size() == 5 || ((List<?>) reply).size() == 8)) {
                List<?> r = (List<?>) reply;
                value = number(r.get(1));
                counterValid = number(r.get(2)) == 1;
                intact = number(r.get(3)) == 1;
                if (r.size() == 8) {
                    replyMarkerId = text(r.get(4));
                    replyMarkerRun = text(r.get(5));
                    replyMarkerAgeMillis = number(r.get(6));
                }
                holderTtlMillis = number(r.get(r.size() - 1));
                return granted(number(r.get(0)));
            }
            throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(reply));
        }
        if (kind == Kind.INSPECT) {
            if (reply instanceof List && (((List<?>) reply).size() == 2 || ((List<?>) reply).size() == 6)) {
                List<?> r = (List<?>) reply;
                holderTtlMillis = number(r.get(1));
                if (r.get(0) == null) {
                    return NodeStatus.ALREADY_EXPIRED; // absent
                }
                holderPrefix = text(r.get(0));
                if (r.size() == 6) {
                    String[] entry = new String[4];
                    for (int i = 0; i < 4; i++) {
                        entry[i] = r.get(2 + i) == null ? null : text(r.get(2 + i));
                    }
                    holderEntry = entry;
                }
                return NodeStatus.TAKEN;
            }
            throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(reply));
        }
        long code = reply instanceof Long ? (Long) reply : Long.MIN_VALUE;
        if (kind == Kind.FORCE_RELEASE && (code == 0 || code == 1 || code == -1)) {
            return code == 1
                    ? NodeStatus.RELEASED
                    : code == 0 ? NodeStatus.ALREADY_EXPIRED : NodeStatus.OWNED_BY_ANOTHER;
        }
        if ((kind == Kind.MARKER || kind == Kind.HOLDERS) && (code == 0 || code == 1)) {
            return NodeStatus.GRANTED;
        }
        if (code == 1) {
            return kind == Kind.RELEASE ? NodeStatus.RELEASED : NodeStatus.GRANTED;
        }
        if (code == 0) {
            return NodeStatus.ALREADY_EXPIRED;
        }
        if (code == -1) {
            return NodeStatus.OWNED_BY_ANOTHER;
        }
        throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(reply));
    }

    private NodeStatus granted(long code) {
        if (code == 1) {
            return NodeStatus.GRANTED;
        }
        if (code == 0) {
            return NodeStatus.TAKEN;
        }
        throw new IllegalStateException("unexpected reply to " + kind + ": " + code);
    }

    private long number(Object o) {
        if (o instanceof Long) {
            return (Long) o;
        }
        throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(o));
    }

    private String text(Object o) {
        if (o instanceof byte[]) {
            return new String((byte[]) o, StandardCharsets.UTF_8);
        }
        if (o instanceof String) {
            return (String) o; // a simple-string reply, or a user's transport that decodes bulk strings itself
        }
        if (o == null) {
            return "";
        }
        throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(o));
    }

    private static String describe(Object reply) {
        String s = reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
