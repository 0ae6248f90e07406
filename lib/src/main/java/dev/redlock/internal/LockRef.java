package dev.redlock.internal;

import dev.redlock.QuorumPolicy;

/**
 * Identifies one lock: its name, its Redis key, the quorum policy it runs under, and whether its leases carry
 * fencing tokens.
 */
public record LockRef(String name, String key, QuorumPolicy policy, boolean fenced) {

    public LockRef(String name, String key, QuorumPolicy policy) {
        this(name, key, policy, false);
    }

    /** The key of lock {@code name}: the braces make the name a Redis Cluster hash tag. */
    public static String keyOf(String prefix, String name) {
        return prefix + "{" + name + "}";
    }

    /**
     * Checks that {@code text} goes to Redis unchanged and within {@code maxBytes}: keys travel as UTF-8, and an
     * unpaired surrogate has no UTF-8 form (it would be sent as '?', so two texts could share one key).
     *
     * @param field the name to report
     * @param what what the text is, for the message ("a lock name")
     * @param text the text to check
     * @param maxBytes the largest allowed UTF-8 length, in bytes
     * @return the UTF-8 length of {@code text}, in bytes
     * @throws IllegalArgumentException naming the field and the index of an unpaired surrogate, or the limit and
     *         the actual UTF-8 length
     */
    public static int checkUtf8(String field, String what, String text, int maxBytes) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                throw new IllegalArgumentException(field + ": " + what + " must be valid Unicode, but has an unpaired "
                        + "surrogate U+" + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT) + " at index " + i
                        + " (it has no UTF-8 form: it would reach Redis as '?', so two different values could share "
                        + "one key)");
            }
        }
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(field + ": " + what + " must be at most " + maxBytes
                    + " UTF-8 bytes, got " + bytes + " bytes (" + text.length() + " chars)");
        }
        return (int) bytes;
    }

    /** The lock's fencing counter: same hash tag as the lock key, so both live in one slot on a cluster. */
    public String counterKey() {
        return key + ":fence";
    }

    /** The same lock, with or without fencing. */
    public LockRef withFencing(boolean on) {
        return new LockRef(name, key, policy, on);
    }
}
