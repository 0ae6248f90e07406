/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

/**
 * Where the lock keys that have waiters are subscribed to release notifications (the nodes publish each release); a
 * no-op when notifications are off. The engine's wait room calls it; the node clients' subscriber implements it.
 */
public interface Subscriptions {
    Subscriptions NONE = new Subscriptions() {
        @Override
        public void subscribe(String key) {}

        @Override
        public void unsubscribe(String key) {}
    };

    /** Subscriptions forwarded to those {@code current} returns at each call (set later than the room is made). */
    static Subscriptions via(java.util.function.Supplier<Subscriptions> current) {
        return new Subscriptions() {
            @Override
            public void subscribe(String key) {
                current.get().subscribe(key);
            }

            @Override
            public void unsubscribe(String key) {
                current.get().unsubscribe(key);
            }

            @Override
            public void subscribe(String key, java.util.Set<String> nodes) {
                current.get().subscribe(key, nodes);
            }

            @Override
            public int listening() {
                return current.get().listening();
            }

            @Override
            public int listening(java.util.Set<String> nodes) {
                return current.get().listening(nodes);
            }

            @Override
            public int confirmed(String channel) {
                return current.get().confirmed(channel);
            }
        };
    }

    /** Where a client's release notifications come from: its nodes' subscriber connections, or simulated ones. */
    interface Source {
        /**
         * Starts listening. Call once, before the first key is subscribed.
         *
         * @param onRelease called with a released key (the channel) and the payload its release published, unchanged;
         *     with a channel and a null payload when a node confirms a subscription to it; and with a null channel
         *     (and payload) when a node's connection was lost with subscriptions it had confirmed (they no longer
         *     count in {@link Subscriptions#confirmed}); must not block
         * @return where the keys that have waiters are subscribed
         */
        Subscriptions listen(java.util.function.BiConsumer<String, String> onRelease);
    }

    /** The key got its first waiter; never blocks. */
    void subscribe(String key);

    /**
     * The key got its first waiter, and its releases are published by the nodes named in {@code nodes} only (a lock
     * placed on some of the nodes): subscribes there, not on the others, whose confirmations would count toward a
     * majority that never hears the key's releases. Never blocks.
     *
     * @param nodes the names of the nodes the key lives on; null for every node
     */
    default void subscribe(String key, java.util.Set<String> nodes) {
        subscribe(key);
    }

    /** The key's last waiter left; never blocks. */
    void unsubscribe(String key);

    /**
     * How many nodes this client hears releases from now (subscriber connections up and subscribed): a waiter whose
     * client hears too few of them for a quorum polls as often as if there were no notifications. 0 by default.
     */
    default int listening() {
        return 0;
    }

    /**
     * As {@link #listening()}, counting only the nodes named in {@code nodes} (null: every node).
     *
     * @param nodes the names of the nodes a key lives on
     */
    default int listening(java.util.Set<String> nodes) {
        return listening();
    }

    /**
     * How many nodes confirmed this client's subscription to {@code channel} on their current subscriber connection:
     * each node counts once, however often it reconnected and confirmed again, and no longer once its connection is
     * lost or the channel unsubscribed. 0 by default.
     *
     * @param channel a channel as subscribed (a key, or a key followed by the client's id)
     * @return the number of distinct nodes
     */
    default int confirmed(String channel) {
        return 0;
    }
}
