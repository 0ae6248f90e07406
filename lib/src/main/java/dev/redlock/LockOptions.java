/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Options for {@link RedlockClient#withLock}: the quorum policy, how long to wait, and the TTL the watchdog keeps on
 * each node while the body runs. Immutable and thread-safe.
 *
 * <pre>{@code
 * client.withLock("orders:42", LockOptions.defaults().waitTime(Duration.ofSeconds(5)), () -> process(order));
 * }</pre>
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new LockOptions(QuorumPolicy.MAJORITY, null, null, false);

    private final QuorumPolicy policy;
    private final Duration waitTime;
    private final Duration leaseTime;
    private final boolean fenced;

    private LockOptions(QuorumPolicy policy, Duration waitTime, Duration leaseTime, boolean fenced) {
        this.policy = policy;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.fenced = fenced;
    }

    /**
     * Returns a copy that does or does not acquire with a fencing token; see {@link QuorumLock#fenced()}.
     *
     * @param fenced whether the lease carries a fencing token
     * @return new options
     */
    public LockOptions fenced(boolean fenced) {
        return new LockOptions(policy, waitTime, leaseTime, fenced);
    }

    /**
     * Returns whether the lease carries a fencing token.
     *
     * @return true if fenced
     */
    public boolean isFenced() {
        return fenced;
    }

    /**
     * Returns the defaults: a RedLock, the client's wait budget, the client's lease time.
     *
     * @return the default options
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Returns a copy with the given quorum policy.
     *
     * @param policy {@link QuorumPolicy#MAJORITY} (RedLock, the default) or {@link QuorumPolicy#ALL} (MultiLock)
     * @return new options
     */
    public LockOptions policy(QuorumPolicy policy) {
        return new LockOptions(Objects.requireNonNull(policy, "policy"), waitTime, leaseTime, fenced);
    }

    /**
     * Returns a copy with the given wait budget.
     *
     * @param waitTime zero or more; zero means a single round, and a budget longer than about 292 years means as
     *        long as it takes
     * @return new options
     * @throws IllegalArgumentException if negative
     */
    public LockOptions waitTime(Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime: must be >= 0, got " + waitTime);
        }
        return new LockOptions(policy, waitTime, leaseTime, fenced);
    }

    /**
     * Returns a copy with the given TTL, which the watchdog renews every third of it while the body runs.
     *
     * @param leaseTime in [1 ms, {@link RedlockConfig#MAX_LEASE_TIME} (7 days)], and above the client's per-node
     *        timeout (checked when used)
     * @return new options
     * @throws IllegalArgumentException if outside [1 ms, 7 days]
     */
    public LockOptions leaseTime(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.compareTo(Duration.ofMillis(1)) < 0 || leaseTime.compareTo(RedlockConfig.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("leaseTime: must be in [1 ms, 7 days], got " + leaseTime);
        }
        return new LockOptions(policy, waitTime, leaseTime, fenced);
    }

    /**
     * Returns the quorum policy.
     *
     * @return the policy
     */
    public QuorumPolicy policy() {
        return policy;
    }

    /**
     * Returns the wait budget.
     *
     * @return the wait budget, or empty for the client's {@link RedlockConfig#waitBudget()}
     */
    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    /**
     * Returns the TTL kept by the watchdog.
     *
     * @return the TTL, or empty for the client's {@link RedlockConfig#leaseTime()}
     */
    public Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    @Override
    public String toString() {
        return "LockOptions{policy=" + policy + ", waitTime=" + waitTime + ", leaseTime=" + leaseTime + ", fenced="
                + fenced + '}';
    }
}
