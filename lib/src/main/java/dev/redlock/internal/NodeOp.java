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
        EXTEND
    }

    final Kind kind;
    final String key;
    final String token;
    final long ttlMillis;
    /** Ticker time after which sending is useless (the round gave up, or the key has expired anyway). */
    final long sendByNanos;
    private final Round round;
    private final int index;
    /** Set by the node when a circuit-breaker permission was taken for this op, so it is returned exactly once. */
    boolean permitted;
    long sentAtNanos;
    /** Set after a NOSCRIPT reply: the next send uses EVAL with the script's source. */
    boolean evalFallback;

    NodeOp(Kind kind, String key, String token, long ttlMillis, long sendByNanos, Round round, int index) {
        this.kind = kind;
        this.key = key;
        this.token = token;
        this.ttlMillis = ttlMillis;
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
        round.onReply(index, status, error);
    }

    /** The command as RESP bytes: SET NX PX for an acquire, the script by SHA-1 (or source after NOSCRIPT). */
    byte[] encoded() {
        switch (kind) {
            case ACQUIRE:
                return Resp.encode("SET", key, token, "NX", "PX", Long.toString(ttlMillis));
            case RELEASE:
                return evalFallback
                        ? Resp.encode("EVAL", LuaScript.RELEASE.source(), "1", key, token)
                        : Resp.encode("EVALSHA", LuaScript.RELEASE.sha1(), "1", key, token);
            case EXTEND:
                return evalFallback
                        ? Resp.encode("EVAL", LuaScript.EXTEND.source(), "1", key, token, Long.toString(ttlMillis))
                        : Resp.encode("EVALSHA", LuaScript.EXTEND.sha1(), "1", key, token, Long.toString(ttlMillis));
            default:
                throw new IllegalStateException("unknown op " + kind);
        }
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
