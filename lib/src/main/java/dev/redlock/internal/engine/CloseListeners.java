/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/** Tasks to run once when a client closes, each exactly once however closing and adding race. Thread-safe. */
final class CloseListeners {

    private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();

    /**
     * Adds {@code listener}; if {@code closed} already holds, runs it now (unless {@link #runAll} took it first).
     *
     * @return false if the client was closed already (the listener has run)
     */
    boolean add(Runnable listener, BooleanSupplier closed) {
        listeners.add(listener);
        if (closed.getAsBoolean() && listeners.remove(listener)) {
            listener.run();
            return false;
        }
        return true;
    }

    void remove(Runnable listener) {
        listeners.remove(listener);
    }

    /** Runs every listener added so far, each once; call after the closed flag is set. */
    void runAll() {
        for (Runnable listener : listeners.toArray(new Runnable[0])) {
            if (listeners.remove(listener)) {
                listener.run();
            }
        }
    }
}
