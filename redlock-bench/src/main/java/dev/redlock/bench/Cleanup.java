package dev.redlock.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

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

    /** As {@link #each}, last item first: undoes steps in the reverse order they were taken. */
    static <T> void eachInReverse(List<? extends T> items, Consumer<? super T> step) {
        List<T> reversed = new ArrayList<>(items);
        Collections.reverse(reversed);
        each(reversed, step);
    }
}
