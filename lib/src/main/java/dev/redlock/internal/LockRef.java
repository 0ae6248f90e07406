package dev.redlock.internal;

import dev.redlock.QuorumPolicy;

/** Identifies one lock: its name, its Redis key and the quorum policy it runs under. */
public record LockRef(String name, String key, QuorumPolicy policy) {

    /** The key of lock {@code name}: the braces make the name a Redis Cluster hash tag. */
    public static String keyOf(String prefix, String name) {
        return prefix + "{" + name + "}";
    }
}
