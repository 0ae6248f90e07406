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

    /** The lock's fencing counter: same hash tag as the lock key, so both live in one slot on a cluster. */
    public String counterKey() {
        return key + ":fence";
    }

    /** The same lock, with or without fencing. */
    public LockRef withFencing(boolean on) {
        return new LockRef(name, key, policy, on);
    }
}
