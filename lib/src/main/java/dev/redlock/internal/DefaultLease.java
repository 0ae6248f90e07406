package dev.redlock.internal;

import dev.redlock.Lease;
import dev.redlock.QuorumPolicy;
import dev.redlock.ReleaseResult;
import dev.redlock.RoundOutcome;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** The library's {@link Lease}. Thread-safe; release happens at most once. */
public final class DefaultLease implements Lease {

    private final QuorumEngine engine;
    private final LockRef ref;
    private final String token;
    private final long ttlMillis;
    private final long startNanos;
    private final long deadlineNanos;
    private final long keyExpiryNanos;
    private final RoundOutcome acquisition;
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private final CompletableFuture<ReleaseResult> released = new CompletableFuture<>();

    DefaultLease(QuorumEngine engine, LockRef ref, String token, long ttlMillis, long startNanos, long deadlineNanos,
            long keyExpiryNanos, RoundOutcome acquisition) {
        this.engine = engine;
        this.ref = ref;
        this.token = token;
        this.ttlMillis = ttlMillis;
        this.startNanos = startNanos;
        this.deadlineNanos = deadlineNanos;
        this.keyExpiryNanos = keyExpiryNanos;
        this.acquisition = acquisition;
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

    @Override
    public Duration leaseTime() {
        return Duration.ofMillis(ttlMillis);
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
    public Duration remainingValidity() {
        long left = deadlineNanos - engine.ticker().nanoTime();
        return left > 0 && !releaseStarted.get() ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public boolean isValid() {
        return !releaseStarted.get() && deadlineNanos - engine.ticker().nanoTime() > 0;
    }

    /** Whether {@link #release()} or {@link #releaseAsync()} has been called. */
    public boolean isReleased() {
        return releaseStarted.get();
    }

    @Override
    public RoundOutcome acquisition() {
        return acquisition;
    }

    @Override
    public ReleaseResult release() {
        if (!releaseStarted.compareAndSet(false, true)) {
            return released.join();
        }
        try {
            ReleaseResult result = engine.releaseSync(this);
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
            engine.releaseAsync(this).whenComplete((result, error) -> {
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
        return "Lease{lock=" + ref.name() + ", " + ref.policy() + ", token=" + Tokens.prefix(token) + "…, valid="
                + isValid() + ", remaining=" + remainingValidity().toMillis() + "ms}";
    }
}
