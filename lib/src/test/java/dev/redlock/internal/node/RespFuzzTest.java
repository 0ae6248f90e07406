/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reply parser against hostile bytes: random and mutated replies, fed in random pieces as a socket would deliver
 * them. Whatever arrives, the parser returns a reply, asks for more, or throws its {@link Resp.ProtocolException};
 * nothing else, and it never allocates beyond what its limits allow. The seed is printed; {@code -Dresp.seed=N}
 * replays it.
 */
class RespFuzzTest {

    private static final int CASES = 100_000;
    private static final Resp.Limits LIMITS = Resp.Limits.DEFAULT;
    /** The most one parse may allocate: a reply at the limits, twice over, plus slack for the small objects. */
    private static final long ALLOCATION_BOUND = 2L * LIMITS.maxReplyBytes() + 256 * 1024;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void hostileRepliesOnlyEverGiveAProtocolError() {
        Long given = Long.getLong("resp.seed");
        long seed = given != null ? given : new SecureRandom().nextLong();
        System.out.printf("[resp-fuzz] seed=%d (replay with -Dresp.seed=%d)%n", seed, seed);
        Random random = new Random(seed);
        int parsed = 0;
        int rejected = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] bytes = random.nextInt(4) == 0 ? valid(random) : mutated(random);
            try {
                parsed += feed(bytes, random);
            } catch (Resp.ProtocolException e) {
                rejected++;
            } catch (Throwable t) {
                fail("case " + i + " (seed " + seed + "): " + t + " on " + show(bytes), t);
            }
        }
        System.out.printf(
                "[resp-fuzz] %d cases: %d replies parsed, %d connections rejected%n", CASES, parsed, rejected);
        assertTrue(parsed > 0 && rejected > 0, "the generator made both kinds");
    }

    /**
     * Feeds bytes in random pieces into a buffer that grows like a connection's, at most to the largest reply the
     * limits allow; returns how many replies came out.
     */
    private static int feed(byte[] bytes, Random random) throws Resp.ProtocolException {
        ByteBuffer in = ByteBuffer.allocate(64);
        int at = 0;
        int replies = 0;
        while (at < bytes.length) {
            int piece = Math.min(bytes.length - at, 1 + random.nextInt(300));
            while (in.remaining() < piece) {
                if (in.capacity() >= LIMITS.maxReplyBytes()) {
                    throw new Resp.ProtocolException("a reply longer than the limit");
                }
                ByteBuffer bigger = ByteBuffer.allocate(Math.min(in.capacity() * 2, LIMITS.maxReplyBytes()));
                in.flip();
                bigger.put(in);
                in = bigger;
            }
            in.put(bytes, at, piece);
            at += piece;
            in.flip();
            while (true) {
                long before = THREADS.getCurrentThreadAllocatedBytes();
                Object reply = Resp.parse(in, LIMITS);
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
                assertTrue(allocated <= ALLOCATION_BOUND, "one parse allocated " + allocated + " bytes");
                if (reply == Resp.INCOMPLETE) {
                    break;
                }
                replies++;
            }
            in.compact();
        }
        return replies;
    }

    // ------------------------------------------------------------------------------------------------ generator

    /** A reply the library could get: one to three scalars or flat arrays, within the limits. */
    private static byte[] valid(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            if (random.nextInt(4) == 0) {
                int len = random.nextInt(LIMITS.maxArrayLength + 1);
                write(out, "*" + len + "\r\n");
                for (int j = 0; j < len; j++) {
                    scalar(out, random);
                }
            } else {
                scalar(out, random);
            }
        }
        return out.toByteArray();
    }

    private static void scalar(ByteArrayOutputStream out, Random random) {
        switch (random.nextInt(5)) {
            case 0:
                write(out, "+" + text(random, random.nextInt(40)) + "\r\n");
                break;
            case 1:
                write(out, "-ERR " + text(random, random.nextInt(80)) + "\r\n");
                break;
            case 2:
                write(out, ":" + (random.nextBoolean() ? random.nextLong() : random.nextInt(3) - 1) + "\r\n");
                break;
            case 3:
                write(out, "$-1\r\n");
                break;
            default:
                int len = random.nextInt(10) == 0 ? random.nextInt(LIMITS.maxBulkBytes + 1) : random.nextInt(200);
                byte[] data = new byte[len];
                random.nextBytes(data);
                write(out, "$" + len + "\r\n");
                out.writeBytes(data);
                write(out, "\r\n");
        }
    }

    /** A valid reply broken the ways a hostile or broken node would break it. */
    private static byte[] mutated(Random random) {
        byte[] base = valid(random);
        switch (random.nextInt(9)) {
            case 0: // flipped bytes
                for (int k = 0, m = 1 + random.nextInt(4); k < m; k++) {
                    base[random.nextInt(base.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return base;
            case 1: // cut short
                return java.util.Arrays.copyOf(base, random.nextInt(base.length));
            case 2: // random bytes
                byte[] noise = new byte[1 + random.nextInt(400)];
                random.nextBytes(noise);
                return noise;
            case 3: // a header that claims too much
                String[] huge = {
                    "*2147483647\r\n",
                    "$2147483647\r\n",
                    "*-7\r\n",
                    "$-2\r\n",
                    "$99999999999999999999\r\n",
                    ":99999999999999999999\r\n",
                    "*17\r\n",
                    "$" + (LIMITS.maxBulkBytes + 1) + "\r\n",
                    ":-\r\n",
                    ":1x\r\n"
                };
                return concat(huge[random.nextInt(huge.length)].getBytes(StandardCharsets.US_ASCII), base);
            case 4: // deep nesting, now and then 200,000 levels
                int depth = random.nextInt(100) == 0 ? 200_000 : 1 + random.nextInt(random.nextBoolean() ? 100 : 5_000);
                return ("*1\r\n".repeat(depth) + ":1\r\n").getBytes(StandardCharsets.US_ASCII);
            case 5: // an endless line
                byte[] line = new byte[LIMITS.maxLineBytes + 1 + random.nextInt(20_000)];
                java.util.Arrays.fill(line, (byte) 'x');
                line[0] = (byte) "+-:$*".charAt(random.nextInt(5));
                return line;
            case 6: // RESP3 and other type bytes
                String[] types = {
                    "%1\r\n",
                    "_\r\n",
                    ",1.5\r\n",
                    "#t\r\n",
                    "(123\r\n",
                    "=5\r\ntxt:x\r\n",
                    "~1\r\n",
                    ">2\r\n",
                    "|1\r\n",
                    "!3\r\nERR\r\n"
                };
                return concat(types[random.nextInt(types.length)].getBytes(StandardCharsets.US_ASCII), base);
            case 7: // a bulk string whose terminator is wrong
                return "$3\r\nabcXY".getBytes(StandardCharsets.US_ASCII);
            default: // a CR without LF
                return concat(base, "+OK\rX\n".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static String text(Random random, int len) {
        StringBuilder b = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            b.append((char) (' ' + random.nextInt(95)));
        }
        return b.toString();
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static String show(byte[] bytes) {
        String s = new String(bytes, 0, Math.min(bytes.length, 120), StandardCharsets.ISO_8859_1);
        return "'" + s.replace("\r", "\\r").replace("\n", "\\n") + "'" + (bytes.length > 120 ? "…" : "");
    }

    // ------------------------------------------------------------------------------------------------ known cases

    private static Object parseAll(String reply) throws Resp.ProtocolException {
        return Resp.parse(ByteBuffer.wrap(reply.getBytes(StandardCharsets.UTF_8)), LIMITS);
    }

    @Test
    void theRepliesTheLibraryExpectsParse() throws Exception {
        assertEquals(1L, parseAll(":1\r\n"));
        assertEquals(-1L, parseAll(":-1\r\n"));
        assertEquals("OK", parseAll("+OK\r\n"));
        assertEquals(
                "NOSCRIPT No matching script",
                ((Resp.ErrorReply) parseAll("-NOSCRIPT No matching script\r\n")).message);
        assertEquals(null, parseAll("$-1\r\n"));
        assertEquals(List.of(1L, 0L, 1L, 1L), parseAll("*4\r\n:1\r\n:0\r\n:1\r\n:1\r\n"));
        assertEquals(Resp.INCOMPLETE, parseAll("*7\r\n:1\r\n:0\r\n"));
        assertEquals(Resp.INCOMPLETE, parseAll("$5\r\nab"));
    }

    @Test
    void hostileHeadersAreRejectedBeforeAnythingIsAllocated() {
        for (String hostile : List.of(
                "*2147483647\r\n",
                "$2147483647\r\n",
                "*1\r\n*1\r\n:1\r\n",
                "$-5\r\n",
                ":12a\r\n",
                "%1\r\n",
                "+" + "x".repeat(LIMITS.maxLineBytes + 2))) {
            long before = THREADS.getCurrentThreadAllocatedBytes();
            assertThrows(Resp.ProtocolException.class, () -> parseAll(hostile), hostile);
            assertTrue(THREADS.getCurrentThreadAllocatedBytes() - before < 1024 * 1024, hostile);
        }
    }
}
