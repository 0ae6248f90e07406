/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both node clients do around the wire, in one place: the node's circuit breaker, its restart quarantine, its
 * health as logged, and how an op's answer is settled (recorded in the breaker, a quarantined vote marked as such,
 * failures logged at DEBUG, the op completed). Thread-safe.
 */
public final class NodeGuard {

    private static final Logger LOG = LoggerFactory.getLogger(NodeGuard.class);

    private final String name;
    private final Ticker ticker;
    private final CircuitBreaker breaker;
    private final Quarantine quarantine;
    private final Quarantine.Identity identity;
    private volatile boolean healthy = true;
    private volatile Throwable lastFailure;
    /** Where marker maintenance goes: the node's own submit. */
    private volatile java.util.function.Consumer<NodeOp> maintenance = op -> {};

    public NodeGuard(String name, RedlockConfig config, Quarantine quarantine) {
        this.name = name;
        this.ticker = config.ticker();
        this.quarantine = quarantine;
        this.identity = quarantine.identity(name);
        this.breaker = CircuitBreaker.of(
                name,
                CircuitBreakerConfig.custom()
                        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                        .slidingWindowSize(10)
                        .minimumNumberOfCalls(5)
                        .failureRateThreshold(50)
                        .waitDurationInOpenState(config.circuitOpenDuration())
                        .permittedNumberOfCallsInHalfOpenState(2)
                        // Automatic transition would start a timer thread per breaker; the next call probes instead.
                        .automaticTransitionFromOpenToHalfOpenEnabled(false)
                        .writableStackTraceEnabled(false)
                        // The open state ends by the client's ticker, as every other decision does (not the wall
                        // clock).
                        .clock(new TickerClock(ticker))
                        .build());
    }

    /** A {@link java.time.Clock} that reads the client's monotonic ticker; its instants only measure durations. */
    private static final class TickerClock extends java.time.Clock {
        private final Ticker ticker;

        TickerClock(Ticker ticker) {
            this.ticker = ticker;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.ofEpochSecond(0, ticker.nanoTime());
        }
    }

    Quarantine quarantine() {
        return quarantine;
    }

    /** Sets where marker maintenance ops are submitted (the node client itself). */
    public void maintenance(java.util.function.Consumer<NodeOp> submit) {
        this.maintenance = submit;
    }

    /**
     * Fills in what only the node knows, right before an op is encoded for a connection: the incarnation marker the
     * client expects there, and the run_id of the server on that connection.
     */
    public void prepare(NodeOp op, Quarantine.Connection conn) {
        String markerKey = quarantine.markerKey();
        if (markerKey == null || op.kind == NodeOp.Kind.MARKER) {
            return;
        }
        if (op.isAcquire() || op.kind == NodeOp.Kind.FENCE) {
            op.markerKey = markerKey;
        }
        String known = identity.markerId;
        op.knownMarkerId = known == null ? "" : known;
        String run = conn == null ? null : conn.runId;
        op.encodedRunId = run == null ? "" : run;
    }

    /** See {@link NodeClient#quarantined()}. */
    public String quarantined() {
        return quarantine.standingOut(identity);
    }

    public Quarantine.Identity identity() {
        return identity;
    }

    CircuitBreaker.State circuitState() {
        return breaker.getState();
    }

    public Throwable lastFailure() {
        return lastFailure;
    }

    /**
     * Lets an op through the breaker, or answers it {@link NodeStatus#CIRCUIT_OPEN} at once. Releases (and forced
     * unlocks) always pass and take no permission: an earlier acquire may have been applied. A client's entry (who
     * holds what) passes too: it votes in nothing, so it must not use up a half-open breaker's trial calls.
     */
    public boolean admit(NodeOp op) {
        if (op.kind == NodeOp.Kind.RELEASE
                || op.kind == NodeOp.Kind.MARKER
                || op.kind == NodeOp.Kind.FORCE_RELEASE
                || op.kind == NodeOp.Kind.HOLDERS) {
            return true;
        }
        if (breaker.tryAcquirePermission()) {
            op.permitted = true;
            return true;
        }
        Throwable last = lastFailure;
        op.neverSent = true;
        op.complete(
                NodeStatus.CIRCUIT_OPEN,
                new QuietException.CircuitOpen(
                        "circuit breaker of " + name + " is open after repeated failures", last));
        return false;
    }

