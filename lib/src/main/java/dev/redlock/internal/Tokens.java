/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/** Owner tokens: 128 bits from {@link SecureRandom}, hex encoded. Unique per acquisition round. */
public final class Tokens {

    /** The default random source of a client: tokens must not be guessable by another client. Thread-safe. */
    public static final SecureRandom SECURE = new SecureRandom();

    /**
     * {@link #SECURE}'s output, drawn a block at a time: what a client's rounds draw their tokens from. Thread-safe.
     */
    public static final RandomGenerator SECURE_BLOCKS = new Blocks(SECURE);

    private static final HexFormat HEX = HexFormat.of();

    private Tokens() {}

    public static String next() {
        return next(SECURE);
    }

    /** A token of 128 bits drawn from {@code random} (a simulation passes a seeded one, so a run replays). */
    public static String next(RandomGenerator random) {
        return HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
    }

    /** 64 random bits drawn from {@code random}, as 16 hex digits: a client's id, or the random half of a token. */
    public static String half(RandomGenerator random) {
        return HEX.toHexDigits(random.nextLong());
    }

    /**
     * A secure random source read a block at a time. The platform's default ({@code NativePRNG} on Linux) takes a lock,
     * reads its buffer of the OS's entropy and runs a SHA-1 step on every call: about a microsecond per token, a
     * measurable share of an uncontended round's own work. The bytes are the same generator's; one call now serves 64
     * draws. Thread-safe: a draw holds the monitor for a copy of 8 bytes.
     */
    private static final class Blocks implements RandomGenerator {
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
        private final SecureRandom source;
        private final byte[] block = new byte[512];
        private int next = block.length;

        Blocks(SecureRandom source) {
            this.source = source;
        }

        @Override
        public synchronized long nextLong() {
            if (next == block.length) {
                source.nextBytes(block);
                next = 0;
            }
            long value = (long) LONGS.get(block, next);
            next += Long.BYTES;
            return value;
        }
    }

    /** The part of a token that is safe to log: enough to correlate, too little to release someone's lock. */
    public static String prefix(String token) {
        return token.length() <= 8 ? token : token.substring(0, 8);
    }

    /**
     * {@code base} spread uniformly over {@code base * (1 ± factor)}, as resilience4j's randomized intervals are, but
     * drawn from the given random source rather than {@code Math.random()}, so that a simulated run replays.
     */
    public static long jittered(RandomGenerator random, long base, double factor) {
        return factor == 0 ? base : (long) (base * (1 - factor + 2 * factor * random.nextDouble()));
    }
}
