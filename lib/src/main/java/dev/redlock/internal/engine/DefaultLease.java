/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.QuorumPolicy;
import dev.redlock.ReleaseResult;
import dev.redlock.RoundOutcome;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The library's {@link Lease}. Thread-safe.
 *
 * <p>State moves one way: HELD, then LOST or RELEASED. Validity is derived from the state and the deadline on the
 * ticker, so {@link #isValid()} turns false exactly at the deadline even if no timer has fired yet.
 */
public final class DefaultLease implements Lease {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultLease.class);
    private static final int HELD = 0;
    private static final int LOST = 1;
    private static final int RELEASED = 2;

    private final QuorumEngine engine;
    private final LockRef ref;
    private final String token;
    private final long startNanos;
    private final RoundOutcome acquisition;
    /** The winning acquire round: its nodes' late answers tell a release where the acquire's outcome is unknown. */
    private final Round acquireRound;

    private volatile boolean autoExtended;
    /** Who asked for it and when it was handed out (epoch ms): shown by inspections, never used in a decision. */
    private volatile String holderThread;

    private volatile long heldSinceEpochMillis;
    private volatile long fencingToken = -1;

    /** Set by the watchdog when it stops at the maximum hold time; the expiry that follows is reported as such. */
    private volatile boolean holdCapReached;

    private volatile long ttlMillis;
    private volatile long deadlineNanos;
    private volatile long keyExpiryNanos;
    private final AtomicInteger state = new AtomicInteger(HELD);
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private final CompletableFuture<ReleaseResult> released = new CompletableFuture<>();

    // Guarded by `this`: timers, the last extension, and the listeners with the loss they are told about.
    private ScheduledFuture<?> nextExtension;
    private ScheduledFuture<?> deadlineTimer;
    private RoundOutcome lastExtension;
    private int failedExtensions;
    /** Extension rounds are numbered as they start; the newest confirmed one set the deadline. */
    private long extensionSeq;

    private long lastConfirmedSeq;
    /** Deadline caps from extensions newer than the last confirmed one that failed but may have been applied. */
    private final java.util.TreeMap<Long, Long> unconfirmedCaps = new java.util.TreeMap<>();

    private LockLostException lossCause;
    private final List<Consumer<? super LockLostException>> listeners = new ArrayList<>(1);

    DefaultLease(
            QuorumEngine engine,
            LockRef ref,
            String token,
            long ttlMillis,
            long startNanos,
            long deadlineNanos,
            long keyExpiryNanos,
            RoundOutcome acquisition,
            Round acquireRound) {
        this.engine = engine;
        this.ref = ref;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
        this.keyExpiryNanos = keyExpiryNanos;
        this.acquisition = acquisition;
        this.acquireRound = acquireRound;
    }

    Round acquireRound() {
        return acquireRound;
    }

    /** Set once, before the lease is handed out. */
    void heldBy(String thread, long sinceEpochMillis) {
        this.holderThread = thread;
        this.heldSinceEpochMillis = sinceEpochMillis;
    }

    String holderThread() {
        return holderThread;
    }

    long heldSinceEpochMillis() {
        return heldSinceEpochMillis;
    }

    /** Set once, before the lease is handed out. */
    void autoExtended(boolean on) {
        this.autoExtended = on;
    }

    /** Set once by a confirmed fencing round, before the lease is handed out. */
    void fencingToken(long token) {
        this.fencingToken = token;
    }

    @Override
    public java.util.OptionalLong fencingToken() {
        long t = fencingToken;
        return t < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(t);
    }

    @Override
    public String lockName() {
        return ref.name();
    }

    @Override
    public String key() {
        return ref.key();
    }

    @Override
    public QuorumPolicy policy() {
        return ref.policy();
    }

    @Override
    public String token() {
        return token;
    }

    /** The lock this lease holds, as its acquisition began it (a fair lock's or a writer's waiter id and place). */
    public LockRef ref() {
        return ref;
    }

    @Override
    public Duration leaseTime() {
        return Duration.ofMillis(ttlMillis);
    }

    long ttlMillis() {
        return ttlMillis;
    }

    /** Ticker time at which the winning round started ({@code t1}). */
    public long startNanos() {
        return startNanos;
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Ticker time after which every node has expired the key on the client's clock; releases stop there. */
    long keyExpiryNanos() {
        return keyExpiryNanos;
    }

    @Override
    public boolean isAutoExtended() {
        return autoExtended;
    }

    @Override
    public Duration remainingValidity() {
        long left = deadlineNanos - engine.ticker().nanoTime();
        return left > 0 && state.get() == HELD ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public boolean isValid() {
        return state.get() == HELD && deadlineNanos - engine.ticker().nanoTime() > 0;
    }

    /** Whether the lease is still held: not lost and not released (it may have passed its deadline). */
    boolean isHeld() {
        return state.get() == HELD;
    }

    /** Whether {@link #release()} or {@link #releaseAsync()} has been called. */
    public boolean isReleased() {
        return releaseStarted.get();
    }

    @Override
    public RoundOutcome acquisition() {
        return acquisition;
    }

    // ------------------------------------------------------------------------------------------------ extension

    @Override
    public RoundOutcome extend(Duration leaseTime) {
        return engine.extend.extendSync(this, engine.checkLeaseTime(leaseTime));
    }

    @Override
    public CompletableFuture<RoundOutcome> extendAsync(Duration leaseTime) {
        long ttl = engine.checkLeaseTime(leaseTime);
        CompletableFuture<RoundOutcome> result = new CompletableFuture<>();
        engine.parking.idle(); // this thread will not read the replies, even if it read its last round's
        engine.extend.extendAsync(this, ttl, outcome -> engine.asyncExecutor.execute(() -> result.complete(outcome)));
        return result;
    }

    /** Numbers an extension round as it starts. */
    synchronized long nextExtensionSeq() {
        return ++extensionSeq;
    }

    /**
     * Moves the deadline after a successful extension round {@code seq} that started at {@code roundStart}. A round
     * older than the last confirmed one changes nothing (the nodes applied the newer one after it), and the deadline
     * never exceeds the cap of a newer round that failed but may have been applied. Returns false if the lease was
     * lost or released meanwhile: then nothing changes.
     */
    synchronized boolean extended(
            long seq, long roundStart, long newDeadline, long newTtlMillis, RoundOutcome outcome) {
        if (state.get() != HELD) {
            return false;
        }
        keyExpiryNanos = later(keyExpiryNanos, roundStart + newTtlMillis * 1_000_000L);
        if (seq < lastConfirmedSeq) {
            return true;
        }
        lastConfirmedSeq = seq;
        unconfirmedCaps.headMap(seq, true).clear();
        long deadline = newDeadline;
        for (long cap : unconfirmedCaps.values()) {
            deadline = cap - deadline < 0 ? cap : deadline;
        }
        this.ttlMillis = newTtlMillis;
        this.deadlineNanos = deadline;
        this.lastExtension = outcome;
        this.failedExtensions = 0;
        if (deadlineTimer != null) {
            armDeadlineTimer();
        }
        return true;
    }

    /**
     * Records an extension round that was not confirmed by a quorum: any node it reached may still have applied it,
     * so the lease's deadline may not exceed {@code roundStart + ttl - drift} (it only matters for a shorter lease).
     */
    synchronized void extensionUnconfirmed(long seq, long roundStart, long ttlMillis, long driftNanos) {
        keyExpiryNanos = later(keyExpiryNanos, roundStart + ttlMillis * 1_000_000L);
        if (state.get() != HELD || seq < lastConfirmedSeq) {
            return;
        }
        long cap = roundStart + ttlMillis * 1_000_000L - driftNanos;
        unconfirmedCaps.put(seq, cap);
        if (cap - deadlineNanos < 0) {
            deadlineNanos = cap;
            if (deadlineTimer != null) {
                armDeadlineTimer();
            }
        }
    }

    private static long later(long a, long b) {
        return a - b >= 0 ? a : b;
    }

    void holdCapReached() {
        holdCapReached = true;
    }

    /** Records a failed extension; returns how many failed in a row. */
    synchronized int extensionFailed(RoundOutcome outcome) {
        lastExtension = outcome;
        return ++failedExtensions;
    }

    synchronized RoundOutcome lastExtension() {
        return lastExtension;
    }

    /** Sets the watchdog's next extension task; cancelled on loss or release. */
    synchronized boolean setNextExtension(ScheduledFuture<?> task) {
        if (state.get() != HELD) {
            task.cancel(false);
            return false;
        }
        nextExtension = task;
        return true;
    }

    /** Makes sure a timer declares the lease lost at its deadline, so listeners hear of it in time. */
    synchronized void watchDeadline() {
        if (state.get() == HELD && deadlineTimer == null) {
            armDeadlineTimer();
        }
    }

    private void armDeadlineTimer() {
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
        }
        deadlineTimer = engine.schedule(
                this::checkDeadline, deadlineNanos - engine.ticker().nanoTime());
    }

    private void checkDeadline() {
        if (state.get() == HELD && deadlineNanos - engine.ticker().nanoTime() <= 0) {
            lose(
                    holdCapReached ? LockLostException.Reason.MAX_HOLD_TIME : LockLostException.Reason.EXPIRED,
                    lastExtension());
        } else if (state.get() == HELD) {
            synchronized (this) {
                armDeadlineTimer(); // fired early (the deadline moved, or the timer's clock ran ahead)
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ loss

    /** Declares the lease lost (once), stops its timers and tells the listeners on the async executor. */
    void lose(LockLostException.Reason reason, RoundOutcome lastRound) {
        List<Consumer<? super LockLostException>> toTell;
        LockLostException cause;
        synchronized (this) {
            if (!state.compareAndSet(HELD, LOST)) {
                return;
            }
            cancelTimers();
            cause = new LockLostException(ref.name(), Tokens.prefix(token), reason, lastRound);
            lossCause = cause;
            toTell = new ArrayList<>(listeners);
            listeners.clear();
        }
        engine.watchdog.forget(this);
        engine.leases.ended(this, cause);
        LOG.warn(
                "lease lost: lock '{}' token {}… {}{}",
                ref.name(),
                Tokens.prefix(token),
                reason,
                lastRound == null ? "" : ", last extension: " + lastRound.nodes());
        for (Consumer<? super LockLostException> l : toTell) {
            tell(l, cause);
        }
    }

    private void tell(Consumer<? super LockLostException> listener, LockLostException cause) {
        engine.asyncExecutor.execute(() -> {
            try {
                listener.accept(cause);
            } catch (RuntimeException e) {
                LOG.error("a lost-lease listener of lock '{}' failed", ref.name(), e);
            }
        });
    }

    @Override
    public Lease onLost(Consumer<? super LockLostException> listener) {
        LockLostException cause;
        synchronized (this) {
            cause = lossCause;
            if (cause == null) {
                listeners.add(listener);
                // Fixed-time leases have no timer until someone wants to hear of their expiry.
                watchDeadline();
                return this;
            }
        }
        tell(listener, cause);
        return this;
    }

    @Override
    public synchronized Optional<LockLostException> lossCause() {
        return Optional.ofNullable(lossCause);
    }

    @Override
    public void checkValid() {
        if (isValid()) {
            return;
        }
        if (state.get() == HELD) {
            // Past the deadline before any timer noticed: this is the moment the holder learns of it.
            lose(
                    holdCapReached ? LockLostException.Reason.MAX_HOLD_TIME : LockLostException.Reason.EXPIRED,
                    lastExtension());
        }
        synchronized (this) {
            if (lossCause != null) {
                throw lossCause;
            }
        }
        throw new LockLostException(ref.name(), Tokens.prefix(token), LockLostException.Reason.RELEASED, null);
    }

    private void cancelTimers() {
        if (nextExtension != null) {
            nextExtension.cancel(false);
            nextExtension = null;
        }
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
            deadlineTimer = null;
        }
    }

    // ------------------------------------------------------------------------------------------------ release

    /** Stops the watchdog before any release is sent, so no renewal can follow it. */
    private void stopForRelease() {
        synchronized (this) {
            state.compareAndSet(HELD, RELEASED);
            cancelTimers();
            listeners.clear();
        }
        engine.watchdog.forget(this);
        engine.leases.ended(this, null);
    }

    @Override
    public ReleaseResult release() {
        if (!releaseStarted.compareAndSet(false, true)) {
            return released.join();
        }
        stopForRelease();
        try {
            ReleaseResult result = engine.release.releaseSync(this);
            released.complete(result);
            return result;
        } catch (RuntimeException | Error e) {
            released.completeExceptionally(e);
            throw e;
        }
    }

    @Override
    public CompletableFuture<ReleaseResult> releaseAsync() {
        if (releaseStarted.compareAndSet(false, true)) {
            stopForRelease();
            CompletableFuture<?> unused = engine.release.releaseAsync(this).whenComplete((result, error) -> {
                if (error != null) {
                    released.completeExceptionally(error);
                } else {
                    released.complete(result);
                }
            });
        }
        // A copy, so callers cannot complete the lease's own future.
        return released.copy();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        String s = state.get() == HELD ? "held" : state.get() == LOST ? "lost" : "released";
        return "Lease{lock=" + ref.name() + ", " + ref.policy() + ", token=" + Tokens.prefix(token) + "…, " + s
                + (autoExtended ? ", auto-extended" : "") + (fencingToken >= 0 ? ", fencing=" + fencingToken : "")
                + ", remaining=" + remainingValidity().toMillis() + "ms}";
    }
}
