/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A simulated Redis server: an in-memory keyspace (strings, hashes, sorted sets) whose TTLs run on the server's own
 * (drifting) clock, the commands the library's scripts call, and {@code EVAL} of the library's real script files
 * through {@link LuaShim}.
 * A crash loses everything not persisted; a restart gets a new run_id, as a real {@code redis-server} does.
 *
 * <p>Only what the library uses is implemented, with Redis's semantics for it (checked against a real server by
 * {@code LuaShimTest}); anything else is an error reply, so a script that starts using a new command fails loudly.
 */
public final class SimRedis extends SimProcess {

    /** An error reply ({@code -ERR ...}); scripts propagate it as Redis does. */
    public static final class ErrorReply extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ErrorReply(String message) {
            super(message, null, false, false);
        }
    }

    /** A status reply such as {@code +OK}. */
    public record Status(String text) {}

    private static final Status OK = new Status("OK");

    private static final long EPOCH_MILLIS = 1_700_000_000_000L;

    /** No expiry: a key without a TTL. */
    private static final long NO_EXPIRY = Long.MAX_VALUE;

    /** A key's value (a {@code String}, a hash as a {@code Map}, or a {@link ZSet}) and when it expires. */
    private static final class Stored {
        final Object value;
        /** When the key expires, in milliseconds of the server's clock; {@link #NO_EXPIRY} if never. */
        long expireAt;

        Stored(Object value, long expireAt) {
            this.value = value;
            this.expireAt = expireAt;
        }

        /** A copy that shares nothing the server changes in place (what a replica receives). */
        @SuppressWarnings("unchecked")
        Stored copy() {
            Object v = value instanceof Map
                    ? new LinkedHashMap<>((Map<String, String>) value)
                    : value instanceof ZSet ? ((ZSet) value).copy() : value;
            return new Stored(v, expireAt);
        }
    }

    private final String name;
    private Map<String, Stored> data = new HashMap<>();
    private final boolean persistent;
    private String runId;
    private long bootWorldNanos;
    private boolean down;
    private int incarnation;
    /** Tokens a release script ran for, keyed by the lock key (for the orphan checker). */
    private final Map<String, Long> releasedAt = new HashMap<>();
    /** Keys an acquire set after a release of the same token had run here, until a later release removes them. */
    private final Map<String, String> orphans = new LinkedHashMap<>();
    /** World times at which this server lost its data (a crash without persistence, FLUSHALL). */
    private final List<Long> losses = new ArrayList<>();

    /**
     * @param persistent whether every write is persisted before it is acknowledged ({@code appendfsync always}):
     *        a crash then loses nothing
     */
    public SimRedis(SimWorld world, String name, double rate, long offset, boolean persistent) {
        super(world, name, rate, offset);
        this.name = name;
        this.persistent = persistent;
        this.runId = newRunId();
    }

    public String name() {
        return name;
    }

    public boolean persistent() {
        return persistent;
    }

    public boolean down() {
        return down;
    }

    public String runId() {
        return runId;
    }

    /** Bumped on every restart: replies and requests of an older incarnation's connections are dropped. */
    public int incarnation() {
        return incarnation;
    }

    private String newRunId() {
        StringBuilder b = new StringBuilder(40);
        for (int i = 0; i < 40; i++) {
            b.append(Character.forDigit(world().random().nextInt(16), 16));
        }
        return b.toString();
    }

    private final List<Runnable> crashListeners = new ArrayList<>();

    /** Runs {@code listener} whenever the process dies (its clients' connections break). */
    public void onCrash(Runnable listener) {
        crashListeners.add(listener);
    }

    /** The process dies; what a non-persistent server held is gone, and every subscription with its connection. */
    public void crash(boolean loseData) {
        world().trace(name + " crashes" + (loseData && !persistent ? ", losing its data" : ""));
        down = true;
        incarnation++;
        channels.clear();
        for (Runnable r : crashListeners) {
            r.run();
        }
        if (loseData && !persistent) {
            flushAll();
        }
    }

    /** The process starts again: a new run_id, uptime from zero; its replica syncs again from what it holds. */
    public void restart() {
        world().trace(name + " restarts");
        down = false;
        incarnation++;
        runId = newRunId();
        bootWorldNanos = world().now();
        if (replica != null) {
            replica.fullSync(data);
        }
    }

    // ------------------------------------------------------------------------------------------------ replication

    /**
     * The node's replica: it receives the master's writes asynchronously, each script's (or command's) effects as one
     * unit in the order they happened, a replication lag after they were made; a stalled link holds them back until
     * it recovers. Only what had arrived when it is promoted survives a failover. Its clock is the node's: expiry
     * times travel as absolute times (as Redis 7 sends {@code PXAT}), on clocks within the drift bound.
     */
    private final class Replica {
        /** What the replica holds: the master's writes that have arrived, applied in order. */
        Map<String, Stored> data = new HashMap<>();
        /** Writes sent and not arrived yet, in order. */
        final java.util.ArrayDeque<Write> stream = new java.util.ArrayDeque<>();
        /** The replica process: its run_id and when it started (world time). */
        String runId;

        long bootWorldNanos;
        long lastArrival;
        /** When it last copied the master's whole dataset (world time): it holds every write made before then. */
        long syncedAt;

        void send(long at, String key, Stored value, boolean flush) {
            long arrival = Math.max(Math.max(lastArrival, linkStalledUntil), at + lag());
            lastArrival = arrival;
            stream.add(new Write(arrival, key, value, flush));
            if (stream.size() > 64) {
                // A failover may promote the replica with what it had received up to two seconds ago (its link down
                // for a while): only older writes are applied before then.
                applyUpTo(world().now() - 2_000_000_000L);
            }
        }

        /** Applies every write that has arrived by world time {@code t}. */
        void applyUpTo(long t) {
            Write w;
            while ((w = stream.peek()) != null && w.arrival() <= t) {
                stream.poll();
                if (w.flush()) {
                    data.clear();
                } else if (w.value() == null) {
                    data.remove(w.key());
                } else {
                    data.put(w.key(), w.value());
                }
            }
        }

        /** A full resynchronisation: the replica drops what it had and copies {@code from}. */
        void fullSync(Map<String, Stored> from) {
            stream.clear();
            data = copyOf(from);
            lastArrival = world().now();
            syncedAt = world().now();
        }
    }

    /** One write on its way to the replica: a key's new value (null: deleted), or a FLUSHALL. */
    private record Write(long arrival, String key, Stored value, boolean flush) {}

    private Replica replica;
    /** Keys the current script (or command) changed, sent to the replica as one unit when it ends. */
    private final java.util.LinkedHashSet<String> touched = new java.util.LinkedHashSet<>();

    private boolean inScript;
    /** The replication lag of one write: a base, and up to as much again. */
    private long lagNanos;
    /** World time until which the replication link is stalled (writes wait in the master's output buffer). */
    private long linkStalledUntil = Long.MIN_VALUE;

    /**
     * Gives this node a replica, in sync now, whose process started {@code upNanos} ago, and the replication lag of
     * its writes.
     */
    public void replicate(long lagNanos, long upNanos) {
        this.lagNanos = lagNanos;
        replica = new Replica();
        replica.runId = newRunId();
        replica.bootWorldNanos = world().now() - upNanos;
        replica.fullSync(data);
    }

    public boolean replicated() {
        return replica != null;
    }

    private int failovers;
    private long lostWrites;

    /** How many times a replica was promoted here. */
    public int failovers() {
        return failovers;
    }

    /** How many writes (a script's changes to one key, or a FLUSHALL) the promoted replicas had not received. */
    public long lostWrites() {
        return lostWrites;
    }

    /** The replication link stalls until world time {@code until}: writes reach the replica after it. */
    public void stallReplication(long until) {
        world().trace(name + "'s replication link stalls for " + (until - world().now()) / 1_000_000 + " ms");
        linkStalledUntil = Math.max(linkStalledUntil, until);
    }

    private long lag() {
        return lagNanos + world().random().nextLong(lagNanos + 1);
    }

    private void touch(String key) {
        if (replica != null) {
            touched.add(key);
        }
    }

    /** Sends what the script or command that just ended changed to the replica. */
    private void propagate() {
        if (touched.isEmpty()) {
            return;
        }
        long now = world().now();
        for (String key : touched) {
            Stored e = data.get(key);
            replica.send(now, key, e == null ? null : e.copy(), false);
        }
        touched.clear();
    }

    /**
     * Failover: the replica is promoted with what had reached it by world time {@code received} (a planned switchover
     * passes {@link Long#MAX_VALUE}: the replica caught up first), and the node's address now reaches it: its data,
     * its own run_id and uptime; the marker it holds is the old master's, replicated. Every client connection to the
     * old master drops. The old master becomes the new replica, after a full sync (it keeps its run_id, or gets a new
     * one if it had died). Returns how many writes were lost.
     */
    public int failover(long received) {
        Replica r = replica;
        r.applyUpTo(Math.max(received, r.syncedAt));
        int lost = r.stream.size();
        world().trace(name + " fails over to its replica " + r.runId.substring(0, 8) + ", losing " + lost
                + " write(s) it had not received");
        String oldRun = down ? newRunId() : runId;
        long oldBoot = down ? world().now() : bootWorldNanos;
        data = r.data;
        runId = r.runId;
        bootWorldNanos = r.bootWorldNanos;
        down = false;
        incarnation++;
        channels.clear();
        resume();
        for (Runnable l : crashListeners) {
            l.run();
        }
        replica = new Replica();
        replica.runId = oldRun;
        replica.bootWorldNanos = oldBoot;
        replica.fullSync(data);
        linkStalledUntil = Long.MIN_VALUE;
        failovers++;
        lostWrites += lost;
        if (lost > 0) {
            losses.add(world().now());
        }
        // An orphan the replica never received went with the old master's data.
        orphans.keySet().removeIf(lease -> {
            int space = lease.lastIndexOf(' ');
            Stored e = data.get(lease.substring(0, space));
            return e == null || !lease.substring(space + 1).equals(e.value);
        });
        return lost;
    }

    // ------------------------------------------------------------------------------------------------ cluster slots

    /**
     * The node as one hash slot of a Redis Cluster: this server is whichever master owns the slot, and every key the
     * node is sent carries the slot's hash tag, so its whole keyspace (lock keys, the incarnation marker, fencing
     * counters, queues) is the slot's and moves with it. While the slot migrates, the master answers every command
     * for it with {@code ASK} (nothing runs, nothing is written, so the keys that arrive are the ones it had); once the
     * slot has moved, a connection made to the old master answers {@code MOVED}, and a new connection reaches the new
     * owner.
     */
    private boolean migrating;

    private int slotMoves;

    private int keylessMoves;
    private long keysLeftBehind;
    private long askReplies;
    private long movedReplies;
    /** For each incarnation that gave the slot away while it ran: that master's INFO (its connections answer MOVED). */
    private final Map<Integer, String> formerOwners = new HashMap<>();

    /** Whether the slot is migrating to another master (commands answer {@code ASK}). */
    public boolean migrating() {
        return migrating;
    }

    /** How many times the slot moved to another master. */
    public int slotMoves() {
        return slotMoves;
    }

    /** How many of the slot moves left the keys behind (the new owner had none of them). */
    public int keylessMoves() {
        return keylessMoves;
    }

    /** How many keys the slot moves without keys left behind. */
    public long keysLeftBehind() {
        return keysLeftBehind;
    }

    /** How many commands were answered {@code ASK} (a migration in progress) and {@code MOVED} (an old owner). */
    public long redirects() {
        return askReplies + movedReplies;
    }

    /** How many commands were answered {@code ASK}. */
    public long askReplies() {
        return askReplies;
    }

    /** How many commands were answered {@code MOVED}. */
    public long movedReplies() {
        return movedReplies;
    }

    /** Whether a connection made to {@code incarnation} reaches a master that gave the slot away (and still runs). */
    public boolean movedAway(int incarnation) {
        return formerOwners.containsKey(incarnation);
    }

    /** What {@code INFO} answers on a connection made to {@code incarnation}: the old master's, if it moved away. */
    public String info(int incarnation) {
        String former = formerOwners.get(incarnation);
        return former != null ? former : info();
    }

    /**
     * The redirect a command gets instead of running, on a connection made to {@code incarnation}: {@code MOVED} from
     * a master that gave the slot away, {@code ASK} while the slot migrates; null if the command runs.
     */
    public ErrorReply redirect(int incarnation) {
        if (formerOwners.containsKey(incarnation)) {
            movedReplies++;
            return new ErrorReply("MOVED " + name + " " + name + "-moved:6379");
        }
        if (migrating) {
            askReplies++;
            return new ErrorReply("ASK " + name + " " + name + "-next:6379");
        }
        return null;
    }

    /** The slot starts migrating to another master: from now on every command for it is answered {@code ASK}. */
    public void beginSlotMove(boolean withKeys) {
        world().trace(name + "'s slot starts moving to another master, " + (withKeys ? "with" : "without")
                + " its keys");
        migrating = true;
    }

    /**
     * The slot now belongs to another master, a process that has run for {@code upNanos}: the node's commands reach it
     * from now on, with its own run_id and uptime. With its keys, the slot's data arrives as it was (each key with
     * its remaining TTL, as {@code MIGRATE} sends it); without, the new owner has none of the node's keys (data
     * loss). The old master keeps running: its connections stay open and answer {@code MOVED} (if it was stopped or had
     * died, they answer nothing, and the clients' stall detection drops them). The new owner's
     * replica is in sync (it replicated the keys as they arrived).
     */
    public void completeSlotMove(boolean withKeys, long upNanos) {
        migrating = false;
        long now = nowMillis();
        int keys = 0;
        for (Stored e : data.values()) {
            if (e.expireAt > now) {
                keys++;
            }
        }
        world().trace(name + "'s slot has moved to another master, "
                + (withKeys ? "with its " + keys + " key(s)" : "leaving its " + keys + " key(s) behind"));
        if (!down && !paused()) {
            // The old master runs on: its connections answer MOVED (a stopped or dead one answers nothing).
            formerOwners.put(incarnation, info());
        }
        if (!withKeys) {
            data = new HashMap<>();
            orphans.clear();
            keylessMoves++;
            keysLeftBehind += keys;
            if (keys > 0) {
                losses.add(world().now());
            }
        }
        runId = newRunId();
        bootWorldNanos = world().now() - upNanos;
        down = false;
        incarnation++;
        channels.clear();
        resume();
        if (replica != null) {
            replica = new Replica();
            replica.runId = newRunId();
            replica.bootWorldNanos = world().now() - upNanos;
            replica.fullSync(data);
            linkStalledUntil = Long.MIN_VALUE;
        }
        slotMoves++;
    }

    private static Map<String, Stored> copyOf(Map<String, Stored> from) {
        Map<String, Stored> out = new HashMap<>();
        for (Map.Entry<String, Stored> e : from.entrySet()) {
            out.put(e.getKey(), e.getValue().copy());
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ pub/sub

    /** A subscribed connection as the server sees it: where its pushes go (over the simulated network). */
    public interface Subscriber {
        /**
         * The server sends {@code push} down the connection, as the RESP parser hands it over: an array with bulk
         * strings as bytes, or a status as its text.
         */
        void push(Object push);
    }

    /** The connections subscribed to each channel, in the order they subscribed. */
    private final Map<String, java.util.LinkedHashSet<Subscriber>> channels = new HashMap<>();

    /**
     * {@code SUBSCRIBE channel} from {@code s}: acknowledged by a subscribe push carrying how many channels the
     * connection is now subscribed to, as Redis does.
     */
    public void subscribe(Subscriber s, String channel) {
        channels.computeIfAbsent(channel, k -> new java.util.LinkedHashSet<>()).add(s);
        s.push(List.of(utf8("subscribe"), utf8(channel), subscriptions(s)));
    }

    /** {@code UNSUBSCRIBE channel} from {@code s}, acknowledged as Redis does. */
    public void unsubscribe(Subscriber s, String channel) {
        java.util.LinkedHashSet<Subscriber> on = channels.get(channel);
        if (on != null && on.remove(s) && on.isEmpty()) {
            channels.remove(channel);
        }
        s.push(List.of(utf8("unsubscribe"), utf8(channel), subscriptions(s)));
    }

    /** {@code PING} on a subscribed connection: ["pong", ""] while it has a subscription, +PONG once it has none. */
    public void ping(Subscriber s) {
        s.push(subscriptions(s) > 0 ? List.of(utf8("pong"), utf8("")) : "PONG");
    }

    /** The connection closed: the server forgets its subscriptions. */
    public void disconnected(Subscriber s) {
        channels.values().removeIf(on -> on.remove(s) && on.isEmpty());
    }

    private long subscriptions(Subscriber s) {
        return channels.values().stream().filter(on -> on.contains(s)).count();
    }

    /** {@code PUBLISH}: a message push to every connection subscribed to the channel; returns how many there are. */
    private long publish(String channel, String message) {
        java.util.LinkedHashSet<Subscriber> on = channels.get(channel);
        if (on == null) {
            return 0L;
        }
        if (world().tracing()) {
            world().trace(name + " publishes " + message + " on " + channel + " to " + on.size());
        }
        for (Subscriber s : List.copyOf(on)) {
            s.push(List.of(utf8("message"), utf8(channel), utf8(message)));
        }
        return on.size();
    }

    /** Somebody ran {@code FLUSHALL}: every key is gone, the process and its run_id stay (the replica follows). */
    public void flushAll() {
        world().trace(name + " FLUSHALL");
        data.clear();
        orphans.clear();
        losses.add(world().now());
        if (replica != null) {
            replica.send(world().now(), null, null, true);
        }
    }

    /** The world times at which this server lost its data, oldest first. */
    public List<Long> losses() {
        return List.copyOf(losses);
    }

    /** The server's {@code INFO} text, as far as the library reads it. */
    public String info() {
        long uptime = (long) ((world().now() - bootWorldNanos) * rate()) / 1_000_000_000L;
        return "# Server\r\nrun_id:" + runId + "\r\nuptime_in_seconds:" + uptime + "\r\n# Persistence\r\naof_enabled:"
                + (persistent ? 1 : 0) + "\r\n# Replication\r\nrole:master\r\n";
    }

    /** The server's wall clock in milliseconds (for {@code TIME}), on its own drifting clock. */
    long wallMillis() {
        return EPOCH_MILLIS + clockNanos() / 1_000_000L;
    }

    private long nowMillis() {
        return clockNanos() / 1_000_000L;
    }

    // ------------------------------------------------------------------------------------------------ keyspace

    /** The key's entry, or null if it is absent or expired (an expired key is removed, as Redis does on access). */
    private Stored entry(String key) {
        Stored e = data.get(key);
        if (e != null && e.expireAt <= nowMillis()) {
            data.remove(key);
            return null;
        }
        return e;
    }

    private Object lookup(String key) {
        Stored e = entry(key);
        return e == null ? null : e.value;
    }

    /** The lock keys present now, with their values (for the checkers). */
    public Map<String, String> stringKeys() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : new ArrayList<>(data.keySet())) {
            Object v = lookup(k);
            if (v instanceof String) {
                out.put(k, (String) v);
            }
        }
        return out;
    }

    /**
     * Orphans: lock keys an acquire set with a token after a release of that token had already run here, and that no
     * later release removed. Nobody will delete such a key: it stays for its whole TTL.
     */
    public List<String> orphans() {
        return new ArrayList<>(orphans.values());
    }

    private String string(String key) {
        Object v = lookup(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    }

    @SuppressWarnings("unchecked")
    private Map<String, String> hash(String key, boolean create) {
        Object v = lookup(key);
        if (v == null) {
            if (!create) {
                return null;
            }
            Map<String, String> h = new LinkedHashMap<>();
            data.put(key, new Stored(h, NO_EXPIRY));
            return h;
        }
        if (v instanceof Map) {
            return (Map<String, String>) v;
        }
        throw new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    }

    private ZSet zset(String key) {
        Object v = lookup(key);
        if (v == null || v instanceof ZSet) {
            return (ZSet) v;
        }
        throw new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    }

    /** An emptied sorted set is no key at all, as in Redis. */
    private void dropIfEmpty(String key, ZSet z) {
        if (z.size() == 0) {
            data.remove(key);
        }
    }

    private static void arity(List<String> args, int arity) {
        if (arity >= 0 ? args.size() != arity : args.size() < -arity) {
            throw new ErrorReply(
                    "ERR wrong number of arguments for '" + args.get(0).toLowerCase(Locale.ROOT) + "' command");
        }
    }

    /**
     * Runs one command and returns its reply: {@code Long}, {@code String} (bulk), {@code null} (nil), {@link Status},
     * {@code List} (array); an error reply is thrown as {@link ErrorReply}.
     */
    public Object command(List<String> args) {
        if (inScript) {
            return execute(args);
        }
        try {
            return execute(args);
        } finally {
            propagate();
        }
    }

    private Object execute(List<String> args) {
        String cmd = args.get(0).toUpperCase(java.util.Locale.ROOT);
        switch (cmd) {
            case "EXISTS":
                return lookup(args.get(1)) == null ? 0L : 1L;
            case "GET":
                return string(args.get(1));
            case "SET":
                return set(args);
            case "PEXPIRE": {
                Stored e = entry(args.get(1));
                if (e == null) {
                    return 0L;
                }
                e.expireAt = nowMillis() + Long.parseLong(args.get(2));
                touch(args.get(1));
                return 1L;
            }
            case "PTTL": {
                Stored e = entry(args.get(1));
                if (e == null) {
                    return -2L;
                }
                return e.expireAt == NO_EXPIRY ? -1L : e.expireAt - nowMillis();
            }
            case "PUBLISH":
                arity(args, 3);
                return publish(args.get(1), args.get(2));
            case "DEL": {
                long n = 0;
                for (int i = 1; i < args.size(); i++) {
                    if (entry(args.get(i)) != null) {
                        data.remove(args.get(i));
                        touch(args.get(i));
                        n++;
                    }
                }
                return n;
            }
            case "HGET": {
                Map<String, String> h = hash(args.get(1), false);
                return h == null ? null : h.get(args.get(2));
            }
            case "HMGET": {
                Map<String, String> h = hash(args.get(1), false);
                List<Object> out = new ArrayList<>();
                for (int i = 2; i < args.size(); i++) {
                    out.add(h == null ? null : h.get(args.get(i)));
                }
                return out;
            }
            case "HSET": {
                if (args.size() < 4 || args.size() % 2 != 0) {
                    throw new ErrorReply("ERR wrong number of arguments for 'hset' command");
                }
                Map<String, String> h = hash(args.get(1), true);
                long added = 0;
                for (int i = 2; i < args.size(); i += 2) {
                    if (h.put(args.get(i), args.get(i + 1)) == null) {
                        added++;
                    }
                }
                touch(args.get(1));
                return added;
            }
            case "ZADD":
                return zadd(args);
            case "ZREM": {
                arity(args, -3);
                ZSet z = zset(args.get(1));
                if (z == null) {
                    return 0L;
                }
                long n = 0;
                for (int i = 2; i < args.size(); i++) {
                    if (z.remove(args.get(i))) {
                        n++;
                    }
                }
                dropIfEmpty(args.get(1), z);
                if (n > 0) {
                    touch(args.get(1));
                }
                return n;
            }
            case "ZSCORE": {
                arity(args, 3);
                ZSet z = zset(args.get(1));
                Double score = z == null ? null : z.score(args.get(2));
                return score == null ? null : RedisNumbers.g17(score);
            }
            case "ZCARD": {
                arity(args, 2);
                ZSet z = zset(args.get(1));
                return z == null ? 0L : (long) z.size();
            }
            case "ZRANGE":
                arity(args, -4);
                return zrange(args, null, false);
            case "ZRANGEBYSCORE":
                arity(args, -4);
                return zrange(args, Boolean.TRUE, false);
            case "ZREMRANGEBYSCORE": {
                arity(args, 4);
                ScoreRange range = ScoreRange.parse(args.get(2), args.get(3));
                ZSet z = zset(args.get(1));
                if (z == null) {
                    return 0L;
                }
                long n = 0;
                for (ZSet.Entry e : z.inRange(range)) {
                    z.remove(e.member());
                    n++;
                }
                dropIfEmpty(args.get(1), z);
                if (n > 0) {
                    touch(args.get(1));
                }
                return n;
            }
            case "TIME": {
                long micros = (EPOCH_MILLIS * 1000L) + clockNanos() / 1000L;
                return List.of(Long.toString(micros / 1_000_000L), Long.toString(micros % 1_000_000L));
            }
            default:
                throw new ErrorReply("ERR unknown command '" + args.get(0) + "' in this simulation");
        }
    }

    /** {@code ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]}, as Redis 7.0 checks it. */
    private Object zadd(List<String> args) {
        arity(args, -4);
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = false;
        int at = 2;
        for (; at < args.size(); at++) {
            String o = args.get(at).toUpperCase(Locale.ROOT);
            if (o.equals("NX")) {
                nx = true;
            } else if (o.equals("XX")) {
                xx = true;
            } else if (o.equals("GT")) {
                gt = true;
            } else if (o.equals("LT")) {
                lt = true;
            } else if (o.equals("CH")) {
                ch = true;
            } else if (o.equals("INCR")) {
                incr = true;
            } else {
                break;
            }
        }
        int elements = args.size() - at;
        if (elements == 0 || elements % 2 != 0) {
            throw new ErrorReply("ERR syntax error");
        }
        elements /= 2;
        if (nx && xx) {
            throw new ErrorReply("ERR XX and NX options at the same time are not compatible");
        }
        if ((gt && nx) || (lt && nx) || (gt && lt)) {
            throw new ErrorReply("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && elements > 1) {
            throw new ErrorReply("ERR INCR option supports a single increment-element pair");
        }
        // Every score is checked before anything changes: the command applies fully or not at all.
        double[] scores = new double[elements];
        int longest = 0;
        for (int j = 0; j < elements; j++) {
            Double d = RedisNumbers.score(args.get(at + 2 * j));
            if (d == null) {
                throw new ErrorReply("ERR value is not a valid float");
            }
            scores[j] = d;
            longest = Math.max(longest, utf8(args.get(at + 2 * j + 1)).length);
        }
        String key = args.get(1);
        ZSet z = zset(key);
        long added = 0;
        long updated = 0;
        long processed = 0;
        double score = 0;
        if (z == null && !xx) {
            z = new ZSet(elements, longest);
            data.put(key, new Stored(z, NO_EXPIRY));
        }
        if (z != null) {
            touch(key);
        }
        for (int j = 0; z != null && j < elements; j++) {
            String member = args.get(at + 2 * j + 1);
            score = scores[j];
            Double current = z.score(member);
            if (current != null) {
                if (nx) {
                    continue;
                }
                if (incr) {
                    score += current;
                    if (Double.isNaN(score)) {
                        throw new ErrorReply("ERR resulting score is not a number (NaN)");
                    }
                }
                if ((lt && score >= current) || (gt && score <= current)) {
                    continue;
                }
                processed++;
                if (score != current) {
                    z.put(member, score);
                    updated++;
                }
            } else if (!xx) {
                z.put(member, score);
                added++;
                processed++;
            }
        }
        if (incr) {
            return processed > 0 ? RedisNumbers.g17(score) : null;
        }
        return ch ? added + updated : added;
    }

    /**
     * {@code ZRANGE key start stop [BYSCORE] [REV] [LIMIT offset count] [WITHSCORES]} ({@code byScore} null), or
     * {@code ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]} ({@code byScore} true), as Redis 7.0 parses
     * them: options, then the range, then the key.
     */
    private Object zrange(List<String> args, Boolean byScore, boolean reverse) {
        boolean withScores = false;
        boolean rev = reverse;
        boolean fixedDirection = byScore != null;
        Boolean score = byScore;
        long offset = 0;
        long limit = -1;
        for (int j = 4; j < args.size(); j++) {
            String o = args.get(j).toUpperCase(Locale.ROOT);
            int left = args.size() - j - 1;
            if (o.equals("WITHSCORES")) {
                withScores = true;
            } else if (o.equals("LIMIT") && left >= 2) {
                Long off = RedisNumbers.integer(args.get(j + 1));
                Long count = off == null ? null : RedisNumbers.integer(args.get(j + 2));
                if (count == null) {
                    throw new ErrorReply("ERR value is not an integer or out of range");
                }
                offset = off;
                limit = count;
                j += 2;
            } else if (!fixedDirection && !rev && o.equals("REV")) {
                rev = true;
            } else if (score == null && o.equals("BYSCORE")) {
                score = true;
            } else if (score == null && o.equals("BYLEX")) {
                score = false;
            } else {
                throw new ErrorReply("ERR syntax error");
            }
        }
        boolean rank = score == null;
        if (limit != -1 && rank) {
            throw new ErrorReply(
                    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or " + "BYLEX");
        }
        if (withScores && Boolean.FALSE.equals(score)) {
            throw new ErrorReply("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        }
        if (Boolean.FALSE.equals(score)) {
            throw new ErrorReply("ERR BYLEX is not implemented in this simulation");
        }
        List<ZSet.Entry> picked;
        if (rank) {
            Long start = RedisNumbers.integer(args.get(2));
            Long end = start == null ? null : RedisNumbers.integer(args.get(3));
            if (end == null) {
                throw new ErrorReply("ERR value is not an integer or out of range");
            }
            ZSet z = zset(args.get(1));
            if (z == null) {
                return List.of();
            }
            List<ZSet.Entry> all = z.entries();
            long size = all.size();
            long s = start < 0 ? size + start : start;
            long e = end < 0 ? size + end : end;
            s = Math.max(0, s);
            if (s > e || s >= size) {
                return List.of();
            }
            e = Math.min(e, size - 1);
            picked = new ArrayList<>();
            for (long i = s; i <= e; i++) {
                picked.add(all.get((int) (rev ? size - 1 - i : i)));
            }
        } else {
            // Reversed, the range is given as max, min.
            ScoreRange range =
                    rev ? ScoreRange.parse(args.get(3), args.get(2)) : ScoreRange.parse(args.get(2), args.get(3));
            ZSet z = zset(args.get(1));
            if (z == null) {
                return List.of();
            }
            List<ZSet.Entry> in = z.inRange(range);
            if (rev) {
                java.util.Collections.reverse(in);
            }
            picked = new ArrayList<>();
            // A negative offset skips everything; a negative count means no limit.
            for (long i = offset; offset >= 0 && i < in.size() && (limit < 0 || i - offset < limit); i++) {
                picked.add(in.get((int) i));
            }
        }
        List<Object> out = new ArrayList<>(picked.size() * (withScores ? 2 : 1));
        for (ZSet.Entry e : picked) {
            out.add(e.member());
            if (withScores) {
                out.add(RedisNumbers.g17(e.score()));
            }
        }
        return out;
    }

    /** A score range: each end inclusive, or exclusive when written with a leading '('. */
    private record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {

        static ScoreRange parse(String min, String max) {
            boolean minEx = min.startsWith("(");
            boolean maxEx = max.startsWith("(");
            Double lo = RedisNumbers.rangeEnd(min, minEx ? 1 : 0);
            Double hi = lo == null ? null : RedisNumbers.rangeEnd(max, maxEx ? 1 : 0);
            if (hi == null) {
                throw new ErrorReply("ERR min or max is not a float");
            }
            return new ScoreRange(lo, minEx, hi, maxEx);
        }

        boolean contains(double v) {
            return (minExclusive ? v > min : v >= min) && (maxExclusive ? v < max : v <= max);
        }
    }

    /**
     * A sorted set: members ordered by score, then by their bytes (as Redis compares them). Small sets are what
     * Redis keeps as a listpack, which stores each score as text and so turns -0 into 0; a set that outgrows it (more
     * than 128 members, or a member longer than 64 bytes) keeps -0 from then on, as a skiplist does.
     */
    private static final class ZSet {
        private static final int LISTPACK_ENTRIES = 128;
        private static final int LISTPACK_VALUE = 64;

        @SuppressWarnings("ArrayRecordComponent") // ordered by score and member; the bytes are only carried
        record Entry(double score, String member, byte[] bytes) implements Comparable<Entry> {
            @Override
            public int compareTo(Entry o) {
                if (score < o.score) {
                    return -1;
                }
                if (score > o.score) {
                    return 1;
                }
                return Arrays.compareUnsigned(bytes, o.bytes);
            }
        }

        private final Map<String, Entry> byMember = new HashMap<>();
        private final TreeSet<Entry> ordered = new TreeSet<>();
        private boolean listpack;

        ZSet(int sizeHint, int longestMember) {
            this.listpack = sizeHint <= LISTPACK_ENTRIES && longestMember <= LISTPACK_VALUE;
        }

        int size() {
            return byMember.size();
        }

        Double score(String member) {
            Entry e = byMember.get(member);
            return e == null ? null : e.score();
        }

        void put(String member, double score) {
            byte[] bytes = utf8(member);
            if (listpack
                    && (byMember.size() + (byMember.containsKey(member) ? 0 : 1) > LISTPACK_ENTRIES
                            || bytes.length > LISTPACK_VALUE)) {
                listpack = false;
            }
            Entry old = byMember.remove(member);
            if (old != null) {
                ordered.remove(old);
            }
            Entry e = new Entry(listpack && score == 0 ? 0.0 : score, member, bytes);
            byMember.put(member, e);
            ordered.add(e);
        }

        boolean remove(String member) {
            Entry e = byMember.remove(member);
            if (e == null) {
                return false;
            }
            ordered.remove(e);
            return true;
        }

        List<Entry> entries() {
            return new ArrayList<>(ordered);
        }

        ZSet copy() {
            ZSet z = new ZSet(0, 0);
            z.listpack = listpack;
            z.byMember.putAll(byMember);
            z.ordered.addAll(ordered);
            return z;
        }

        List<Entry> inRange(ScoreRange range) {
            List<Entry> out = new ArrayList<>();
            for (Entry e : ordered) {
                if (range.contains(e.score())) {
                    out.add(e);
                }
            }
            return out;
        }
    }

    private Object set(List<String> args) {
        String key = args.get(1);
        boolean nx = false;
        long px = -1;
        for (int i = 3; i < args.size(); i++) {
            String o = args.get(i).toUpperCase(java.util.Locale.ROOT);
            if (o.equals("NX")) {
                nx = true;
            } else if (o.equals("PX") && i + 1 < args.size()) {
                px = Long.parseLong(args.get(++i));
                if (px <= 0) {
                    throw new ErrorReply("ERR invalid expire time in 'set' command");
                }
            } else {
                throw new ErrorReply("ERR syntax error");
            }
        }
        if (nx && lookup(key) != null) {
            return null;
        }
        data.put(key, new Stored(args.get(2), px > 0 ? nowMillis() + px : NO_EXPIRY));
        touch(key);
        return OK;
    }

    /**
     * Runs {@code EVAL source numkeys key... arg...} through the Lua interpreter. Also records, for the orphan
     * checker, when a release ran for a token and when an acquire later set that very token again.
     */
    public Object eval(String scriptName, String source, List<String> keys, List<String> argv) {
        Object reply;
        inScript = true;
        try {
            reply = LuaShim.forThread().run(this, source, keys, argv);
        } finally {
            inScript = false;
            propagate();
        }
        if (keys.isEmpty() || argv.isEmpty()) {
            return reply;
        }
        if (scriptName.equals("release.lua")) {
            String lease = keys.get(0) + " " + argv.get(0);
            releasedAt.put(lease, world().now());
            orphans.remove(lease);
        } else if (scriptName.equals("acquire.lua") && granted(reply)) {
            String lease = keys.get(0) + " " + argv.get(0);
            Long released = releasedAt.get(lease);
            if (released != null) {
                orphans.put(
                        lease,
                        "node " + name + ": key " + keys.get(0) + " set to token "
                                + argv.get(0)
                                        .substring(0, Math.min(8, argv.get(0).length())) + "… at "
                                + world().now() / 1_000_000
                                + " ms, after a release of that token ran here at " + released / 1_000_000 + " ms");
            }
        }
        return reply;
    }

    private static boolean granted(Object reply) {
        Object first = reply instanceof List ? ((List<?>) reply).get(0) : reply;
        return Long.valueOf(1).equals(first);
    }

    /** The keys matching a SCAN {@code MATCH} pattern ({@code *}, {@code ?} and backslash escapes) of one type. */
    public List<String> scan(String glob, String type) {
        Pattern p = Pattern.compile(globToRegex(glob), Pattern.DOTALL);
        List<String> out = new ArrayList<>();
        for (String k : new ArrayList<>(data.keySet())) {
            Object v = lookup(k);
            boolean typed = v != null
                    && ("hash".equals(type)
                            ? v instanceof Map
                            : "zset".equals(type) ? v instanceof ZSet : v instanceof String);
            if (typed && p.matcher(k).matches()) {
                out.add(k);
            }
        }
        out.sort(null);
        return out;
    }

    private static String globToRegex(String glob) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\' && i + 1 < glob.length()) {
                b.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
            } else if (c == '*') {
                b.append(".*");
            } else if (c == '?') {
                b.append('.');
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return b.toString();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
