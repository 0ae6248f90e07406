/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.LockLostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The leases a client handed out and that are neither released nor lost; and their start and end. Thread-safe. */
final class Leases {

    private final QuorumEngine engine;
    /** Expired ones are dropped when counted. */
    private final Set<DefaultLease> active = ConcurrentHashMap.newKeySet();

    Leases(QuorumEngine engine) {
        this.engine = engine;
    }

    /** How many are held: handed out, neither released nor lost, and still valid. */
    int held() {
        active.removeIf(l -> !l.isValid());
        return active.size();
    }

    /**
     * Hands out a won lease: counted, and the watchdog takes over an auto-extended one.
     *
     * @param thread the name of the thread that asked for it, for inspections of the lock
     */
    void started(DefaultLease lease, boolean autoExtend, String thread) {
        lease.heldBy(thread, System.currentTimeMillis()); // wall clock: shown to operators, never decides anything
        active.add(lease);
        if (autoExtend) {
            lease.autoExtended(true);
            engine.watchdog.start(lease);
        }
    }

    /** The leases held now (a snapshot; some may have just ended). */
    DefaultLease[] snapshot() {
        return active.toArray(new DefaultLease[0]);
    }

    /** The lease was released or lost: no longer counted, and listeners hear of a loss. */
    void ended(DefaultLease lease, LockLostException lost) {
        active.remove(lease);
        if (lost != null && !engine.listeners.isEmpty()) {
            engine.tell(l -> l.leaseLost(lease, lost));
        }
    }
}
