package dev.redlock.internal;

import dev.redlock.NodeStatus;

/**
 * One command for one node, belonging to one {@link Round}. Completed exactly once, by whichever thread learns its
 * outcome (the node's I/O thread, or the submitter when it is rejected up front).
 */
public final class NodeOp {

    /** What the command does; each maps to one Redis command or script call. */
    public enum Kind {
        /** {@code SET key token NX PX ttl}. */
        ACQUIRE,
        /** {@code release.lua}: compare-and-delete. */
        RELEASE,
        /** {@code extend.lua}: compare-and-expire. */
        EXTEND,
        /** {@code acquire_fenced.lua}: SET NX PX, returning the node's fencing counter when granted. */
        ACQUIRE_FENCED,
        /** {@code fence.lua}: raise the fencing counter to a candidate while the key still holds our token. */
        FENCE
    }

    final Kind kind;
    final String key;
    final String token;
    final long ttlMillis;
    /** The fencing counter's key, for the fenced kinds; null otherwise. */
    final String counterKey;
    /** The candidate fencing token of a {@link Kind#FENCE}. */
    final long candidate;
    /** The number a node answered besides its vote: its fencing counter, for {@link Kind#ACQUIRE_FENCED}. */
    long value = -1;
    /** Ticker time after which sending is useless (the round gave up, or the key has expired anyway). */
    final long sendByNanos;
    private final Round round;
    private final int index;
    /** Set by the node when a circuit-breaker permission was taken for this op, so it is returned exactly once. */
    boolean permitted;
    long sentAtNanos;
    /** Set after a NOSCRIPT reply: the next send uses EVAL with the script's source. */
    boolean evalFallback;

    NodeOp(Kind kind, String key, String token, long ttlMillis, long sendByNanos, Round round, int index,
            String counterKey, long candidate) {
        this.kind = kind;
        this.key = key;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.counterKey = counterKey;
        this.candidate = candidate;
        this.sendByNanos = sendByNanos;
        this.round = round;
        this.index = index;
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

    /** Reports this node's answer to the round. */
    public void complete(NodeStatus status, Throwable error) {
        round.onReply(index, status, error, value);
    }

    /** The command as RESP bytes: SET NX PX for a plain acquire, a script by SHA-1 (or source after NOSCRIPT). */
    byte[] encoded() {
        return Resp.encode(arguments());
    }

    /** The arguments of this op's command, for clients that build their own (Jedis). */
    String[] arguments() {
        switch (kind) {
            case ACQUIRE:
                return new String[] {"SET", key, token, "NX", "PX", Long.toString(ttlMillis)};
            case RELEASE:
                return scriptArgs(LuaScript.RELEASE, 1, key, token);
            case EXTEND:
                return scriptArgs(LuaScript.EXTEND, 1, key, token, Long.toString(ttlMillis));
            case ACQUIRE_FENCED:
                return scriptArgs(LuaScript.ACQUIRE_FENCED, 2, key, counterKey, token, Long.toString(ttlMillis));
            case FENCE:
                return scriptArgs(LuaScript.FENCE, 2, key, counterKey, token, Long.toString(candidate));
            default:
                throw new IllegalStateException("unknown op " + kind);
        }
    }

    private String[] scriptArgs(LuaScript script, int keys, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = evalFallback ? "EVAL" : "EVALSHA";
        all[1] = evalFallback ? script.source() : script.sha1();
        all[2] = Integer.toString(keys);
        System.arraycopy(args, 0, all, 3, args.length);
        return all;
    }

    /** Maps a raw Redis reply to this op's status. */
    NodeStatus statusOf(Object reply) {
        if (kind == Kind.ACQUIRE) {
            if (reply == null) {
                return NodeStatus.TAKEN;
            }
            // Strict on purpose: any other reply means the connection is out of step with its commands.
            if (isOk(reply)) {
                return NodeStatus.GRANTED;
            }
            throw new IllegalStateException("unexpected reply to SET NX: " + describe(reply));
        }
        long code = reply instanceof Long ? (Long) reply : Long.MIN_VALUE;
        if (kind == Kind.ACQUIRE_FENCED) {
            if (code >= 0) {
                value = code;
                return NodeStatus.GRANTED;
            }
            if (code == -1) {
                return NodeStatus.TAKEN;
            }
            throw new IllegalStateException("unexpected reply to " + kind + ": " + describe(reply));
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

    private static boolean isOk(Object reply) {
        if (reply instanceof byte[]) {
            byte[] b = (byte[]) reply;
            return b.length == 2 && b[0] == 'O' && b[1] == 'K';
        }
        return "OK".equals(reply);
    }

    private static String describe(Object reply) {
        return reply instanceof byte[] ? new String((byte[]) reply, java.nio.charset.StandardCharsets.UTF_8)
                : String.valueOf(reply);
    }
}
