/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.util.concurrent.TimeoutException;

/**
 * Exceptions the engine creates for expected, frequent events (a node that did not answer in time, an op that was
 * never sent, an open circuit). They carry a message and a cause but no stack trace: the stack of a timer thread says
 * nothing useful, and filling it in on every timed-out node would cost more than the round itself.
 */
public final class QuietException {

    private QuietException() {}

    /** How a message names the node's last failure: the server's own text (a refusal such as WRONGPASS) stays. */
    static String last(Throwable lastFailure) {
        if (lastFailure == null) {
            return "";
        }
        if (lastFailure instanceof TlsFailure) {
            return "; last failure: " + lastFailure.getMessage(); // our own sentence, bounded
        }
        String text = lastFailure.getClass().getSimpleName() + ": " + lastFailure.getMessage();
        return "; last failure: " + (text.length() > 200 ? text.substring(0, 200) + "…" : text);
    }

    /** No reply within the per-node timeout. */
    public static final class NodeTimeout extends TimeoutException {
        private static final long serialVersionUID = 1L;

        public NodeTimeout(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * A TLS connection could not be set up: the message says why (unknown authority, expired certificate, host name
     * mismatch, a port that does not speak TLS) and what to do; the cause is the JDK's exception.
     */
    public static final class TlsFailure extends javax.net.ssl.SSLException {
        private static final long serialVersionUID = 1L;

        TlsFailure(String message, Throwable cause) {
            super(message, cause);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** The op was still queued when its round gave up (or the client closed), so it was never sent. */
    public static final class NotSent extends TimeoutException {
        private static final long serialVersionUID = 1L;

        public NotSent(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * No connection to the node right now (connect failed, reconnect back-off); the cause is the last failure, and the
     * message says it too, so an outcome tells why (a refused password, a refused connection) without the log.
     */
    public static final class NotConnected extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public NotConnected(String message, Throwable lastFailure) {
            super(message + last(lastFailure), lastFailure);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** The node's circuit breaker is open; the cause is the node's last failure, if any. */
    public static final class CircuitOpen extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        CircuitOpen(String message, Throwable lastFailure) {
            super(message + last(lastFailure), lastFailure);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /** The node granted, but its vote does not count: it may have lost data recently, or its identity is unknown. */
    public static final class Quarantined extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public Quarantined(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
