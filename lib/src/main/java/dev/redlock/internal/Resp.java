package dev.redlock.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The subset of RESP2 the lock path needs: commands encoded as arrays of bulk strings, and an incremental parser for
 * every reply type, which returns {@link #INCOMPLETE} (consuming nothing) until a whole reply is buffered.
 */
final class Resp {

    /** Returned by {@link #parse} when the buffer does not yet hold a whole reply. */
    static final Object INCOMPLETE = new Object();

    /** An error reply ({@code -ERR ...}, {@code -NOSCRIPT ...}). */
    static final class ErrorReply {
        final String message;

        ErrorReply(String message) {
            this.message = message;
        }

        boolean isNoScript() {
            return message.startsWith("NOSCRIPT");
        }

        @Override
        public String toString() {
            return message;
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};

    private Resp() {
    }

    /** Bytes of a command; the caller writes them as one unit so commands never interleave on a connection. */
    static byte[] encode(String... args) {
        byte[][] raw = new byte[args.length][];
        int size = 1 + digits(args.length) + 2;
        for (int i = 0; i < args.length; i++) {
            raw[i] = args[i].getBytes(StandardCharsets.UTF_8);
            size += 1 + digits(raw[i].length) + 2 + raw[i].length + 2;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put((byte) '*');
        putLong(b, args.length);
        b.put(CRLF);
        for (byte[] arg : raw) {
            b.put((byte) '$');
            putLong(b, arg.length);
            b.put(CRLF);
            b.put(arg);
            b.put(CRLF);
        }
        return b.array();
    }

    private static int digits(long v) {
        int d = 1;
        while (v >= 10) {
            v /= 10;
            d++;
        }
        return d;
    }

    private static void putLong(ByteBuffer b, long v) {
        int d = digits(v);
        int start = b.position();
        for (int i = d - 1; i >= 0; i--) {
            b.put(start + i, (byte) ('0' + (v % 10)));
            v /= 10;
        }
        b.position(start + d);
    }

    /**
     * Parses one reply starting at the buffer's position. On success the position moves past it; on
     * {@link #INCOMPLETE} it is left unchanged. Simple strings become {@link String}, integers {@link Long}, bulk
     * strings {@code byte[]} (or {@code null}), arrays {@link List} (or {@code null}), errors {@link ErrorReply}.
     *
     * @throws IllegalStateException on bytes that are not RESP: the connection is out of step and must be dropped
     */
    static Object parse(ByteBuffer in) {
        int start = in.position();
        Object reply = parseAt(in);
        if (reply == INCOMPLETE) {
            in.position(start);
        }
        return reply;
    }

    private static Object parseAt(ByteBuffer in) {
        if (!in.hasRemaining()) {
            return INCOMPLETE;
        }
        byte type = in.get();
        switch (type) {
            case '+': {
                String line = line(in);
                return line == null ? INCOMPLETE : line;
            }
            case '-': {
                String line = line(in);
                return line == null ? INCOMPLETE : new ErrorReply(line);
            }
            case ':': {
                String line = line(in);
                return line == null ? INCOMPLETE : (Object) Long.parseLong(line);
            }
            case '$': {
                String line = line(in);
                if (line == null) {
                    return INCOMPLETE;
                }
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                if (in.remaining() < len + 2) {
                    return INCOMPLETE;
                }
                byte[] data = new byte[len];
                in.get(data);
                in.position(in.position() + 2);
                return data;
            }
            case '*': {
                String line = line(in);
                if (line == null) {
                    return INCOMPLETE;
                }
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    Object item = parseAt(in);
                    if (item == INCOMPLETE) {
                        return INCOMPLETE;
                    }
                    items.add(item);
                }
                return items;
            }
            default:
                throw new IllegalStateException("not a RESP reply: type byte " + type);
        }
    }

    /** Reads up to CRLF; null (position undefined) if the line is not complete yet. */
    private static String line(ByteBuffer in) {
        int start = in.position();
        for (int i = start; i < in.limit() - 1; i++) {
            if (in.get(i) == '\r' && in.get(i + 1) == '\n') {
                byte[] bytes = new byte[i - start];
                in.get(bytes);
                in.position(i + 2);
                return new String(bytes, StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
