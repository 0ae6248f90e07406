/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.random.RandomGenerator;

/** Owner tokens: 128 bits from {@link SecureRandom}, hex encoded. Unique per acquisition round. */
public final class Tokens {

    /** The default random source of a client: tokens must not be guessable by another client. Thread-safe. */
    public static final SecureRandom SECURE = new SecureRandom();

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
