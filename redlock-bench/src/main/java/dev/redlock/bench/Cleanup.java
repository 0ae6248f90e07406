/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/** Cleanup steps that must reach every item (every client closed, every lock released) even when one of them fails. */
final class Cleanup {

    private Cleanup() {}

    /** Runs {@code step} on every item in order, then throws the first failure with the later ones suppressed. */
    static <T> void each(List<? extends T> items, Consumer<? super T> step) {
        RuntimeException failure = null;
        for (T item : items) {
            try {
                step.accept(item);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Opens {@code count} items in order ({@code open} gets the index); if one cannot be opened, hands those that were
     * to {@code closeAll} and throws, so nothing opened leaks.
     */
    static <T> List<T> openAll(int count, IntFunction<? extends T> open, Consumer<? super List<T>> closeAll) {
        List<T> items = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                items.add(open.apply(i));
            }
        } catch (RuntimeException e) {
            try {
                closeAll.accept(items);
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        return items;
    }

    /** As {@link #each}, last item first: undoes steps in the reverse order they were taken. */
    static <T> void eachInReverse(List<? extends T> items, Consumer<? super T> step) {
        List<T> reversed = new ArrayList<>(items);
        Collections.reverse(reversed);
        each(reversed, step);
    }
}