    /** Returns an op's unused breaker permission (it was never sent). */
    void unsent(NodeOp op) {
        if (op.permitted) {
            op.permitted = false;
            breaker.releasePermission();
        }
    }

    /** Settles an op that got no answer from a server (not sent, timed out, failed) exactly once and completes it. */
    public void settle(NodeOp op, NodeStatus status, Throwable error) {
        settle(op, status, error, null);
    }

    /**
     * Settles an op's answer exactly once and completes it. An acquire's answer is judged first: a grant from a node
     * that may have lost data, or whose identity is unknown, is reported as {@link NodeStatus#QUARANTINED}.
     *
     * @param conn what the connection the answer came on said about its server; null if the op got no answer
     */
    public void settle(NodeOp op, NodeStatus status, Throwable error, Quarantine.Connection conn) {
        if (op.permitted) {
            op.permitted = false;
            long took = op.sentAtNanos == 0 ? 0 : ticker.nanoTime() - op.sentAtNanos;
            if (error instanceof QuietException.NotSent) {
                breaker.releasePermission(); // never reached the node: says nothing about its health
            } else if (status == NodeStatus.ERROR || status == NodeStatus.TIMEOUT) {
                breaker.onError(took, TimeUnit.NANOSECONDS, error);
            } else {
                breaker.onSuccess(took, TimeUnit.NANOSECONDS);
            }
        }
        if (op.sentOn == 0
                && (error instanceof QuietException.NotSent || error instanceof QuietException.NotConnected)) {
            op.neverSent = true; // dropped before it was written: it runs nowhere
        }
        if (op.isAcquire() && (status == NodeStatus.GRANTED || status == NodeStatus.TAKEN)) {
            String why = quarantine.judge(identity, op, conn, maintenance);
            if (why != null && status == NodeStatus.GRANTED) {
                status = NodeStatus.QUARANTINED;
                error = new QuietException.Quarantined(
                        "node " + name + " granted, but its vote does not count: " + why);
            }
        }
        if ((op.kind == NodeOp.Kind.EXTEND || op.kind == NodeOp.Kind.FENCE) && status == NodeStatus.GRANTED) {
            // A server the sentinels no longer vouch for may be an old master cut off from them, while its promoted
            // replica votes for the same node elsewhere: its extension or fencing vote must not count either.
            String why = Quarantine.unconfirmed(conn);
            if (why != null) {
                status = NodeStatus.QUARANTINED;
                error = new QuietException.Quarantined(
                        "node " + name + " answered, but its vote does not count: " + why);
            }
        }
        if ((status == NodeStatus.ERROR || status == NodeStatus.TIMEOUT)
                && error != null
                && !(error instanceof QuietException.NotSent)
                && !(error instanceof QuietException.NotConnected)
                && !(error instanceof QuietException.CircuitOpen)) {
            // What the node said (NOPERM, READONLY, OOM...) or why it did not answer: the cause an open breaker
            // reports later, when nothing is sent to the node any more.
            lastFailure = error;
        }
        if ((status == NodeStatus.ERROR || status == NodeStatus.TIMEOUT) && LOG.isDebugEnabled()) {
            LOG.debug("node {}: {} {} for key {}: {}", name, op.kind, status, op.key, String.valueOf(error));
        }
        op.complete(status, error);
    }

    /** The node answered: log its recovery once. */
    public void answered() {
        if (!healthy) {
            healthy = true;
            LOG.info("node {} is answering again", name);
        }
    }

    /** The node failed: log the first failure at WARN, the rest at DEBUG, and keep it as the last cause. */
    public void failed(Throwable e) {
        lastFailure = e;
        if (healthy) {
            healthy = false;
            LOG.warn("node {} failed: {}", name, e.toString());
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("node {} still failing: {}", name, e.toString());
        }
    }
}
