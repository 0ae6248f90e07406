/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * A waiter for the release of any of several lock keys (a semaphore's permits): it is in this client's wait queue of
 * each key, so a release of any of them, by this client or heard from the nodes, signals it. Thread-safe; close it
 * when the wait ends, or the keys keep a waiter (and their subscriptions) for good.
 */
public final class ReleaseWatch implements AutoCloseable {
    private final WaitRoom room;
    private final List<WaitRoom.Waiter> waiters;

    ReleaseWatch(WaitRoom room, List<String> keys, Runnable wake) {
        this.room = room;
        this.waiters = new ArrayList<>(keys.size());
        for (String key : keys) {
            waiters.add(room.joinAsync(key, wake));
        }
    }

    /**
     * Takes the signals this watch holds.
     *
     * @return whether a release was signalled since the last call
     */
    public boolean takeSignal() {
        boolean any = false;
        for (WaitRoom.Waiter w : waiters) {
            any |= room.consumeSignal(w);
        }
        return any;
    }

    /**
     * Whether a release was signalled since signals were last taken, without taking them.
     *
     * @return whether a signal is held
     */
    public boolean signalled() {
        for (WaitRoom.Waiter w : waiters) {
            if (room.signalled(w)) {
                return true;
            }
        }
        return false;
    }

    /** Leaves every key's wait queue; a signal this watch did not use goes to the key's next waiter. Idempotent. */
    @Override
    public void close() {
        for (WaitRoom.Waiter w : waiters) {
            room.leave(w, false);
        }
    }
}
