/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.shedlock;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.Lease;
import dev.redlock.NotEnoughNodesException;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.ReleaseResult;
import dev.redlock.RoundOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.LockException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} whose locks are RedLocks: a lock is held when a majority of the
 * {@link RedlockClient}'s Redis masters granted it, so a scheduled job keeps its lock, and other instances keep
 * skipping it, while a minority of the masters is down.
 *
 * <pre>{@code
 * LockProvider lockProvider = new RedlockLockProvider(client);
 * new DefaultLockingTaskExecutor(lockProvider).executeWithLock(task, new LockConfiguration(ClockProvider.now(),
 *         "nightly-report", Duration.ofMinutes(10), Duration.ofSeconds(30)));
 * }</pre>
 *
 * <p><b>Mapping of ShedLock's semantics.</b>
 * <ul>
 *   <li>{@link #lock(LockConfiguration)} runs exactly one acquire round, without waiting (ShedLock skips a task whose
 *       lock is held). The TTL set on each node is {@code lockAtMostFor}; the lease is not auto-extended, so the keys
 *       expire after {@code lockAtMostFor} if the process dies or hangs.</li>
 *   <li>{@link SimpleLock#unlock()} honours {@code lockAtLeastFor}: if {@code lockAtLeastUntil} is still ahead, the
 *       keys' TTL is cut to the time left, on every node that still holds this lock's token (a token-checked
 *       {@code PEXPIRE}), instead of deleting them. A time left shorter than {@link #minimumLockAtMostFor()} cannot
 *       be set that way (the library refuses a lease that short); the keys are then deleted, token-checked, once
 *       {@code lockAtLeastUntil} has passed, from the client's {@linkplain RedlockConfig#asyncExecutor() async
 *       executor}. Otherwise {@code unlock()} deletes the keys at once (token-checked, so never another holder's) and
 *       returns once a quorum confirmed it or every node answered.</li>
 *   <li>{@link SimpleLock#extend(Duration, Duration)} sets the TTL to the new {@code lockAtMostFor} on every node that
 *       still holds the token, and returns a new lock on the same lease when a quorum confirmed it. It returns empty
 *       when the lease is gone: it expired, or too many nodes no longer hold its token. It never recreates a key that
 *       expired. After {@code extend} the old lock is unusable ({@link IllegalStateException}), as ShedLock's contract
 *       says, except when {@code extend} threw: then the old lock stays valid, to be unlocked or extended again.</li>
 * </ul>
 *
 * <p><b>Errors.</b> Contention is not an error: {@code lock} returns empty. When the round could not have reached a
 * quorum because nodes failed, timed out or had an open circuit breaker, {@code lock} throws a {@link LockException}
 * whose cause is the library's {@link NotEnoughNodesException} (it names every node and its error): the task must
 * not run, and an empty result would make an outage look like "another instance is running it". ShedLock's
 * {@code DefaultLockingTaskExecutor} lets that exception reach the scheduler, which logs it on every tick, as it does
 * for the storage failures of ShedLock's own providers. A round that reached a quorum too slowly to leave any validity
 * throws a {@link LockException} too. {@code extend} throws a {@link LockException} for the same node failures and
 * leaves the old lock valid, to be unlocked or extended again (the nodes the failed extension reached may have applied
 * its TTL: an unconfirmed command may have run). {@code unlock} never throws for node failures:
 * the task has already run, keys that could not be deleted or shortened expire by their own TTL (at the latest at
 * {@code lockAtMostUntil}, the safe side), and a WARN log says so. With the client's restart protection on (the
 * default), a node that restarted without its data does not vote for the longest lease in use, here the longest
 * {@code lockAtMostFor}: if that leaves too few voting nodes, {@code lock} throws the same {@link LockException}
 * meanwhile, rather than let a job run twice.
 *
 * <p><b>Lease range.</b> {@code lockAtMostFor} (also the one given to {@code extend}) must be at least
 * {@link #minimumLockAtMostFor()}: a lease must outlast a round that takes the whole per-node timeout plus the clock
 * drift allowance, or a round could grant a lease that has already expired. A shorter one throws
 * {@link IllegalArgumentException} naming the minimum (ShedLock's own {@code KeepAliveLockProvider} rejects too short
 * a {@code lockAtMostFor} the same way). It must also be at most {@link RedlockConfig#MAX_LEASE_TIME} (7 days).
 *
 * <p><b>Names.</b> ShedLock lock {@code name} is the Redlock lock {@code namePrefix + name} (see
 * {@link #lockNameOf(String)}), stored in key {@code client.keyOf(namePrefix + name)}. So
 * {@code client.inspect(provider.lockNameOf("nightly-report"))} shows who holds it, and
 * {@code client.redLock(provider.lockNameOf("nightly-report"))} is the same lock.
 *
 * <p><b>Ownership and threads.</b> The provider does not own the client: it never closes it, and a closed client
 * makes {@code lock} throw {@link IllegalStateException}. The provider is thread-safe and stateless beyond its
 * settings; share one. Each {@link SimpleLock} it returns takes effect once: of concurrent {@code unlock} and
 * {@code extend} calls on one lock, exactly one reaches the nodes and the others throw {@link IllegalStateException}.
 */
public final class RedlockLockProvider implements ExtensibleLockProvider {

    /** The prefix put before every ShedLock lock name unless another one is given: {@value}. */
    public static final String DEFAULT_NAME_PREFIX = "shedlock:";

    private static final Logger LOG = LoggerFactory.getLogger(RedlockLockProvider.class);

    private final RedlockClient client;
    private final String namePrefix;
    private final Duration minimumLockAtMostFor;
    private final int quorum;

    /**
     * Creates a provider over {@code client} with the {@linkplain #DEFAULT_NAME_PREFIX default name prefix}.
     *
     * @param client the Redlock client; not closed by the provider
     * @throws NullPointerException if {@code client} is null
     */
    public RedlockLockProvider(RedlockClient client) {
        this(client, DEFAULT_NAME_PREFIX);
    }

    /**
     * Creates a provider over {@code client} that puts {@code namePrefix} before every ShedLock lock name.
     *
     * @param client the Redlock client; not closed by the provider
     * @param namePrefix put before each ShedLock lock name to form the Redlock lock name; may be empty, in which case
     *        ShedLock lock {@code name} and {@code client.redLock(name)} are the same lock
     * @throws IllegalArgumentException if the prefix cannot start a valid lock name (an unpaired surrogate, or longer
     *         than {@link RedlockClient#MAX_LOCK_NAME_BYTES} UTF-8 bytes)
     * @throws NullPointerException if an argument is null
     */
    public RedlockLockProvider(RedlockClient client, String namePrefix) {
        this.client = Objects.requireNonNull(client, "client");
        this.namePrefix = Objects.requireNonNull(namePrefix, "namePrefix");
        client.keyOf(namePrefix + "x"); // checks the prefix as part of a name
        this.minimumLockAtMostFor = minimumLeaseTime(client.config());
        // A lock's quorum is of its own nodes: all of them, or nodesPerLock of them.
        this.quorum = QuorumPolicy.MAJORITY.required(
                client.config().nodesPerLock(client.nodeNames().size()));
    }

    /**
     * Tries once, without waiting, to take the lock named in {@code lockConfiguration} for {@code lockAtMostFor}.
     *
     * @param lockConfiguration the ShedLock lock: name, {@code lockAtMostFor} (the TTL set on each node) and
     *        {@code lockAtLeastFor} (honoured by {@link SimpleLock#unlock()})
     * @return the lock, or empty if another owner holds it (contention)
     * @throws LockException if too few nodes were reachable to form a quorum (cause: {@link NotEnoughNodesException}),
     *         if a quorum granted too slowly to leave any validity, or if the thread was interrupted (its interrupt
     *         status is set again); nothing is held then and the task must not run
     * @throws IllegalArgumentException if {@code lockAtMostFor} is below {@link #minimumLockAtMostFor()} or above
     *         7 days, or the prefixed name is not a valid lock name
     * @throws IllegalStateException if the client is closed
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "lockConfiguration");
        String name = lockNameOf(lockConfiguration.getName());
        Duration leaseTime = checkLockAtMostFor(lockConfiguration.getName(), lockConfiguration.getLockAtMostFor());
        AcquireResult result;
        try {
            result = client.redLock(name).attempt(Duration.ZERO, leaseTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(
                    "interrupted while acquiring ShedLock lock '" + lockConfiguration.getName() + "'; nothing is held",
                    e);
        }
        if (result.acquired()) {
            LOG.debug(
                    "ShedLock lock '{}' acquired for at most {} ms on {}/{} nodes",
                    lockConfiguration.getName(),
                    leaseTime.toMillis(),
                    result.lastRound().granted(),
                    result.lastRound().nodes().size());
            return Optional.of(new RedlockSimpleLock(
                    this, lockConfiguration, result.lease().orElseThrow()));
        }
        FailureReason reason = result.reason();
        if (reason == FailureReason.BUSY) {
            LOG.debug("ShedLock lock '{}' is held elsewhere: {}", lockConfiguration.getName(), result.lastRound());
            return Optional.empty();
        }
        if (reason == FailureReason.NOT_ENOUGH_NODES) {
            throw new LockException(
                    "ShedLock lock '" + lockConfiguration.getName() + "' not acquired: too few Redis "
                            + "nodes reachable for a quorum, so the task must not run",
                    new NotEnoughNodesException(result.lastRound()));
        }
        throw new LockException("ShedLock lock '" + lockConfiguration.getName() + "' not acquired (" + reason + "): "
                + result.lastRound());
    }

    /**
     * Returns the shortest {@code lockAtMostFor} this provider accepts with its client's settings: the shortest lease,
     * in whole milliseconds, that leaves validity after a round that takes the whole per-node timeout,
     * {@code lockAtMostFor - drift(lockAtMostFor) - perNodeTimeout > minValidity}. With the library's defaults
     * (50 ms per-node timeout, drift factor 0.01) it is 53 ms.
     *
     * @return the minimum {@code lockAtMostFor}
     */
    public Duration minimumLockAtMostFor() {
        return minimumLockAtMostFor;
    }

    /**
     * Returns the Redlock lock name that ShedLock lock {@code shedLockName} maps to: the name prefix followed by it.
     *
     * @param shedLockName a ShedLock lock name
     * @return {@code namePrefix + shedLockName}
     */
    public String lockNameOf(String shedLockName) {
        return namePrefix + Objects.requireNonNull(shedLockName, "shedLockName");
    }

    @Override
    public String toString() {
        return "RedlockLockProvider{namePrefix='" + namePrefix + "', nodes=" + client.nodeNames() + '}';
    }

    private Duration checkLockAtMostFor(String name, Duration lockAtMostFor) {
        if (lockAtMostFor.compareTo(minimumLockAtMostFor) < 0) {
            throw new IllegalArgumentException("lockAtMostFor of ShedLock lock '" + name + "' is "
                    + describe(lockAtMostFor) + ", below the minimum of " + minimumLockAtMostFor.toMillis()
                    + " ms for this client (it must exceed perNodeTimeout "
                    + client.config().perNodeTimeout().toMillis() + " ms + drift + minValidity "
                    + client.config().minValidity().toMillis() + " ms)");
        }
        if (lockAtMostFor.compareTo(RedlockConfig.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("lockAtMostFor of ShedLock lock '" + name + "' is "
                    + describe(lockAtMostFor) + ", above the maximum of 7 days");
        }
        return lockAtMostFor;
    }

    private static String describe(Duration d) {
        return d.getNano() % 1_000_000 == 0 && d.compareTo(RedlockConfig.MAX_LEASE_TIME) <= 0
                ? d.toMillis() + " ms"
                : d.toString();
    }

    /** The smallest whole number of milliseconds that {@link RedlockConfig#checkLeaseTime} accepts. */
    static Duration minimumLeaseTime(RedlockConfig config) {
        double needNanos = (config.perNodeTimeout().toNanos()
                        + RedlockConfig.DRIFT_CONSTANT.toNanos()
                        + config.minValidity().toNanos())
                / (1 - config.driftFactor());
        long millis = Math.max(1, (long) (needNanos / 1_000_000) - 1);
        // The configured lease time passed the same check when the configuration was built.
        long cap = (long) Math.ceil(config.leaseTime().toNanos() / 1e6);
        while (millis < cap && !accepted(config, Duration.ofMillis(millis))) {
            millis++;
        }
        return Duration.ofMillis(millis);
    }

    private static boolean accepted(RedlockConfig config, Duration leaseTime) {
        try {
            RedlockConfig.checkLeaseTime(
                    "lockAtMostFor", leaseTime, config.perNodeTimeout(), config.driftFactor(), config.minValidity());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether a release's outcome shows the key is no longer ours on a quorum of the nodes. */
    private boolean confirmed(ReleaseResult r) {
        return r.released() + r.alreadyExpired() + r.ownedByAnother() >= quorum;
    }

    /**
     * One ShedLock lock: a lease with a fixed TTL. The lease is shared by the locks that {@link #extend} creates, and
     * each lock acts at most once ({@link #used}), also when its methods are called from several threads.
     */
    private static final class RedlockSimpleLock extends AbstractSimpleLock {

        private final RedlockLockProvider provider;
        private final Lease lease;
        private final AtomicBoolean used = new AtomicBoolean();

        RedlockSimpleLock(RedlockLockProvider provider, LockConfiguration lockConfiguration, Lease lease) {
            super(lockConfiguration);
            this.provider = provider;
            this.lease = lease;
        }

        private String name() {
            return lockConfiguration.getName();
        }

        private void claim() {
            if (!used.compareAndSet(false, true)) {
                throw new IllegalStateException(
                        "Lock " + name() + " is not valid, it has already been unlocked or " + "extended");
            }
        }

        @Override
        protected void doUnlock() {
            claim();
            Instant now = ClockProvider.now();
            Duration keep = Duration.between(now, lockConfiguration.getLockAtLeastUntil());
            if (keep.isNegative() || keep.isZero()) {
                release();
            } else if (keep.compareTo(provider.minimumLockAtMostFor) >= 0 && lease.isValid()) {
                shorten(keep);
            } else {
                releaseLater(keep);
            }
        }

        private void release() {
            boolean valid = lease.isValid();
            ReleaseResult result = lease.release();
            if (!valid) {
                LOG.warn(
                        "ShedLock lock '{}' was unlocked after its lease ended: the task ran longer than "
                                + "lockAtMostFor ({} ms), so another instance may have run it at the same time; release: {}",
                        name(),
                        lockConfiguration.getLockAtMostFor().toMillis(),
                        result);
            } else if (!provider.confirmed(result)) {
                LOG.warn(
                        "ShedLock lock '{}': the release was not confirmed by a quorum of nodes, so the lock may stay "
                                + "held until its keys expire, at the latest at {} (lockAtMostUntil); release: {}",
                        name(),
                        lockConfiguration.getLockAtMostUntil(),
                        result);
            } else {
                LOG.debug("ShedLock lock '{}' released: {}", name(), result);
            }
        }

        /** Cuts the keys' TTL to {@code keep} (a token-checked PEXPIRE on every node), so lockAtLeastFor holds. */
        private void shorten(Duration keep) {
            RoundOutcome outcome = lease.extend(keep);
            if (outcome.succeeded()) {
                LOG.debug("ShedLock lock '{}' kept for {} ms more (lockAtLeastFor)", name(), keep.toMillis());
            } else {
                LOG.warn(
                        "ShedLock lock '{}': could not cut its TTL to the {} ms of lockAtLeastFor left on a quorum "
                                + "({}); nodes that did not apply it keep the lock until their keys expire, at the latest at "
                                + "{} (lockAtMostUntil): {}",
                        name(),
                        keep.toMillis(),
                        outcome.reason(),
                        lockConfiguration.getLockAtMostUntil(),
                        outcome);
            }
        }

        /**
         * Deletes the keys once {@code keep} has passed: a lease that short cannot be set on the nodes. If the client
         * is closed by then, or the process stops, the keys expire by their TTL (lockAtMostUntil).
         */
        private void releaseLater(Duration keep) {
            LOG.debug("ShedLock lock '{}' will be released in {} ms (lockAtLeastFor)", name(), keep.toMillis());
            CompletableFuture.delayedExecutor(
                            keep.toNanos(),
                            TimeUnit.NANOSECONDS,
                            provider.client.config().asyncExecutor())
                    .execute(() -> {
                        try {
                            java.util.concurrent.CompletableFuture<?> unused = lease.releaseAsync()
                                    .whenComplete((result, error) -> {
                                        if (error != null || !provider.confirmed(result)) {
                                            LOG.warn(
                                                    "ShedLock lock '{}': the delayed release was not confirmed by a quorum "
                                                            + "of nodes, so the lock may stay held until its keys expire, at the "
                                                            + "latest at {} (lockAtMostUntil): {}",
                                                    name(),
                                                    lockConfiguration.getLockAtMostUntil(),
                                                    error != null ? error : result);
                                        }
                                    });
                        } catch (RuntimeException e) {
                            LOG.warn(
                                    "ShedLock lock '{}': the delayed release failed; its keys expire at the latest "
                                            + "at {} (lockAtMostUntil)",
                                    name(),
                                    lockConfiguration.getLockAtMostUntil(),
                                    e);
                        }
                    });
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
            Duration leaseTime = provider.checkLockAtMostFor(name(), newConfiguration.getLockAtMostFor());
            claim();
            RoundOutcome outcome;
            try {
                outcome = lease.extend(leaseTime);
            } catch (RuntimeException | Error e) {
                used.set(false);
                throw e;
            }
            if (outcome.succeeded()) {
                LOG.debug("ShedLock lock '{}' extended to at most {} ms from now", name(), leaseTime.toMillis());
                return Optional.of(new RedlockSimpleLock(provider, newConfiguration, lease));
            }
            if (outcome.reason() == FailureReason.LEASE_EXPIRED) {
                LOG.warn(
                        "ShedLock lock '{}' cannot be extended: its lease already ended (lockAtMostFor passed, or too "
                                + "many nodes no longer hold it): {}",
                        name(),
                        outcome);
                return Optional.empty();
            }
            // Node failures: the extension was not confirmed, so this lock stays usable (unlock, or extend again).
            used.set(false);
            if (outcome.reason() == FailureReason.NOT_ENOUGH_NODES) {
                throw new LockException(
                        "ShedLock lock '" + name() + "' not extended: too few Redis nodes reachable "
                                + "for a quorum; count on it only until its previous lockAtMostUntil "
                                + lockConfiguration.getLockAtMostUntil(),
                        new NotEnoughNodesException(outcome));
            }
            throw new LockException("ShedLock lock '" + name() + "' not extended (" + outcome.reason() + "); count on "
                    + "it only until its previous lockAtMostUntil " + lockConfiguration.getLockAtMostUntil() + ": "
                    + outcome);
        }

        @Override
        public String toString() {
            return "RedlockSimpleLock{" + name() + ", lockAtMostUntil=" + lockConfiguration.getLockAtMostUntil()
                    + ", lockAtLeastUntil=" + lockConfiguration.getLockAtLeastUntil() + '}';
        }
    }
}
