package dev.redlock.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Owner tokens: 128 bits from {@link SecureRandom}, hex encoded. Unique per acquisition round. */
public final class Tokens {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private Tokens() {
    }

    public static String next() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    /** The part of a token that is safe to log: enough to correlate, too little to release someone's lock. */
    public static String prefix(String token) {
        return token.length() <= 8 ? token : token.substring(0, 8);
    }
}
