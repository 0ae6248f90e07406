/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * Base class of this library's unchecked exceptions. Contention is never reported with an exception: a lock that is
 * busy yields {@code false} or an empty result.
 */
public class RedlockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception.
     *
     * @param message what happened
     * @param cause the underlying cause, or {@code null}
     */
    public RedlockException(String message, Throwable cause) {
        super(message, cause);
    }
}
