/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.internal.engine.Inspection;
import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.node.NodeClients;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.node.TopologyCheck;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point: owns one connection per node (and one subscriber connection per node while some acquisition
 * waits), one I/O thread for every node given by URI, one more for each node given as a {@link NodeTransport}, and one
 * scheduler thread, and hands out locks. A blocking call that is the only one of this client waiting for its round's
 * replies reads them on its own thread (a thread dump shows it {@code RUNNABLE} in a select) instead of waiting for
 * the I/O thread to read them and wake it; with several at once, the I/O thread reads for all of them.
 *
 * <pre>{@code
 * try (RedlockClient client = RedlockClient.create(RedlockConfig.builder()
 *         .nodes("redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379")
 *         .build())) {
 *     Lock lock = client.redLock("orders:42");
 *     if (lock.tryLock(2, TimeUnit.SECONDS)) {
 *         try {
 *             // critical section
 *         } finally {
 *             lock.unlock();
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe: share one client across the application. Creating it starts the node I/O threads, which connect
 * while creation waits at most one connect timeout (a node that is down at start does not fail creation; it answers
 * with errors until it is back).
 * {@link #close()} flushes queued releases, closes every connection and stops every thread the client started.
 * Clients given through {@link RedlockConfig.Builder#node(String, NodeTransport)} belong to the caller and are not
 * closed.
 */
public final class RedlockClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockClient.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    private final RedlockConfig config;
    private final NodeClients nodes;
    private final ScheduledThreadPoolExecutor scheduler;
    private final QuorumEngine engine;
    private final ConcurrentHashMap<QuorumLock.HoldKey, QuorumLock.Hold> holds = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private RedlockClient(RedlockConfig config) {
        this.config = config;
        String prefix = "redlock-" + IDS.incrementAndGet() + "-";
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, prefix + "scheduler");
            t.setDaemon(true);
            return t;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        Quarantine quarantine = new Quarantine(config);
        this.nodes = new NodeClients(config, prefix, quarantine);
        this.engine = new QuorumEngine(config, nodes.nodes(), scheduler, quarantine, prefix);
        engine.listen(nodes);
        engine.drivenBy(nodes.parking());
        nodes.start();
        nodes.awaitFirstConnections(config.connectTimeout());
        engine.holders().start();
        LOG.debug("started Redlock client over {} node(s): {}", nodes.nodes().size(), config.nodeNames());
    }

    /**
     * Creates a client and starts its threads. With {@link RedlockConfig#checkTopology()} on (the default), first
     * inspects the nodes as {@link #check()} does, logging each warning; this costs one short connection and a few
     * commands per node, and up to about one connect timeout for each node that does not answer. Then waits until
     * every node's first connection is ready (connected, TLS handshake done, scripts loaded) or has failed, at most
     * one connect timeout in all, so the first lock does not race the client's own connection setup.
     *
     * @param config the configuration
     * @return a new client; close it when done
     * @throws IllegalStateException if {@link RedlockConfig#strictTopology()} is on and the topology check found a
     *         problem (see {@link #check()}); no thread or connection of the client is left behind
     */
    public static RedlockClient create(RedlockConfig config) {
        Objects.requireNonNull(config, "config");
        config = config.withClusterExpanded();
        if (config.checkTopology()) {
            // Before any thread or connection of the client exists: a strict failure leaves nothing to close, and a
            // user's own client is never used by the check and the node's I/O thread at once.
            checkTopology(config);
        }
        return new RedlockClient(config);
    }

    /**
     * Creates a client over the given node URIs with every other setting at its default.
     *
     * @param nodeUris {@code redis://[user:password@]host[:port][/db]} or {@code rediss://} URIs
     * @return a new client; close it when done
     * @throws IllegalArgumentException if the node list is empty or a URI is malformed
     */
    public static RedlockClient create(String... nodeUris) {
        return create(RedlockConfig.builder().nodes(nodeUris).build());
    }

    /**
     * Returns a RedLock: granted by a majority ({@code N/2 + 1}) of the configured nodes.
     *
     * @param name the lock's name; the Redis key is {@code keyPrefix + "{" + name + "}"}
     * @return the lock; cheap to create, and every instance with the same name and kind shares the hold state of
     *         this client, so reentrancy works across instances
     * @throws IllegalArgumentException if the name is empty, has an unpaired surrogate, or is longer than
     *         {@link #MAX_LOCK_NAME_BYTES} UTF-8 bytes
     */
    public QuorumLock redLock(String name) {
        return lock(name, QuorumPolicy.MAJORITY);
    }

    /**
     * Returns a MultiLock: granted only when every configured node grants.
     *
     * @param name the lock's name; the Redis key is {@code keyPrefix + "{" + name + "}"}
     * @return the lock
     * @throws IllegalArgumentException if the name is empty, has an unpaired surrogate, or is longer than
     *         {@link #MAX_LOCK_NAME_BYTES} UTF-8 bytes
     */
    public QuorumLock multiLock(String name) {
        return lock(name, QuorumPolicy.ALL);
    }

    /**
     * Reads who holds lock {@code name} on every node, in parallel, waiting at most one per-node timeout. A snapshot
     * for operators, stale as soon as it is read: never decide from it whether to act on a resource.
     *
     * @param name the lock's name, checked as by {@link #lock(String, QuorumPolicy)}
     * @return each node's holder and remaining TTL, and the quorum view
     * @throws IllegalArgumentException if the name is not a valid lock name
     * @throws IllegalStateException if the client is closed
     */
    public LockInfo inspect(String name) {
        return info(name, engine.inspection().inspect(keyOf(name)));
    }

    /**
     * Returns whether one holder has lock {@code name} on a majority of the nodes now; see {@link #inspect(String)}.
     *
     * @param name the lock's name
     * @return the quorum view: {@link LockInfo#locked()}
     * @throws IllegalArgumentException if the name is not a valid lock name
     * @throws IllegalStateException if the client is closed
     */
    public boolean isLocked(String name) {
        return inspect(name).locked();
    }

    /**
     * Deletes lock {@code name}'s key on every node, whoever holds it: an administrator's way out of a lock held by a
     * process that will not release it. It first inspects the nodes, then deletes on each node only the key of the
     * holder seen there (token-checked), so a holder that took the lock in between is left alone. Logged at WARN with
     * the holder, the calling thread and process. The holder is not told at once: its next extension finds the key
     * gone and its lease is declared lost (a holder with a fixed lease keeps believing it holds until its deadline,
     * so use this only on a holder known to be gone, or with fencing tokens, which this leaves increasing). Waiters
     * are woken as by a release.
     *
     * @param name the lock's name
     * @return each node's answer: {@link NodeStatus#RELEASED} deleted, {@link NodeStatus#ALREADY_EXPIRED} absent (or
     *     nothing seen there), {@link NodeStatus#OWNED_BY_ANOTHER} a new holder since, left alone, or a failure (that
     *     node keeps the key until its TTL)
     * @throws IllegalArgumentException if the name is not a valid lock name
     * @throws IllegalStateException if the client is closed
     */
    public List<NodeOutcome> forceUnlock(String name) {
        String key = keyOf(name);
        LockInfo before = inspect(name);
        List<String> seen =
                before.holders().stream().map(h -> h.orElse(null)).collect(java.util.stream.Collectors.toList());
        List<NodeOutcome> deleted = new java.util.ArrayList<>();
        for (Inspection.NodeView v : engine.inspection().forceRelease(key, seen)) {
            deleted.add(v.outcome());
        }
        long n = deleted.stream().filter(o -> o.status() == NodeStatus.RELEASED).count();
        LOG.warn(
                "lock '{}' force-unlocked by thread '{}' of process {}: key deleted on {} of {} nodes; holder was {}",
                name,
                Thread.currentThread().getName(),
                ProcessHandle.current().pid(),
                n,
                deleted.size(),
                before.holder()
                        .map(h -> h + "…")
                        .orElse("none with a majority (per node: "
                                + before.holders().stream()
                                        .map(h -> h.map(p -> p + "…").orElse("-"))
                                        .toList() + ")"));
        return deleted;
    }

    /** How many nodes' release-notification subscriptions are up now (for tests). */
    int listeningNodes() {
        return nodes.listening();
    }

    private LockInfo info(String name, List<Inspection.NodeView> views) {
        List<NodeOutcome> outcomes = new java.util.ArrayList<>(views.size());
        List<Optional<String>> holders = new java.util.ArrayList<>(views.size());
        List<Optional<HolderIdentity>> identities = new java.util.ArrayList<>(views.size());
        for (Inspection.NodeView v : views) {
            outcomes.add(v.outcome());
            holders.add(Optional.ofNullable(v.holderPrefix()));
            identities.add(HolderIdentity.parse(v.holderEntry()));
        }
        return new LockInfo(name, outcomes, holders, identities, config.driftFactor());
    }

    /**
     * Returns a counting semaphore: at most {@code permits} leases of it are held at once, each permit a RedLock of
     * its own. See {@link QuorumSemaphore} for how, and for why counting per node would not be safe.
     *
     * @param name the semaphore's name; permit {@code i} is the lock {@code name + "/permit-" + i}
     * @param permits how many leases may be held at once, 1 to {@link QuorumSemaphore#MAX_PERMITS}
     * @return the semaphore; cheap to create
     * @throws IllegalArgumentException if {@code permits} is out of range, or the name is empty, has an unpaired
     *         surrogate, or is longer than {@link #MAX_LOCK_NAME_BYTES} minus 16 UTF-8 bytes
     */
    public QuorumSemaphore semaphore(String name, int permits) {
        Objects.requireNonNull(name, "name");
        if (permits < 1 || permits > QuorumSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException(
                    "permits: must be between 1 and " + QuorumSemaphore.MAX_PERMITS + ", was " + permits);
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name: a semaphore name must not be empty");
        }
        LockRef.checkUtf8("name", "a semaphore name", name, MAX_LOCK_NAME_BYTES - QuorumSemaphore.SUFFIX_BYTES);
        List<QuorumLock> slots = new java.util.ArrayList<>(permits);
        for (int i = 0; i < permits; i++) {
            slots.add(redLock(name + "/permit-" + i));
        }
        return new QuorumSemaphore(name, permits, slots, engine);
    }

    /**
     * Returns a fair lock: a RedLock granted in the order its acquisitions began. Every acquisition takes a place in a
     * queue on each node, kept through all its rounds, and a node grants the lock only to the first place of its
     * queue; the place is the time the acquisition began on this client's {@link RedlockConfig#wallClock() wall
     * clock}, ties broken by a random waiter id, so every node orders the same waiters the same way. An acquisition
     * that begins while an older one of this client waits for the same lock between its rounds (its place standing in
     * the queue) runs no round to take its place: this client's next message for the lock (a waiter's round, a
     * lease's release or a waiter's leave) takes it, at its own order, on every node that message reaches, before it
     * removes anything; until then the older waiter's place is ahead of any later one. So a client's threads that take
     * turns with the lock need one round per acquisition, not two.
     *
     * <p>The guarantee: while waiter A keeps trying (its place never expires) and its place is on a majority of
     * nodes, no waiter with a later place is granted the lock: any majority that could grant the later one includes
     * a node where A is ahead of it. Within one client, places follow the order in which acquisitions began. Across
     * clients they follow the clocks, so a client whose clock is behind goes earlier (its skew decides the order,
     * never the exclusion). A place lasts {@link #queueWindow()} after each attempt: a waiter that dies or is cut off
     * loses it then, and the waiters behind it move up. An acquisition that gives up (or is cancelled) takes its place
     * out of every queue at once; a lease's release does too.
     *
     * <p>Everything else is as for {@link #redLock(String)}: the {@link java.util.concurrent.locks.Lock} and the
     * handle faces, async, the watchdog, lost-lease signals, and {@link QuorumLock#fenced() fencing}. The fair lock
     * shares its key with {@code redLock(name)}, which ignores the queue: do not mix the two on one name.
     *
     * @param name the lock's name, checked as by {@link #lock(String, QuorumPolicy)}
     * @return the fair lock; cheap to create
     * @throws IllegalArgumentException if the name is not a valid lock name
     */
    public QuorumLock fairLock(String name) {
        return new QuorumLock(
                this,
                engine,
                LockRef.fair(
                        name, keyOf(name), QuorumPolicy.MAJORITY, queueWindow().toMillis()));
    }

    /**
     * Returns a read-write lock over the client's nodes, by majority: many readers or one writer. Without a
     * preference, new readers may keep a waiting writer out for as long as readers overlap; see
     * {@link QuorumReadWriteLock#preferWriters()}.
     *
     * @param name the lock's name, checked as by {@link #lock(String, QuorumPolicy)}; the writer's key is
     *     {@code keyOf(name)} and the readers' set is beside it
     * @return the read-write lock; cheap to create
     * @throws IllegalArgumentException if the name is not a valid lock name
     */
    public QuorumReadWriteLock readWriteLock(String name) {
        return new QuorumReadWriteLock(this, engine, name, keyOf(name), false);
    }

    /**
     * Returns a lock over several resources at once, by majority: a lease holds every one of them, or none. On each
     * node one script sets every resource's key or none (all must be free), so clients that ask for overlapping sets
     * in any order cannot deadlock: nobody ever holds part of a set while waiting for the rest. Each resource is the
     * key of {@code redLock(name)} for its name, so this lock and those RedLocks exclude each other.
     *
     * <p>Its leases carry no fencing token ({@link QuorumLock#fenced()} throws). Waiters are woken by the release of
     * the set's first name (in sorted order) and otherwise poll, never sleeping past the time the busiest resource's
     * holder expires.
     *
     * <p>With {@link RedlockConfig.Builder#nodesPerLock(int)} below the node count, every name must be placed on the
     * same nodes ({@link #nodeNamesOf(String)}); a set whose names are placed apart is refused.
     *
     * @param names the resources' names (at least one, at most {@link QuorumSemaphore#MAX_PERMITS}); order and
     *     repeats do not matter, each name is checked as by {@link #lock(String, QuorumPolicy)}
     * @return the lock; its {@link QuorumLock#name()} lists the sorted names
     * @throws IllegalArgumentException if {@code names} is empty or too long, a name is not a valid lock name, or
     *     (with {@code nodesPerLock}) the names are placed on different nodes
     */
    public QuorumLock multiResourceLock(java.util.Collection<String> names) {
        Objects.requireNonNull(names, "names");
        java.util.TreeSet<String> sorted = new java.util.TreeSet<>();
        for (String name : names) {
            keyOf(Objects.requireNonNull(name, "names: a name must not be null"));
            sorted.add(name);
        }
        if (sorted.isEmpty() || sorted.size() > QuorumSemaphore.MAX_PERMITS) {
            throw new IllegalArgumentException(
                    "names: must hold 1 to " + QuorumSemaphore.MAX_PERMITS + " distinct names, got " + sorted.size());
        }
        // In the order of the names, not sorted again: the lock key (the first) is the first name's, whose release
        // wakes the waiters. Keys sort otherwise when a name is a prefix of another ("{a1}" after "{a10}").
        List<String> keys = new java.util.ArrayList<>(sorted.size());
        for (String name : sorted) {
            keys.add(keyOf(name));
        }
        // One script per node sets every key: it excludes each name's own lock only where that lock lives, so with
        // each lock on its own nodes every name must be placed on the first one's nodes.
        List<String> first = engine.nodeNamesOf(keys.get(0));
        for (int i = 1; i < keys.size(); i++) {
            List<String> other = engine.nodeNamesOf(keys.get(i));
            if (!other.equals(first)) {
                throw new IllegalArgumentException("names: with nodesPerLock " + config.nodesPerLock() + " each lock"
                        + " uses its own nodes, and '" + sorted.first() + "' uses " + first + " while '"
                        + new java.util.ArrayList<>(sorted).get(i) + "' uses " + other + "; one lock over several"
                        + " resources needs them on the same nodes. Take their locks one by one in sorted order, or"
                        + " use nodesPerLock 0");
            }
        }
        return new QuorumLock(this, engine, LockRef.multi(sorted.toString(), keys, QuorumPolicy.MAJORITY));
    }

    /**
     * How long a fair lock's waiter (or a preferred writer) keeps its place without a new attempt. Such a waiter tries
     * again at least every third of it, so only a waiter that died (or was cut off) loses its place, and it holds the
     * lock's queue up for at most this long.
     *
     * @return three retry delays (with their jitter), at least 5 seconds
     */
    public java.time.Duration queueWindow() {
        long poll = (long) Math.ceil(config.retryDelay().toMillis() * (1 + Math.min(config.retryJitter(), 0.999)));
        return java.time.Duration.ofMillis(Math.max(5_000, 3 * poll));
    }

    /**
     * The longest lock name, in UTF-8 bytes: 4096. Checked by {@link #lock(String, QuorumPolicy)} and everything
     * that goes through it ({@link #redLock(String)}, {@link #multiLock(String)}, {@code withLock}).
     */
    public static final int MAX_LOCK_NAME_BYTES = 4096;

    /**
     * Returns a lock with the given quorum policy.
     *
     * <p>A name is any non-empty string of valid Unicode (no unpaired surrogate: it has no UTF-8 form, so two names
     * could share one key) of at most {@link #MAX_LOCK_NAME_BYTES} UTF-8 bytes. It reaches Redis unchanged.
     *
     * @param name the lock's name
     * @param policy {@link QuorumPolicy#MAJORITY} (RedLock) or {@link QuorumPolicy#ALL} (MultiLock)
     * @return the lock
     * @throws IllegalArgumentException if the name is empty, has an unpaired surrogate (the message gives its
     *         index), or is longer than {@link #MAX_LOCK_NAME_BYTES} UTF-8 bytes
     */
    public QuorumLock lock(String name, QuorumPolicy policy) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        // keyOf checks the name: empty, unpaired surrogates, UTF-8 length. With notifications, waiters queue for the
        // hand-over on the nodes, so that a release wakes one waiter across all clients.
        return new QuorumLock(
                this,
                engine,
                new LockRef(name, keyOf(name), policy)
                        .handOver(
                                config.releaseNotifications() ? handOverWindow().toMillis() : 0));
    }

    /**
     * How long a client's place in a lock's hand-over queue lasts on a node without a new attempt: three polls of a
     * waiter (the retry delay with its jitter), at least 1 s. A client that dies while it waits holds the queue up at
     * most this long (the waiters behind it retry when its place lapses); one that gives up or closes leaves at once.
     *
     * @return the window; derived from {@link RedlockConfig#retryDelay()} and {@link RedlockConfig#retryJitter()}
     */
    java.time.Duration handOverWindow() {
        long poll = (long) Math.ceil(config.retryDelay().toMillis() * (1 + Math.min(config.retryJitter(), 0.999)));
        return java.time.Duration.ofMillis(Math.max(1_000, 3 * poll));
    }

    /**
     * How long a waiting writer's place in a read-write lock's writers' line lasts without a new attempt, in
     * milliseconds: the hand-over window with notifications (a release names the line's head), else 0 (no line).
     */
    long writersLineMillis() {
        return config.releaseNotifications() ? handOverWindow().toMillis() : 0;
    }

    /**
     * Returns the Redis key that holds lock {@code name} on every node. The name is checked as by
     * {@link #lock(String, QuorumPolicy)}.
     *
     * @param name the lock's name
     * @return {@code keyPrefix + "{" + name + "}"}
     * @throws IllegalArgumentException if the name is empty, has an unpaired surrogate, or is longer than
     *         {@link #MAX_LOCK_NAME_BYTES} UTF-8 bytes
     */
    public String keyOf(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name: a lock name must not be empty");
        }
        LockRef.checkUtf8("name", "a lock name", name, MAX_LOCK_NAME_BYTES);
        return LockRef.keyOf(config.keyPrefix(), name);
    }

    /**
     * Inspects the nodes for setups under which Redlock's guarantees do not hold, and logs each warning at WARN: two
     * configured nodes that are one server (same {@code run_id}), a node that is a replica or has replicas, a
     * {@code maxmemory-policy} that may evict lock keys ({@code allkeys-*}, or more mildly {@code volatile-*}), an
     * even N or N below 3, and a lease time that leaves little validity after a worst-case round
     * ({@code leaseTime - drift - perNodeTimeout} below 10 per-node timeouts). Runs at creation too unless
     * {@link RedlockConfig#checkTopology()} is off.
     *
     * <p>A node that cannot be reached, or that refuses a command (such as a renamed {@code CONFIG} on managed
     * Redis), gives a "cannot check" warning ({@link TopologyReport#unchecked()}), logged at WARN like the others but
     * never a failure, even in strict mode: nodes may be down when a client starts.
     *
     * <p>Thread-safe. Blocks: nodes are checked one after another, each over one short-lived connection with a few
     * commands (a node given as a user's client is checked through that client), so a call takes up to about one
     * connect timeout per unreachable node; a node that accepts connections but does not answer costs one
     * {@code max(perNodeTimeout, 1 s)} more. Does not touch the client's own connections or lock state.
     *
     * @return the warnings found
     * @throws IllegalStateException if {@link RedlockConfig#strictTopology()} is on and any warning other than a
     *         "cannot check" was found; the message lists them
     */
    public TopologyReport check() {
        return checkWithQuarantine();
    }

    /**
     * Returns the nodes whose votes do not count now under restart protection (see
     * {@link RedlockConfig.Builder#restartQuarantine(boolean)}): a node that started, restarted or lost its data less
     * than the longest lease in use plus drift ago, as far as this client has seen. Each maps to a sentence saying why
     * and about how many seconds are left. Reads what the client already knows: no I/O, cheap enough for every health
     * check. Thread-safe.
     *
     * @return node name to sentence, in the configured order; empty when every node's votes count, when restart
     *     protection is off, or before the client has read a node's {@code INFO}
     */
    public Map<String, String> restartProtection() {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (dev.redlock.internal.node.NodeClient n : nodes.nodes()) {
            String why = n.quarantined();
            if (why != null) {
                out.put(n.name(), why);
            }
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    private TopologyReport checkWithQuarantine() {
        Map<String, String> protection = restartProtection();
        return checkTopology(config, protection::get);
    }

    private static TopologyReport checkTopology(RedlockConfig config) {
        return checkTopology(config, name -> null);
    }

    private static TopologyReport checkTopology(
            RedlockConfig config, java.util.function.Function<String, String> quarantined) {
        TopologyReport report = TopologyCheck.run(config, quarantined);
        report.quarantined().forEach(q -> LOG.warn("topology: {}", q));
        report.noQuorum().ifPresent(q -> LOG.error("topology: {}", q));
        for (String failure : report.failures()) {
            LOG.error("topology: {}", failure);
        }
        for (String warning : report.warnings()) {
            if (!report.failures().contains(warning)) {
                LOG.warn("topology: {}", warning);
            }
        }
        if (report.isClean()) {
            LOG.debug("topology check of {}: no warnings", config.nodeNames());
        }
        if (config.strictTopology() && !report.problems().isEmpty()) {
            throw new IllegalStateException("strictTopology: the topology check found "
                    + report.problems().size() + " problem(s): " + String.join("; ", report.problems()));
        }
        return report;
    }

    /**
     * Returns the configuration.
     *
     * @return the immutable configuration
     */
    public RedlockConfig config() {
        return config;
    }

    /**
     * Returns the node names, in configuration order, as they appear in outcomes.
     *
     * @return an unmodifiable list
     */
    public List<String> nodeNames() {
        return config.nodeNames();
    }

    /**
     * Returns the names of the nodes that lock {@code name} uses, in configuration order: every node, or with
     * {@link RedlockConfig.Builder#nodesPerLock(int)} below the node count, the lock's own. A multi-resource lock uses
     * the nodes of its first name (in sorted order); a semaphore's permits each use their own. Thread-safe.
     *
     * @param name the lock's name
     * @return an unmodifiable list, as the nodes appear in that lock's outcomes
     * @throws IllegalArgumentException if the name is not a valid lock name (see {@link #keyOf(String)})
     */
    public List<String> nodeNamesOf(String name) {
        return engine.nodeNamesOf(keyOf(name));
    }

    /**
     * Returns how many leases this client holds now: acquired (by any lock of this client), neither released nor
     * lost, and still valid. For gauges; a snapshot.
     *
     * @return the number of held leases
     */
    public int activeLeases() {
        return engine.activeLeases();
    }

    /**
     * Returns how many leases the client's watchdog keeps extending now. For gauges; a snapshot.
     *
     * @return the number of auto-extended leases
     */
    public int autoExtendedLeases() {
        return engine.autoExtendedLeases();
    }

    /**
     * Returns whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed.get();
    }

    /**
     * Runs {@code body} while holding the lock {@code name}, kept alive by the watchdog, and releases it afterwards
     * (in a {@code finally}). If the lease is lost while the body runs, the body's thread is interrupted, its result
     * is discarded and the call throws {@link LockLostException}. While the body runs, the slf4j MDC holds the lock's
     * name under {@link #MDC_LOCK} and, for a fenced lease, its fencing token under {@link #MDC_FENCING_TOKEN}.
     *
     * @param name the lock's name
     * @param options policy, wait budget and TTL; {@link LockOptions#defaults()} for a RedLock with the client's
     *        settings
     * @param body the critical section; it runs on the calling thread and should respond to interruption
     * @param <T> the body's result type
     * @return the body's result, or empty if the lock stayed busy for the whole wait budget (or the body returned
     *         {@code null})
     * @throws LockLostException if the lease was lost while the body ran
     * @throws NotEnoughNodesException if the wait budget ran out because too few nodes were reachable
     * @throws InterruptedException if interrupted while waiting for the lock
     * @throws IllegalArgumentException if the name is not a valid lock name (see {@link #lock(String, QuorumPolicy)})
     *         or the lease time is out of range
     * @throws Exception whatever the body throws
     */
    @SuppressWarnings("try") // the MDC scope is only there to be closed
    public <T> Optional<T> withLock(String name, LockOptions options, Callable<T> body) throws Exception {
        Objects.requireNonNull(body, "body");
        Optional<Lease> acquired = acquireFor(name, options);
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = acquired.get();
        BodyGuard guard = new BodyGuard(Thread.currentThread());
        lease.onLost(e -> guard.interrupt());
        T result;
        try (MdcScope ignored = MdcScope.of(name, lease)) {
            result = body.call();
        } catch (Exception | Error e) {
            guard.finish();
            lease.release();
            if (!lease.lossCause().isEmpty() || guard.interrupted) {
                LockLostException lost = lostOf(lease);
                lost.addSuppressed(e);
                throw lost;
            }
            throw e;
        }
        guard.finish();
        boolean valid = lease.isValid();
        if (!valid) {
            try {
                lease.checkValid(); // marks an expiry no timer saw yet as a loss
            } catch (LockLostException ignored) {
                // Reported below with the release's outcome.
                LOG.trace("lease of '{}' found invalid after the body", name);
            }
        }
        lease.release();
        if (!valid || guard.interrupted) {
            throw lostOf(lease);
        }
        return Optional.ofNullable(result);
    }

    /**
     * Runs {@code body} while holding the lock {@code name}; see {@link #withLock(String, LockOptions, Callable)}.
     *
     * @param name the lock's name
     * @param options policy, wait budget and TTL
     * @param body the critical section; it runs on the calling thread and should respond to interruption
     * @return true if the body ran, false if the lock stayed busy for the whole wait budget
     * @throws LockLostException if the lease was lost while the body ran
     * @throws NotEnoughNodesException if the wait budget ran out because too few nodes were reachable
     * @throws InterruptedException if interrupted while waiting for the lock
     */
    public boolean withLock(String name, LockOptions options, Runnable body) throws InterruptedException {
        Objects.requireNonNull(body, "body");
        Object ran = new Object();
        try {
            return withLock(name, options, () -> {
                        body.run();
                        return ran;
                    })
                    .isPresent();
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("a Runnable threw a checked exception", e);
        }
    }

    /**
     * The lock's name ({@value #MDC_LOCK}) and fencing token ({@value #MDC_FENCING_TOKEN}, fenced leases only) in the
     * slf4j MDC while a {@code withLock} body runs; the values they had before come back after it.
     */
    private static final class MdcScope implements AutoCloseable {
        private final String oldLock;
        private final String oldToken;

        private MdcScope(String oldLock, String oldToken) {
            this.oldLock = oldLock;
            this.oldToken = oldToken;
        }

        static MdcScope of(String name, Lease lease) {
            MdcScope scope = new MdcScope(org.slf4j.MDC.get(MDC_LOCK), org.slf4j.MDC.get(MDC_FENCING_TOKEN));
            org.slf4j.MDC.put(MDC_LOCK, name);
            if (lease.fencingToken().isPresent()) {
                org.slf4j.MDC.put(
                        MDC_FENCING_TOKEN, Long.toString(lease.fencingToken().getAsLong()));
            } else {
                org.slf4j.MDC.remove(MDC_FENCING_TOKEN);
            }
            return scope;
        }

        @Override
        public void close() {
            restore(MDC_LOCK, oldLock);
            restore(MDC_FENCING_TOKEN, oldToken);
        }

        private static void restore(String key, String value) {
            if (value == null) {
                org.slf4j.MDC.remove(key);
            } else {
                org.slf4j.MDC.put(key, value);
            }
        }
    }

    /** The slf4j MDC key holding the lock's name while a {@code withLock} body runs. */
    public static final String MDC_LOCK = "redlock.lock";
    /** The slf4j MDC key holding the lease's fencing token while a fenced {@code withLock} body runs. */
    public static final String MDC_FENCING_TOKEN = "redlock.fencingToken";

    private Optional<Lease> acquireFor(String name, LockOptions options) throws InterruptedException {
        Objects.requireNonNull(options, "options");
        QuorumLock lock = lock(name, options.policy());
        if (options.isFenced()) {
            lock = lock.fenced();
        }
        long ttl = engine.checkLeaseTime(options.leaseTime().orElse(config.leaseTime()));
        Duration wait = options.waitTime().orElse(config.waitBudget());
        // Beyond what a long of nanoseconds holds (about 292 years): as long as it takes.
        long waitNanos =
                wait.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? QuorumEngine.FOREVER - 1 : wait.toNanos();
        AcquireResult result = engine.acquire(lock.ref(), ttl, waitNanos, true, true);
        if (!result.acquired() && result.reason() == FailureReason.NOT_ENOUGH_NODES) {
            throw new NotEnoughNodesException(result.lastRound());
        }
        return result.lease();
    }

    private static LockLostException lostOf(Lease lease) {
        return lease.lossCause()
                .orElseGet(() -> new LockLostException(
                        lease.lockName(), lease.token().substring(0, 8), LockLostException.Reason.EXPIRED, null));
    }

    /** Interrupts the body's thread on loss, but only while the body is still running. */
    private static final class BodyGuard {
        private final Thread thread;
        private boolean running = true;
        private volatile boolean interrupted;

        BodyGuard(Thread thread) {
            this.thread = thread;
        }

        synchronized void interrupt() {
            if (running) {
                interrupted = true;
                thread.interrupt();
            }
        }

        /** Called by the body's thread when the body returns; clears an interrupt this guard caused. */
        synchronized void finish() {
            running = false;
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }

    ConcurrentHashMap<QuorumLock.HoldKey, QuorumLock.Hold> holds() {
        return holds;
    }

    /**
     * Closes the client: stops accepting new rounds, stops the watchdog (auto-extended leases still held are
     * declared lost with {@link LockLostException.Reason#CLIENT_CLOSED} and their listeners told), lets each node's
     * I/O thread flush queued releases (bounded by a short grace period), closes every connection and stops every
     * thread the client started. Leases still held are not released; their keys expire after their TTL. Idempotent; calls after the first return at once.
     * Acquisitions in progress on other threads fail with {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // While the connections are up: this client's entry (who holds what) leaves the nodes with it.
        engine.holders().stop();
        engine.close();
        nodes.close();
        // Dropping what is still scheduled is safe: the engine failed every acquisition waiting for a retry,
        // closed nodes answer every queued op (so rounds decide without their timers), and kept leases are lost.
        scheduler.shutdownNow();
        // Lost-lease listeners are told on the async executor, which the client does not own or stop.
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("Redlock scheduler did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        holds.clear();
        LOG.debug("closed Redlock client over {}", config.nodeNames());
    }

    @Override
    public String toString() {
        return "RedlockClient{nodes=" + nodes.nodes() + ", closed=" + closed.get() + '}';
    }
}
