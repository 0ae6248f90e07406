/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.LockLostException;
import dev.redlock.NodeOutcome;
import dev.redlock.RoundOutcome;
import dev.redlock.Ticker;
import dev.redlock.internal.Tokens;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps auto-extended leases alive: every third of the TTL it runs an extension round for each, on the client's one
 * scheduler thread (the rounds themselves run on the node I/O threads, so one slow node never delays another
 * lease's renewal). A failed extension is retried sooner while the deadline is ahead; when the deadline passes, the
 * lease's own timer declares it lost.
 */
final class Watchdog {

    private static final Logger LOG = LoggerFactory.getLogger(Watchdog.class);

    private final QuorumEngine engine;
    private final Ticker ticker;
    private final long maxHoldNanos;
    private final int maxFailed;
    private final long minRetryNanos;
    private final Set<DefaultLease> active = ConcurrentHashMap.newKeySet();

    Watchdog(QuorumEngine engine) {
        this.engine = engine;
        this.ticker = engine.ticker();
        this.maxHoldNanos = engine.config().maxHoldTime().toNanos();
        this.maxFailed = engine.config().maxFailedExtensions();
        this.minRetryNanos = engine.config().perNodeTimeout().toNanos();
    }

    void start(DefaultLease lease) {
        active.add(lease);
        lease.watchDeadline();
        long sinceStart = ticker.nanoTime() - lease.startNanos();
        scheduleNext(lease, period(lease) - sinceStart);
    }

    void forget(DefaultLease lease) {
        active.remove(lease);
    }

    int activeCount() {
        return active.size();
    }

    private static long period(DefaultLease lease) {
        return TimeUnit.MILLISECONDS.toNanos(lease.ttlMillis()) / 3;
    }

    private void scheduleNext(DefaultLease lease, long delayNanos) {
        ScheduledFuture<?> task = engine.schedule(() -> extend(lease), Math.max(0, delayNanos));
        if (task != null) {
            lease.setNextExtension(task);
        }
    }

    private void extend(DefaultLease lease) {
        if (!lease.isHeld()) {
            return;
        }
        if (maxHoldNanos > 0 && ticker.nanoTime() - lease.startNanos() >= maxHoldNanos) {
            LOG.debug(
                    "lock '{}' token {}… reached the maximum hold time; the watchdog stops extending it",
                    lease.lockName(),
                    Tokens.prefix(lease.token()));
            lease.holdCapReached();
            return;
        }
        engine.extend.extendAsync(lease, lease.ttlMillis(), outcome -> extended(lease, outcome));
    }

    private void extended(DefaultLease lease, RoundOutcome outcome) {
        if (!lease.isHeld()) {
            return;
        }
        if (outcome.succeeded()) {
            scheduleNext(lease, period(lease) - outcome.elapsed().toNanos());
            return;
        }
        int failures = lease.extensionFailed(outcome);
        if (LOG.isDebugEnabled()) {
            for (NodeOutcome o : outcome.nodes()) {
                if (o.status() != dev.redlock.NodeStatus.GRANTED && o.status() != dev.redlock.NodeStatus.PENDING) {
                    LOG.debug(
                            "lock '{}' token {}…: extension failed on node {}: {}",
                            lease.lockName(),
                            Tokens.prefix(lease.token()),
                            o.node(),
                            o);
                }
            }
        }
        if (maxFailed > 0 && failures >= maxFailed) {
            lease.lose(LockLostException.Reason.EXTENSION_FAILED, outcome);
            return;
        }
        long remaining = lease.deadlineNanos() - ticker.nanoTime();
        if (remaining <= 0) {
            lease.lose(LockLostException.Reason.EXPIRED, outcome);
            return;
        }
        // Retry sooner than the regular period, several times before the deadline.
        scheduleNext(lease, Math.max(minRetryNanos, Math.min(remaining / 4, period(lease))));
    }

    /** The client is closing: every kept lease is lost, and its holders are told. */
    void closeAll() {
        for (DefaultLease lease : active.toArray(new DefaultLease[0])) {
            lease.lose(LockLostException.Reason.CLIENT_CLOSED, lease.lastExtension());
        }
        active.clear();
    }
}
