/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The subset of RESP2 the lock path needs: commands encoded as arrays of bulk strings, and an incremental parser for
 * replies, which returns {@link #INCOMPLETE} (consuming nothing) until a whole reply is buffered.
 *
 * <p>The parser trusts nothing a node sends. It knows the shape of every reply the library asks for (an integer, a
 * status, an error line, a bulk string such as INFO, a flat array of at most a few scalars), so it enforces
 * {@link Limits}: a reply that claims more (a huge array or bulk length, nesting, an endless line, a type byte that is
 * not RESP2, a malformed number or terminator) is a {@link ProtocolException}, raised before anything is allocated for
 * it. Hand-written rather than borrowed: it is the hot path of every reply, and a general-purpose parser would not know
 * these limits.
 */
public final class Resp {

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

    /** Bytes from a node that are not a reply the library can expect: the connection is dropped. */
    public static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolException(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // the node's bytes say what went wrong; the parser's stack does not
        }
    }

    /** What a reply may claim. Immutable. */
    static final class Limits {
        /** Defaults: flat arrays of at most 16 elements, bulk strings of at most 64 KiB, lines of at most 4 KiB. */
        static final Limits DEFAULT = new Limits(16, 64 * 1024, 1, 4096);

        final int maxArrayLength;
        final int maxBulkBytes;
        final int maxDepth;
        final int maxLineBytes;

        Limits(int maxArrayLength, int maxBulkBytes, int maxDepth, int maxLineBytes) {
            this.maxArrayLength = maxArrayLength;
            this.maxBulkBytes = maxBulkBytes;
            this.maxDepth = maxDepth;
            this.maxLineBytes = maxLineBytes;
        }

        /** Limits with another bulk string limit. */
        Limits withMaxBulkBytes(int bytes) {
            return new Limits(maxArrayLength, bytes, maxDepth, maxLineBytes);
        }

        /** The most bytes one reply within these limits can take: what a read buffer ever needs to hold. */
        int maxReplyBytes() {
            long element = Math.max((long) maxBulkBytes + 24, (long) maxLineBytes + 3);
            long total = maxLineBytes + 3 + element * Math.max(1, (long) Math.pow(maxArrayLength, maxDepth));
            return (int) Math.min(Integer.MAX_VALUE - 16, total);
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};

    private Resp() {}

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

    /** Parses one reply within the default limits; see {@link #parse(ByteBuffer, Limits)}. */
    static Object parse(ByteBuffer in) throws ProtocolException {
        return parse(in, Limits.DEFAULT);
    }

    /**
     * Parses one reply starting at the buffer's position. On success the position moves past it; on
     * {@link #INCOMPLETE} it is left unchanged. Simple strings become {@link String}, integers {@link Long}, bulk
     * strings {@code byte[]} (or {@code null}), arrays {@link List} (or {@code null}), errors {@link ErrorReply}.
     *
     * @throws ProtocolException on bytes that are not a reply within {@code limits}; the position is then undefined
     *         and the connection must be dropped
     */
    static Object parse(ByteBuffer in, Limits limits) throws ProtocolException {
        int start = in.position();
        Object reply = parseAt(in, limits, 0);
        if (reply == INCOMPLETE) {
            in.position(start);
        }
        return reply;
    }

    private static Object parseAt(ByteBuffer in, Limits limits, int depth) throws ProtocolException {
        if (!in.hasRemaining()) {
            return INCOMPLETE;
        }
        byte type = in.get();
        switch (type) {
            case '+': {
                String line = line(in, limits);
                return line == null ? INCOMPLETE : line;
            }
            case '-': {
                String line = line(in, limits);
                return line == null ? INCOMPLETE : new ErrorReply(line);
            }
            case ':': {
                String line = line(in, limits);
                return line == null ? INCOMPLETE : (Object) number(line);
            }
            case '$': {
                String line = line(in, limits);
                if (line == null) {
                    return INCOMPLETE;
                }
                long len = number(line);
                if (len == -1) {
                    return null;
                }
                if (len < 0 || len > limits.maxBulkBytes) {
                    throw new ProtocolException(
                            "bulk string of " + line + " bytes (allowed: -1 to " + limits.maxBulkBytes + ")");
                }
                if (in.remaining() < len + 2) {
                    return INCOMPLETE;
                }
                int end = in.position() + (int) len;
                if (in.get(end) != '\r' || in.get(end + 1) != '\n') {
                    throw new ProtocolException("bulk string of " + len + " bytes not followed by CRLF");
                }
                byte[] data = new byte[(int) len];
                in.get(data);
                in.position(end + 2);
                return data;
            }
            case '*': {
                String line = line(in, limits);
                if (line == null) {
                    return INCOMPLETE;
                }
                long n = number(line);
                if (n == -1) {
                    return null;
                }
                if (n < 0 || n > limits.maxArrayLength) {
                    throw new ProtocolException(
                            "array of " + line + " elements (allowed: -1 to " + limits.maxArrayLength + ")");
                }
                if (n > 0 && depth + 1 > limits.maxDepth) {
                    throw new ProtocolException(
                            "array nested " + (depth + 1) + " deep (allowed: " + limits.maxDepth + ")");
                }
                List<Object> items = new ArrayList<>((int) n);
                for (int i = 0; i < n; i++) {
                    Object item = parseAt(in, limits, depth + 1);
                    if (item == INCOMPLETE) {
                        return INCOMPLETE;
                    }
                    items.add(item);
                }
                return items;
            }
            default:
                throw new ProtocolException("not a RESP2 reply: type byte 0x" + Integer.toHexString(type & 0xff));
        }
    }

    /** A whole signed decimal number, as RESP writes them; anything else is a protocol error. */
    private static long number(String s) throws ProtocolException {
        int i = 0;
        boolean negative = false;
        if (!s.isEmpty() && s.charAt(0) == '-') {
            negative = true;
            i = 1;
        }
        if (i == s.length() || s.length() - i > 19) {
            throw new ProtocolException("not a number: '" + abbreviate(s) + "'");
        }
        long v = 0;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                throw new ProtocolException("not a number: '" + abbreviate(s) + "'");
            }
            v = v * 10 + (c - '0');
            if (v < 0) {
                throw new ProtocolException("number out of range: '" + abbreviate(s) + "'");
            }
        }
        return negative ? -v : v;
    }

    /**
     * Reads up to CRLF; null (position undefined) if the line is not complete yet.
     *
     * @throws ProtocolException if the line is longer than the limit, or a CR is not followed by LF
     */
    private static String line(ByteBuffer in, Limits limits) throws ProtocolException {
        int start = in.position();
        int end = Math.min(in.limit(), start + limits.maxLineBytes + 1);
        for (int i = start; i < end; i++) {
            if (in.get(i) == '\r') {
                if (i + 1 >= in.limit()) {
                    return null;
                }
                if (in.get(i + 1) != '\n') {
                    throw new ProtocolException("CR not followed by LF in a reply line");
                }
                byte[] bytes = new byte[i - start];
                in.get(bytes);
                in.position(i + 2);
                return new String(bytes, StandardCharsets.UTF_8);
            }
        }
        if (in.limit() - start > limits.maxLineBytes) {
            throw new ProtocolException("reply line longer than " + limits.maxLineBytes + " bytes");
        }
        return null;
    }

    private static String abbreviate(String s) {
        return s.length() <= 24 ? s : s.substring(0, 24) + "…";
    }
}
