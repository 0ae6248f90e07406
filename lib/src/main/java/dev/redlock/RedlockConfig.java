/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static dev.redlock.ConfigChecks.describe;
import static dev.redlock.ConfigChecks.human;
import static dev.redlock.ConfigChecks.inRange;
import static dev.redlock.ConfigChecks.notNegative;
import static dev.redlock.ConfigChecks.saturated;

import dev.redlock.internal.node.NodeSpec;
import dev.redlock.internal.node.TlsSetup;
import dev.redlock.internal.script.LockRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The immutable configuration of a {@link RedlockClient}: the nodes and every timing setting. Built with
 * {@link #builder()}; each setter validates its argument at once and {@link Builder#build()} checks the rules that
 * span several fields, so a bad configuration fails before any connection is made, with a message that names the
 * field and the allowed range.
 *
 * <p>Instances are immutable and thread-safe. Defaults are the {@code DEFAULT_*} constants, upper limits the
 * {@code MAX_*} constants: a lease time or timeout outside its range is rejected, while a wait budget or hold cap
 * too long for a {@code long} of nanoseconds (such as {@code ChronoUnit.FOREVER.getDuration()}) is stored as the
 * longest one, "as long as it takes". No message and no {@code toString()} shows a node's user or password.
 */
public final class RedlockConfig {

    /** Default per-node timeout: 50 ms. A round waits at most this long for any node. */
    public static final Duration DEFAULT_PER_NODE_TIMEOUT = Duration.ofMillis(50);
    /** Default TCP connect timeout: 1 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /**
     * Default lease time when the caller fixes none: 30 s. Such leases are kept by the watchdog, which extends them to
     * this TTL every third of it.
     */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** Default drift factor: 0.01, so {@code drift = ttl * 0.01 + 2 ms}. */
    public static final double DEFAULT_DRIFT_FACTOR = 0.01;
    /** Default minimum validity: zero, so a round succeeds when its validity is above zero. */
    public static final Duration DEFAULT_MIN_VALIDITY = Duration.ZERO;
    /** Default wait budget of {@link QuorumLock#tryAcquire()}: 2 s. */
    public static final Duration DEFAULT_WAIT_BUDGET = Duration.ofSeconds(2);
    /** Default base delay between two rounds: 50 ms. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofMillis(50);
    /** Default jitter: 0.5, so delays are uniform in [25 ms, 75 ms] around the 50 ms base. */
    public static final double DEFAULT_RETRY_JITTER = 0.5;
    /** Default time a node's open circuit breaker waits before it lets a probe through: 1 s. */
    public static final Duration DEFAULT_CIRCUIT_OPEN_DURATION = Duration.ofSeconds(1);
    /** Default prefix of every lock key: {@code "redlock:"}. */
    public static final String DEFAULT_KEY_PREFIX = "redlock:";

    /** Default cap on how long the watchdog keeps a lease: zero, meaning no cap. */
    public static final Duration DEFAULT_MAX_HOLD_TIME = Duration.ZERO;
    /** Default cap on consecutive failed extensions before the watchdog gives up: zero, meaning until the deadline. */
    public static final int DEFAULT_MAX_FAILED_EXTENSIONS = 0;

    /** Default largest bulk string in a node's reply: 64 KiB. */
    public static final int DEFAULT_MAX_REPLY_BYTES = 64 * 1024;
    /** Smallest allowed {@link Builder#maxReplyBytes(int)}: 16 KiB (a whole INFO text must fit). */
    public static final int MIN_MAX_REPLY_BYTES = 16 * 1024;
    /** Largest allowed {@link Builder#maxReplyBytes(int)}: 16 MiB. */
    public static final int MAX_MAX_REPLY_BYTES = 16 * 1024 * 1024;

    /** Default interval between checks of each node's identity and uptime: 10 s. */
    public static final Duration DEFAULT_IDENTITY_CHECK_INTERVAL = Duration.ofSeconds(10);

    /** The fixed part of the drift: Redis expires keys with about a millisecond of granularity. */
    public static final Duration DRIFT_CONSTANT = Duration.ofMillis(2);

    /**
     * The longest lease time, for the configured default and for every lease time given per call (acquire, extend,
     * {@link LockOptions}): 7 days. A node that lost data sits out of quorums for the longest TTL in use, so huge TTLs
     * also mean long quarantines.
     */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(7);
    /** The longest per-node timeout: 1 minute. A round may wait this long for a node; typical values are ms. */
    public static final Duration MAX_PER_NODE_TIMEOUT = Duration.ofMinutes(1);
    /** The longest TCP connect timeout: 5 minutes. */
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(5);
    /** The longest base delay between two rounds: 1 minute. */
    public static final Duration MAX_RETRY_DELAY = Duration.ofMinutes(1);
    /** The longest time an open circuit breaker rejects commands before a probe: 10 minutes. */
    public static final Duration MAX_CIRCUIT_OPEN_DURATION = Duration.ofMinutes(10);
    /** The longest interval between two identity checks of a node: 1 day. */
    public static final Duration MAX_IDENTITY_CHECK_INTERVAL = Duration.ofDays(1);
    /**
     * The longest wait budget, {@code Long.MAX_VALUE} nanoseconds (about 292 years): "wait as long as it takes". A
     * longer budget, such as {@code ChronoUnit.FOREVER.getDuration()}, is stored as this.
     */
    public static final Duration MAX_WAIT_BUDGET = Duration.ofNanos(Long.MAX_VALUE);
    /**
     * The longest maximum hold time, {@code Long.MAX_VALUE} nanoseconds (about 292 years), in effect no cap. A longer
     * one is stored as this.
     */
    public static final Duration MAX_HOLD_TIME = Duration.ofNanos(Long.MAX_VALUE);
    /** The longest key prefix, in UTF-8 bytes: 1024. */
    public static final int MAX_KEY_PREFIX_BYTES = 1024;

    /** The longest {@link Builder#clientName(String)}, in characters. */
    public static final int MAX_CLIENT_NAME_LENGTH = 200;

    private final List<NodeSpec> nodes;
    private final Duration perNodeTimeout;
    private final Duration connectTimeout;
    private final Duration leaseTime;
    private final double driftFactor;
    private final Duration minValidity;
    private final Duration waitBudget;
    private final Duration retryDelay;
    private final double retryJitter;
    private final Duration circuitOpenDuration;
    private final String keyPrefix;
    private final String clientName;
    private final Duration maxHoldTime;
    private final int maxFailedExtensions;
    private final boolean restartQuarantine;
    private final boolean trustPersistentNodes;
    private final Duration identityCheckInterval;
    private final int maxReplyBytes;
    private final Set<String> unverifiedIdentity;
    private final boolean checkTopology;
    private final boolean releaseNotifications;
    private final int nodesPerLock;
    private final boolean strictTopology;
    private final Ticker ticker;
    private final List<RedlockListener> listeners;
    private final java.time.Clock wallClock;
    private final Executor asyncExecutor;
    private final TlsSetup tls;
    private final javax.net.ssl.SSLContext sslContext;
    private final java.nio.file.Path tlsTrustStore;
    private final char[] tlsTrustStorePassword;
    private final java.nio.file.Path tlsKeyStore;
    private final char[] tlsKeyStorePassword;
    private final boolean tlsVerifyHostname;

    private RedlockConfig(Builder b, TlsSetup tls) {
        this.tls = tls;
        this.sslContext = b.sslContext;
        this.tlsTrustStore = b.tlsTrustStore;
        this.tlsTrustStorePassword = b.tlsTrustStorePassword;
        this.tlsKeyStore = b.tlsKeyStore;
        this.tlsKeyStorePassword = b.tlsKeyStorePassword;
        this.tlsVerifyHostname = b.tlsVerifyHostname;
        this.nodes = List.copyOf(b.nodes);
        this.perNodeTimeout = b.perNodeTimeout;
        this.connectTimeout = b.connectTimeout;
        this.leaseTime = b.leaseTime;
        this.driftFactor = b.driftFactor;
        this.minValidity = b.minValidity;
        this.waitBudget = b.waitBudget;
        this.retryDelay = b.retryDelay;
        this.retryJitter = b.retryJitter;
        this.circuitOpenDuration = b.circuitOpenDuration;
        this.keyPrefix = b.keyPrefix;
        this.clientName = b.clientName == null ? defaultClientName() : b.clientName;
        this.maxHoldTime = b.maxHoldTime;
        this.maxFailedExtensions = b.maxFailedExtensions;
        this.restartQuarantine = b.restartQuarantine;
        this.trustPersistentNodes = b.trustPersistentNodes;
        this.identityCheckInterval = b.identityCheckInterval;
        this.maxReplyBytes = b.maxReplyBytes;
        this.unverifiedIdentity = Set.copyOf(b.unverifiedIdentity);
        this.checkTopology = b.checkTopology;
        this.releaseNotifications = b.releaseNotifications;
        this.nodesPerLock = b.nodesPerLock;
        this.strictTopology = b.strictTopology;
        this.ticker = b.ticker;
        this.listeners = List.copyOf(b.listeners);
        this.wallClock = b.wallClock;
        this.asyncExecutor = b.asyncExecutor;
    }

    /**
     * Returns a new builder with every setting at its default and no nodes.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns a builder that starts from this configuration's values.
     *
     * @return a builder holding a copy of this configuration
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.nodes.addAll(nodes);
        b.perNodeTimeout = perNodeTimeout;
        b.connectTimeout = connectTimeout;
        b.leaseTime = leaseTime;
        b.driftFactor = driftFactor;
        b.minValidity = minValidity;
        b.waitBudget = waitBudget;
        b.retryDelay = retryDelay;
        b.retryJitter = retryJitter;
        b.circuitOpenDuration = circuitOpenDuration;
        b.keyPrefix = keyPrefix;
        b.clientName = clientName;
        b.maxHoldTime = maxHoldTime;
        b.maxFailedExtensions = maxFailedExtensions;
        b.restartQuarantine = restartQuarantine;
        b.trustPersistentNodes = trustPersistentNodes;
        b.identityCheckInterval = identityCheckInterval;
        b.maxReplyBytes = maxReplyBytes;
        b.unverifiedIdentity.addAll(unverifiedIdentity);
        b.checkTopology = checkTopology;
        b.releaseNotifications = releaseNotifications;
        b.nodesPerLock = nodesPerLock;
        b.strictTopology = strictTopology;
        b.ticker = ticker;
        b.listeners.addAll(listeners);
        b.wallClock = wallClock;
        b.asyncExecutor = asyncExecutor;
        b.sslContext = sslContext;
        b.tlsTrustStore = tlsTrustStore;
        b.tlsTrustStorePassword = tlsTrustStorePassword;
        b.tlsKeyStore = tlsKeyStore;
        b.tlsKeyStorePassword = tlsKeyStorePassword;
        b.tlsVerifyHostname = tlsVerifyHostname;
        return b;
    }

    /**
     * This configuration with a Redis Cluster given as a node replaced by the nodes it is, one per hash slot it
     * counts as (see {@link dev.redlock.internal.node.ClusterWatch}); this configuration itself when it has no
     * cluster. Asks the cluster's seeds. For the library's own use.
     *
     * @throws IllegalArgumentException if the cluster has fewer than 3 masters, or other clients count it otherwise
     * @throws IllegalStateException if no seed answers
     */
    public RedlockConfig withClusterExpanded() {
        if (nodes.stream().noneMatch(NodeSpec::isCluster)) {
            return this;
        }
        Builder b = toBuilder();
        b.nodes.clear();
        for (NodeSpec spec : nodes) {
            if (spec.isCluster()) {
                b.nodes.addAll(dev.redlock.internal.node.ClusterWatch.expand(spec, this));
            } else {
                b.nodes.add(spec);
            }
        }
        return b.build();
    }

    /**
     * Returns the parsed nodes, in configuration order. For the library's own use.
     *
     * @return the node specifications
     */
    public List<NodeSpec> nodeSpecs() {
        return nodes;
    }

    /**
     * Returns how {@code rediss://} nodes are reached: the TLS context and whether host names are verified. For the
     * library's connections; not a stable API.
     *
     * @return the TLS setup (the JDK's default trust and host name verification unless set otherwise)
     */
    public TlsSetup tls() {
        return tls;
    }

    /**
     * Returns the names of the configured nodes ({@code host:port}, or {@code host:port/db}, or the name given with a
     * client), in configuration order.
     *
     * @return an unmodifiable list
     */
    public List<String> nodeNames() {
        List<String> names = new ArrayList<>(nodes.size());
        for (NodeSpec n : nodes) {
            names.add(n.name());
        }
        return List.copyOf(names);
    }

    /**
     * Returns how long a round waits for any one node. Default {@link #DEFAULT_PER_NODE_TIMEOUT}.
     *
     * @return the per-node timeout
     */
    public Duration perNodeTimeout() {
        return perNodeTimeout;
    }

    /**
     * Returns the TCP connect timeout. Default {@link #DEFAULT_CONNECT_TIMEOUT}.
     *
     * @return the connect timeout
     */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * Returns the lease time (key TTL on each node) used when a call fixes none. Default {@link #DEFAULT_LEASE_TIME}.
     *
     * @return the default lease time
     */
    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * Returns the drift factor: {@code drift = ttl * driftFactor + 2 ms}. Default {@link #DEFAULT_DRIFT_FACTOR}.
     *
     * @return the drift factor, in [0, 0.5)
     */
    public double driftFactor() {
        return driftFactor;
    }

    /**
     * Returns the validity a round must leave to succeed (strictly more than this). Default
     * {@link #DEFAULT_MIN_VALIDITY}.
     *
     * @return the minimum validity
     */
    public Duration minValidity() {
        return minValidity;
    }

    /**
     * Returns the wait budget of calls that take none, such as {@link QuorumLock#tryAcquire()}. Default
     * {@link #DEFAULT_WAIT_BUDGET}.
     *
     * @return the default wait budget
     */
    public Duration waitBudget() {
        return waitBudget;
    }

    /**
     * Returns the base delay between two rounds. Default {@link #DEFAULT_RETRY_DELAY}.
     *
     * @return the retry delay
     */
    public Duration retryDelay() {
        return retryDelay;
    }

    /**
     * Returns the retry jitter: each delay is drawn uniformly from
     * {@code [retryDelay * (1 - jitter), retryDelay * (1 + jitter)]}. Default {@link #DEFAULT_RETRY_JITTER}.
     *
     * @return the jitter factor, in [0, 1]
     */
    public double retryJitter() {
        return retryJitter;
    }

    /**
     * Returns how long a node's open circuit breaker rejects commands before a probe. Default
     * {@link #DEFAULT_CIRCUIT_OPEN_DURATION}.
     *
     * @return the open duration
     */
    public Duration circuitOpenDuration() {
        return circuitOpenDuration;
    }

    /**
     * Returns the prefix of every lock key. Default {@link #DEFAULT_KEY_PREFIX}.
     *
     * @return the key prefix, possibly empty
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * Returns the name this client gives itself in its entry on the nodes, which {@link RedlockClient#inspect(String)}
     * shows beside a holder's host and process id. Default: the process's main class or jar, as
     * {@code sun.java.command} names it, without arguments (which may hold secrets); {@code "java"} when unknown.
     *
     * @return the name, 1 to {@link #MAX_CLIENT_NAME_LENGTH} characters
     */
    public String clientName() {
        return clientName;
    }

    /** The process's main class or jar file name, without its arguments. */
    private static String defaultClientName() {
        String command = System.getProperty("sun.java.command", "").trim();
        if (command.isEmpty()) {
            return "java";
        }
        String main = command.split("\\s+", 2)[0];
        int slash = Math.max(main.lastIndexOf('/'), main.lastIndexOf('\\'));
        return main.substring(slash + 1);
    }

    /**
     * Returns how long the watchdog keeps extending a lease before it lets it expire; zero means no cap. Default
     * {@link #DEFAULT_MAX_HOLD_TIME}.
     *
     * @return the maximum hold time, or {@link Duration#ZERO} for none
     */
    public Duration maxHoldTime() {
        return maxHoldTime;
    }

    /**
     * Returns how many consecutive failed extensions the watchdog tolerates before it declares the lease lost; zero
     * means it keeps trying until the lease's deadline. Default {@link #DEFAULT_MAX_FAILED_EXTENSIONS}.
     *
     * @return the cap, or 0 for none
     */
    public int maxFailedExtensions() {
        return maxFailedExtensions;
    }

    /**
     * Returns whether restart protection is on: a node that may have lost data less than the longest TTL in use ago
     * (its incarnation marker is new or changed, its {@code run_id} changed, or its uptime is short), or whose identity
     * cannot be read, does not count toward any acquire quorum; fencing reads skip and repair nodes that lost their
     * counters. Default true.
     *
     * @return true if restart protection is on
     */
    public boolean restartQuarantine() {
        return restartQuarantine;
    }

    /**
     * Returns whether nodes that persist every write ({@code appendonly yes} with {@code appendfsync always}) are
     * exempt from restart quarantine. Default false.
     *
     * @return true if such nodes are trusted after a restart
     */
    public boolean trustPersistentNodes() {
        return trustPersistentNodes;
    }

    /**
     * Returns how often each node's identity ({@code run_id}) and uptime are checked again, besides on every new
     * connection. Default {@link #DEFAULT_IDENTITY_CHECK_INTERVAL}.
     *
     * @return the interval
     */
    public Duration identityCheckInterval() {
        return identityCheckInterval;
    }

    /**
     * Returns the largest bulk string a node's reply may carry (an {@code INFO} text is the largest the library asks
     * for), in bytes. Default {@link #DEFAULT_MAX_REPLY_BYTES}.
     *
     * @return the limit, in bytes
     * @see Builder#maxReplyBytes(int)
     */
    public int maxReplyBytes() {
        return maxReplyBytes;
    }

    /**
     * Returns the nodes that vote even when their identity ({@code run_id}, uptime) cannot be read. Default none.
     *
     * @return the names of the opted-out nodes; unmodifiable
     * @see Builder#unverifiedIdentity(String...)
     */
    public Set<String> unverifiedIdentityNodes() {
        return unverifiedIdentity;
    }

    /**
     * Returns whether waiters are woken by release notifications. Default true. See
     * {@link Builder#releaseNotifications(boolean)}.
     *
     * @return true if waiting acquisitions listen for releases
     */
    public boolean releaseNotifications() {
        return releaseNotifications;
    }

    /**
     * Returns how many of the nodes each lock uses: 0 (the default) for all of them. See
     * {@link Builder#nodesPerLock(int)}.
     *
     * @return the nodes per lock, or 0 for all
     */
    public int nodesPerLock() {
        return nodesPerLock;
    }

    /**
     * Returns how many nodes a lock uses among {@code nodes}: {@link #nodesPerLock()}, or all of them when it is 0 or
     * not below {@code nodes}. For the library's own use.
     *
     * @param nodes how many nodes the client has
     * @return the nodes of each lock
     */
    public int nodesPerLock(int nodes) {
        return nodesPerLock == 0 || nodesPerLock >= nodes ? nodes : nodesPerLock;
    }

    /**
     * Returns whether the client inspects the nodes when it is created (duplicates, replicas, eviction policy,
     * persistence) and logs what it finds. Default true.
     *
     * @return true if the topology is checked at start
     */
    public boolean checkTopology() {
        return checkTopology;
    }

    /**
     * Returns whether topology warnings are failures: creating the client, or {@link RedlockClient#check()}, then
     * throws instead of logging. Default false.
     *
     * @return true if warnings fail
     */
    public boolean strictTopology() {
        return strictTopology;
    }

    /**
     * Returns the monotonic ticker every lock decision reads. Default {@link Ticker#system()}.
     *
     * @return the ticker
     */
    public Ticker ticker() {
        return ticker;
    }

    /**
     * Returns the listeners that hear what the client's locks do, in the order they were added. Default none.
     *
     * @return the listeners (unmodifiable)
     */
    public List<RedlockListener> listeners() {
        return listeners;
    }

    /**
     * Returns the wall clock that orders a fair lock's waiters across clients. No timing decision reads it. Default
     * {@link java.time.Clock#systemUTC()}.
     *
     * @return the wall clock
     */
    public java.time.Clock wallClock() {
        return wallClock;
    }

    /**
     * Returns the executor that completes the futures of the asynchronous methods, so user callbacks never run on the
     * library's I/O threads. Default {@link ForkJoinPool#commonPool()}. The client does not shut it down.
     *
     * @return the executor
     */
    public Executor asyncExecutor() {
        return asyncExecutor;
    }

    /**
     * Checks that a lease time can ever produce a lease: even a round that takes the whole per-node timeout must
     * leave more than the minimum validity, {@code leaseTime - drift(leaseTime) - perNodeTimeout > minValidity}.
     * Used for the configured default and for lease times given per call. The lease time must also be in
     * {@code [1 ms, }{@link #MAX_LEASE_TIME}{@code ]}.
     *
     * @param field the name to report
     * @param leaseTime the lease time to check
     * @param perNodeTimeout the per-node timeout
     * @param driftFactor the drift factor
     * @param minValidity the minimum validity
     * @throws IllegalArgumentException naming the field and the allowed range, or the smallest lease time that works
     */
    public static void checkLeaseTime(
            String field, Duration leaseTime, Duration perNodeTimeout, double driftFactor, Duration minValidity) {
        inRange(field, leaseTime, Duration.ofMillis(1), MAX_LEASE_TIME);
        long ttl = leaseTime.toNanos();
        long drift = (long) (ttl * driftFactor) + DRIFT_CONSTANT.toNanos();
        if (ttl - drift - perNodeTimeout.toNanos() <= minValidity.toNanos()) {
            throw new IllegalArgumentException(field + ": " + leaseTime.toMillis() + " ms can never yield a lease: "
                    + "leaseTime - drift (" + drift / 1_000_000 + " ms) - perNodeTimeout (" + perNodeTimeout.toMillis()
                    + " ms) must exceed minValidity (" + minValidity.toMillis() + " ms)");
        }
    }

    /**
     * Returns the drift subtracted from a round of the given TTL: {@code ttl * driftFactor + 2 ms}.
     *
     * @param ttlNanos the TTL, in nanoseconds
     * @return the drift, in nanoseconds
     */
    public long driftNanos(long ttlNanos) {
        return (long) (ttlNanos * driftFactor) + DRIFT_CONSTANT.toNanos();
    }

    @Override
    public String toString() {
        return "RedlockConfig{nodes=" + nodeNames() + ", perNodeTimeout=" + perNodeTimeout + ", connectTimeout="
                + connectTimeout + ", leaseTime=" + leaseTime + ", driftFactor=" + driftFactor + ", minValidity="
                + minValidity + ", waitBudget=" + waitBudget + ", retryDelay=" + retryDelay + ", retryJitter="
                + retryJitter + ", circuitOpenDuration=" + circuitOpenDuration + ", keyPrefix='" + keyPrefix
                + "', clientName='" + clientName + "', maxHoldTime=" + maxHoldTime + ", maxFailedExtensions="
                + maxFailedExtensions
                + ", restartQuarantine=" + restartQuarantine + ", trustPersistentNodes=" + trustPersistentNodes
                + ", identityCheckInterval=" + identityCheckInterval + ", maxReplyBytes=" + maxReplyBytes
                + ", releaseNotifications=" + releaseNotifications + ", nodesPerLock=" + nodesPerLock
                + ", checkTopology=" + checkTopology
                + ", strictTopology=" + strictTopology + ", unverifiedIdentity=" + unverifiedIdentity + ", tls=" + tls
                + ", listeners=" + listeners.size() + "}";
    }

    /**
     * Builds a {@link RedlockConfig}. Setters validate at once and throw {@link IllegalArgumentException} naming the
     * field, the allowed range and the rejected value. Not thread-safe; use one builder per thread.
     */
    public static final class Builder {

        private final List<NodeSpec> nodes = new ArrayList<>();
        private Duration perNodeTimeout = DEFAULT_PER_NODE_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private double driftFactor = DEFAULT_DRIFT_FACTOR;
        private Duration minValidity = DEFAULT_MIN_VALIDITY;
        private Duration waitBudget = DEFAULT_WAIT_BUDGET;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private double retryJitter = DEFAULT_RETRY_JITTER;
        private Duration circuitOpenDuration = DEFAULT_CIRCUIT_OPEN_DURATION;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private String clientName;
        private Duration maxHoldTime = DEFAULT_MAX_HOLD_TIME;
        private int maxFailedExtensions = DEFAULT_MAX_FAILED_EXTENSIONS;
        private boolean restartQuarantine = true;
        private boolean trustPersistentNodes;
        private Duration identityCheckInterval = DEFAULT_IDENTITY_CHECK_INTERVAL;
        private int maxReplyBytes = DEFAULT_MAX_REPLY_BYTES;
        private final Set<String> unverifiedIdentity = new LinkedHashSet<>();
        private boolean checkTopology = true;
        private boolean releaseNotifications = true;
        private int nodesPerLock;
        private boolean strictTopology;
        private Ticker ticker = Ticker.system();
        private final List<RedlockListener> listeners = new java.util.ArrayList<>();
        private java.time.Clock wallClock = java.time.Clock.systemUTC();
        private Executor asyncExecutor = ForkJoinPool.commonPool();
        private javax.net.ssl.SSLContext sslContext;
        private java.nio.file.Path tlsTrustStore;
        private char[] tlsTrustStorePassword;
        private java.nio.file.Path tlsKeyStore;
        private char[] tlsKeyStorePassword;
        private boolean tlsVerifyHostname = true;

        private Builder() {}

        /**
         * Adds nodes by URI, {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...} for TLS. The
         * port defaults to 6379 and the database to 0; an IPv6 host goes in brackets ({@code redis://[::1]:6379});
         * reserved characters in the user or password are percent-encoded ({@code %40} for '@', {@code %2F} for
         * '/'). Each node must be an independent Redis master.
         *
         * @param uris the node URIs
         * @return this builder
         * @throws IllegalArgumentException if a URI is malformed, naming its position ({@code nodes[i]}) and what is
         *         wrong (scheme, user info, host, port, database, query or fragment); the message never shows the
         *         user info
         */
        public Builder nodes(String... uris) {
            Objects.requireNonNull(uris, "nodes");
            for (String uri : uris) {
                node(uri);
            }
            return this;
        }

        /**
         * Adds nodes by URI, as {@link #nodes(String...)}.
         *
         * @param uris the node URIs
         * @return this builder
         * @throws IllegalArgumentException if a URI is malformed
         */
        public Builder nodes(List<String> uris) {
            Objects.requireNonNull(uris, "nodes");
            return nodes(uris.toArray(new String[0]));
        }

        /**
         * Adds one node by URI, as {@link #nodes(String...)}.
         *
         * @param uri the node URI
         * @return this builder
         * @throws IllegalArgumentException if the URI is malformed
         */
        public Builder node(String uri) {
            nodes.add(NodeSpec.parse("nodes[" + nodes.size() + "]", uri));
            return this;
        }

        /**
         * Adds a node through a client that the caller built and manages (pooling, Sentinel, a client library of its
         * own choice), adapted as a {@link NodeTransport}; the {@code redlock-jedis} module adapts Jedis. The client is
         * never closed by the library. Its own socket timeout bounds how long a stalled node blocks that node's I/O
         * thread, so keep it close to the per-node timeout; a round still never waits longer than the per-node
         * timeout. Such nodes have no release notifications: their waiters poll.
         *
         * @param name a unique name for the node, used in outcomes and logs
         * @param transport the transport; one per independent master
         * @return this builder
         * @throws IllegalArgumentException if the name is empty
         */
        public Builder node(String name, NodeTransport transport) {
            nodes.add(NodeSpec.ofTransport("nodes[" + nodes.size() + "]", name, transport));
            return this;
        }

        /**
         * Sets how long a round waits for any one node. Keep it much smaller than the lease time: a few ms to tens
         * of ms. Default {@link #DEFAULT_PER_NODE_TIMEOUT}.
         *
         * @param timeout in [1 ms, {@link #MAX_PER_NODE_TIMEOUT} (1 min)]; must be below the lease time (checked by
         *        {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 1 min]
         */
        public Builder perNodeTimeout(Duration timeout) {
            this.perNodeTimeout = inRange("perNodeTimeout", timeout, Duration.ofMillis(1), MAX_PER_NODE_TIMEOUT);
            return this;
        }

        /**
         * Sets the TCP connect timeout. Default {@link #DEFAULT_CONNECT_TIMEOUT}.
         *
         * @param timeout in [1 ms, {@link #MAX_CONNECT_TIMEOUT} (5 min)]
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 5 min]
         */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = inRange("connectTimeout", timeout, Duration.ofMillis(1), MAX_CONNECT_TIMEOUT);
            return this;
        }

        /**
         * Sets the lease time (TTL on each node) used when a call fixes none. Default {@link #DEFAULT_LEASE_TIME}.
         *
         * @param leaseTime in [1 ms, {@link #MAX_LEASE_TIME} (7 days)]; must exceed the per-node timeout plus drift
         *        and minimum validity (checked by {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 7 days]
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = inRange("leaseTime", leaseTime, Duration.ofMillis(1), MAX_LEASE_TIME);
            return this;
        }

        /**
         * Sets the drift factor: {@code drift = ttl * driftFactor + 2 ms} is subtracted from every validity to cover
         * clock-rate differences between the client and the nodes. Default {@link #DEFAULT_DRIFT_FACTOR}.
         *
         * @param driftFactor in [0, 0.5)
         * @return this builder
         * @throws IllegalArgumentException if outside [0, 0.5)
         */
        public Builder driftFactor(double driftFactor) {
            if (!(driftFactor >= 0 && driftFactor < 0.5)) {
                throw new IllegalArgumentException("driftFactor: must be in [0, 0.5), got " + driftFactor);
            }
            this.driftFactor = driftFactor;
            return this;
        }

        /**
         * Sets the validity a round must leave to succeed (strictly more than this). Default
         * {@link #DEFAULT_MIN_VALIDITY}.
         *
         * @param minValidity in [0, {@link #MAX_LEASE_TIME} (7 days)); must be below the lease time (checked by
         *        {@link #build()})
         * @return this builder
         * @throws IllegalArgumentException if outside [0, 7 days)
         */
        public Builder minValidity(Duration minValidity) {
            Objects.requireNonNull(minValidity, "minValidity");
            if (minValidity.isNegative() || minValidity.compareTo(MAX_LEASE_TIME) >= 0) {
                throw new IllegalArgumentException(
                        "minValidity: must be in [0 ms, " + human(MAX_LEASE_TIME) + "), got " + describe(minValidity));
            }
            this.minValidity = minValidity;
            return this;
        }

        /**
         * Sets the wait budget of calls that take none, such as {@link QuorumLock#tryAcquire()}. Zero means a single
         * round. A budget above {@link #MAX_WAIT_BUDGET} (about 292 years, such as
         * {@code ChronoUnit.FOREVER.getDuration()}) is stored as it: wait as long as it takes. Default
         * {@link #DEFAULT_WAIT_BUDGET}.
         *
         * @param waitBudget zero or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder waitBudget(Duration waitBudget) {
            this.waitBudget = saturated(notNegative("waitBudget", waitBudget), MAX_WAIT_BUDGET);
            return this;
        }

        /**
         * Sets the base delay between two rounds. Default {@link #DEFAULT_RETRY_DELAY}.
         *
         * @param retryDelay in [1 ms, {@link #MAX_RETRY_DELAY} (1 min)]
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 1 min]
         */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = inRange("retryDelay", retryDelay, Duration.ofMillis(1), MAX_RETRY_DELAY);
            return this;
        }

        /**
         * Sets the jitter of the retry delay: each delay is uniform in
         * {@code [retryDelay * (1 - jitter), retryDelay * (1 + jitter)]}, so competing clients do not retry in lock
         * step. Default {@link #DEFAULT_RETRY_JITTER}.
         *
         * @param jitter in [0, 1]
         * @return this builder
         * @throws IllegalArgumentException if outside [0, 1]
         */
        public Builder retryJitter(double jitter) {
            if (!(jitter >= 0 && jitter <= 1)) {
                throw new IllegalArgumentException("retryJitter: must be in [0, 1], got " + jitter);
            }
            this.retryJitter = jitter;
            return this;
        }

        /**
         * Sets how long a node's open circuit breaker rejects commands before letting a probe through. A node's
         * breaker opens when at least half of its last 10 commands (and at least 5) failed or timed out. Default
         * {@link #DEFAULT_CIRCUIT_OPEN_DURATION}.
         *
         * @param openDuration in [1 ms, {@link #MAX_CIRCUIT_OPEN_DURATION} (10 min)]
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 10 min]
         */
        public Builder circuitOpenDuration(Duration openDuration) {
            this.circuitOpenDuration =
                    inRange("circuitOpenDuration", openDuration, Duration.ofMillis(1), MAX_CIRCUIT_OPEN_DURATION);
            return this;
        }

        /**
         * Sets the prefix of every lock key; the key of lock {@code name} is {@code prefix + "{" + name + "}"}, the
         * braces being a Redis Cluster hash tag. Default {@link #DEFAULT_KEY_PREFIX}.
         *
         * @param keyPrefix the prefix, possibly empty; valid Unicode (no unpaired surrogate, which has no UTF-8 form)
         *        of at most {@link #MAX_KEY_PREFIX_BYTES} (1024) UTF-8 bytes
         * @return this builder
         * @throws IllegalArgumentException if it has an unpaired surrogate (the message gives its index) or is longer
         *         than 1024 UTF-8 bytes
         */
        public Builder keyPrefix(String keyPrefix) {
            Objects.requireNonNull(keyPrefix, "keyPrefix");
            LockRef.checkUtf8("keyPrefix", "a key prefix", keyPrefix, MAX_KEY_PREFIX_BYTES);
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Sets the name this client gives itself on the nodes, shown by {@link RedlockClient#inspect(String)} (and
         * {@code redlock status}) beside a holder's host, process id and thread, so that an operator can tell which
         * service holds a lock. Readable by anyone who can read the nodes: put no secret in it. Default: the
         * process's main class or jar file name (see {@link RedlockConfig#clientName()}).
         *
         * @param clientName the name: 1 to {@link #MAX_CLIENT_NAME_LENGTH} (200) characters, no control characters
         * @return this builder
         * @throws IllegalArgumentException if it is blank, longer than 200 characters, or has a control character
         */
        public Builder clientName(String clientName) {
            Objects.requireNonNull(clientName, "clientName");
            if (clientName.isBlank() || clientName.length() > MAX_CLIENT_NAME_LENGTH) {
                throw new IllegalArgumentException("clientName: must be 1 to " + MAX_CLIENT_NAME_LENGTH
                        + " characters and not blank, got " + clientName.length() + " characters");
            }
            for (int i = 0; i < clientName.length(); i++) {
                if (Character.isISOControl(clientName.charAt(i))) {
                    throw new IllegalArgumentException("clientName: must not contain control characters (such as a tab"
                            + " or newline), found one at index " + i);
                }
            }
            this.clientName = clientName;
            return this;
        }

        /**
         * Sets how long the watchdog keeps extending a lease after it was acquired. Past it, the watchdog stops, the
         * lease expires at its deadline and its lost-lease listeners fire with
         * {@link LockLostException.Reason#MAX_HOLD_TIME}. Zero means no cap; a cap above {@link #MAX_HOLD_TIME}
         * (about 292 years) is stored as it. Default {@link #DEFAULT_MAX_HOLD_TIME}.
         *
         * @param maxHoldTime zero or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder maxHoldTime(Duration maxHoldTime) {
            this.maxHoldTime = saturated(notNegative("maxHoldTime", maxHoldTime), MAX_HOLD_TIME);
            return this;
        }

        /**
         * Sets how many consecutive failed extensions the watchdog tolerates before it declares the lease lost
         * ({@link LockLostException.Reason#EXTENSION_FAILED}) without waiting for the deadline. Zero means it keeps
         * trying until the deadline. Default {@link #DEFAULT_MAX_FAILED_EXTENSIONS}.
         *
         * @param maxFailedExtensions zero or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder maxFailedExtensions(int maxFailedExtensions) {
            if (maxFailedExtensions < 0) {
                throw new IllegalArgumentException(
                        "maxFailedExtensions: must be >= 0 (0 = no cap), got " + maxFailedExtensions);
            }
            this.maxFailedExtensions = maxFailedExtensions;
            return this;
        }

        /**
         * Turns restart protection on or off. With it on (the default), a node's acquire vote counts only while the
         * client knows the node has not lost data since it last confirmed its identity: each node keeps an
         * incarnation marker that the acquire script checks in the same round trip, and each connection reads the
         * server's {@code run_id} first. A node that lost data (restart without persistence, {@code FLUSHALL},
         * failover to an empty replica, another server at its address, a restart from a persistent copy) does not
         * count toward any quorum for the longest TTL in use plus drift; a node whose {@code INFO} is refused does
         * not count at all (see {@link #unverifiedIdentity(String...)}). It still receives releases, and the quorum
         * stays {@code N/2 + 1} of the configured N. Fencing reads also skip counters of nodes that lost data until
         * they are repaired. Turn it off only for nodes that never lose acknowledged writes.
         *
         * @param on whether restart protection is on
         * @return this builder
         */
        public Builder restartQuarantine(boolean on) {
            this.restartQuarantine = on;
            return this;
        }

        /**
         * Exempts nodes that report {@code appendonly yes} and {@code appendfsync always} from restart quarantine:
         * such a node keeps every acknowledged key across a crash. The trade-off: a node whose disk or AOF is lost or
         * rewritten outside Redis, or that was restored from an older snapshot, is trusted anyway. Default false.
         *
         * @param trust whether to trust fully persistent nodes after a restart
         * @return this builder
         */
        public Builder trustPersistentNodes(boolean trust) {
            this.trustPersistentNodes = trust;
            return this;
        }

        /**
         * Sets how often each node's identity and uptime are checked again, besides on every new connection.
         * Default {@link #DEFAULT_IDENTITY_CHECK_INTERVAL}.
         *
         * @param interval in [1 ms, {@link #MAX_IDENTITY_CHECK_INTERVAL} (1 day)]
         * @return this builder
         * @throws IllegalArgumentException if outside [1 ms, 1 day]
         */
        public Builder identityCheckInterval(Duration interval) {
            this.identityCheckInterval =
                    inRange("identityCheckInterval", interval, Duration.ofMillis(1), MAX_IDENTITY_CHECK_INTERVAL);
            return this;
        }

        /**
         * Sets the largest bulk string a node's reply may carry. Replies to the library's commands are small: a vote
         * is an integer or a short array, and the largest is an {@code INFO} text of a few KiB. A node that claims
         * more (a broken or hostile server) gets a protocol error: its connection is dropped before anything that
         * large is allocated, and the other nodes are not affected. Applies to nodes given by URI (over plain TCP);
         * a client the user built parses its own replies. Default {@link #DEFAULT_MAX_REPLY_BYTES}.
         *
         * @param bytes in [{@value #MIN_MAX_REPLY_BYTES}, {@value #MAX_MAX_REPLY_BYTES}]
         * @return this builder
         * @throws IllegalArgumentException if outside that range
         */
        public Builder maxReplyBytes(int bytes) {
            if (bytes < MIN_MAX_REPLY_BYTES || bytes > MAX_MAX_REPLY_BYTES) {
                throw new IllegalArgumentException("maxReplyBytes: must be in [" + MIN_MAX_REPLY_BYTES + ", "
                        + MAX_MAX_REPLY_BYTES + "], got " + bytes);
            }
            this.maxReplyBytes = bytes;
            return this;
        }

        /**
         * Lets the named nodes vote even when their identity cannot be read: with restart quarantine on, a node whose
         * {@code INFO} is refused (an ACL without {@code +info}, a managed service that hides it) does not vote
         * otherwise, since nothing tells the client that it has not restarted. Restart protection for these nodes then
         * rests on the incarnation marker alone, which catches a restart without persistence, {@code FLUSHALL} and a
         * failover to a replica without the marker, but not a restart from a persistent copy that lost its latest
         * writes. Default: none. Calls add up.
         *
         * @param nodeNames node names as they appear in outcomes ({@code host:port}, or the name given with a
         *        client); checked against the configured nodes by {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException if a name is null or empty
         */
        public Builder unverifiedIdentity(String... nodeNames) {
            Objects.requireNonNull(nodeNames, "unverifiedIdentity");
            for (String name : nodeNames) {
                if (name == null || name.isBlank()) {
                    throw new IllegalArgumentException("unverifiedIdentity: node names must not be empty");
                }
                unverifiedIdentity.add(name);
            }
            return this;
        }

        /**
         * Sets whether waiting acquisitions are woken when the lock they wait for is released, rather than only at
         * their next retry. Default true.
         *
         * <p>A release that deletes the key publishes on a channel named after the key (from the release script, in
         * the same round trip). While some acquisition of this client waits for a key, the client listens to that
         * channel on every node given by URI (plain or TLS), over one subscriber connection per node for all keys,
         * opened when the first acquisition waits. A release of this client wakes its waiters directly. Each release
         * wakes one waiter of the key per client, the one waiting longest, so a release costs one retry however
         * many threads wait. A new acquisition of a key that already has waiters in this client queues behind them.
         * Waiters still poll: the longest-waiting one after {@link #retryDelay(Duration)}, the others later by
         * their place in line (the k-th after k + 1 delays, at most 10), and none past the holder's remaining TTL;
         * so a lost notification, a node whose subscription is down or restarting, or a node given as a transport of the application's costs the longest waiter at most one retry delay. The first waiter of a key subscribes
         * after its first refused round: a release just then is heard at its next poll. Off, waiters only poll
         * (each after one retry delay) and newcomers do not queue.
         *
         * @param notify whether to listen for releases
         * @return this builder
         */
        public Builder releaseNotifications(boolean notify) {
            this.releaseNotifications = notify;
            return this;
        }

        /**
         * Sets how many of the nodes each lock uses. Default 0: every lock uses every node, as the Redlock algorithm
         * describes.
         *
         * <p>With M nodes and {@code n < M}, each lock uses the n nodes that rank highest for its key by rendezvous
         * hashing (see {@code docs/design.md}, "Beyond one quorum"), and needs a quorum of those n; the other nodes
         * never see it. Lock capacity then grows with M: each node serves about n/M of the locks. A lock tolerates
         * the failure of fewer than half of its own n nodes, whichever others fail.
         *
         * <p><strong>Every client of the same nodes must use the same n and the same node names</strong> (the names
         * as in {@link RedlockClient#nodeNames()}, not their order): the placement is a function of the key, n and
         * the names, and clients that compute it otherwise can each win a quorum of their own. A Redis Cluster
         * records n beside its node count and refuses a client that differs; with independent masters it is not
         * checked. Changing n, or the nodes while n is below their count, moves locks: stop every client first, and
         * with fenced locks synchronise the fencing counters (see {@code docs/operations.md}, "More masters than one
         * quorum"), or a token can go back once. A count above the nodes is refused by {@link #build()} for
         * independent masters, and when the client is created for a Redis Cluster, whose node count is known then.
         *
         * @param n the nodes per lock: 0 for all, else 3 to 99 and at most the number of nodes (checked when the
         *     client is created for a Redis Cluster, whose node count is known then)
         * @return this builder
         * @throws IllegalArgumentException if {@code n} is negative, 1, 2 or above 99
         */
        public Builder nodesPerLock(int n) {
            if (n != 0 && (n < 3 || n > 99)) {
                throw new IllegalArgumentException("nodesPerLock: must be 0 (every node) or 3 to 99, got " + n
                        + " (a lock needs at least 3 to tolerate a failure)");
            }
            this.nodesPerLock = n;
            return this;
        }

        /**
         * Sets whether the client inspects its nodes when it is created and logs topology warnings. Default true.
         *
         * @param check whether to check at start
         * @return this builder
         */
        public Builder checkTopology(boolean check) {
            this.checkTopology = check;
            return this;
        }

        /**
         * Makes topology warnings failures: client creation and {@link RedlockClient#check()} throw
         * {@link IllegalStateException} listing them. Default false (warnings are logged).
         *
         * @param strict whether warnings fail
         * @return this builder
         */
        public Builder strictTopology(boolean strict) {
            this.strictTopology = strict;
            return this;
        }

        /**
         * Sets the monotonic ticker every lock decision reads. Default {@link Ticker#system()}; tests pass a fake.
         *
         * @param ticker the ticker
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Adds a listener that hears every acquisition, acquire round, failed extension and lost lease of the
         * client (for metrics: see the {@code redlock-micrometer} module). May be called several times.
         *
         * @param listener the listener; it must be quick and thread-safe (see {@link RedlockListener})
         * @return this builder
         */
        public Builder listener(RedlockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Sets the wall clock that orders a fair lock's waiters across clients ({@link RedlockClient#fairLock}):
         * a waiter's place is the time its acquisition began on this clock. It decides no timeout, validity or
         * expiry; a skewed clock moves this client's waiters in the queue, never two holders at once. Default
         * {@link java.time.Clock#systemUTC()}; simulations pass their own.
         *
         * @param clock the wall clock
         * @return this builder
         */
        public Builder wallClock(java.time.Clock clock) {
            this.wallClock = Objects.requireNonNull(clock, "wallClock");
            return this;
        }

        /**
         * Sets the executor that completes the futures of asynchronous methods. Default
         * {@link ForkJoinPool#commonPool()}. The client never shuts it down.
         *
         * @param executor the executor
         * @return this builder
         */
        public Builder asyncExecutor(Executor executor) {
            this.asyncExecutor = Objects.requireNonNull(executor, "asyncExecutor");
            return this;
        }

        /**
         * Sets the authorities that {@code rediss://} nodes' certificates must be signed by, in place of the JDK's
         * default ones (which managed Redis services' certificates usually chain to). Read when {@link #build()} runs.
         *
         * @param file a PKCS#12 or JKS trust store, or a file of PEM certificates ({@code -----BEGIN CERTIFICATE-----},
         *        such as Redis's {@code tls-ca-cert-file})
         * @param password the store's password, or null for PEM certificates or a store without one; never logged
         * @return this builder
         * @throws IllegalArgumentException if the file is null
         */
        public Builder tlsTrustStore(java.nio.file.Path file, String password) {
            this.tlsTrustStore = Objects.requireNonNull(file, "tlsTrustStore");
            this.tlsTrustStorePassword = password == null ? null : password.toCharArray();
            return this;
        }

        /**
         * Sets the key and certificate this client presents to {@code rediss://} nodes that require one (mutual TLS,
         * {@code tls-auth-clients yes}). Default none. Read when {@link #build()} runs.
         *
         * @param file a PKCS#12 or JKS key store holding the client's private key and certificate chain
         * @param password the store's (and key's) password, or null if it has none; never logged
         * @return this builder
         * @throws IllegalArgumentException if the file is null
         */
        public Builder tlsKeyStore(java.nio.file.Path file, String password) {
            this.tlsKeyStore = Objects.requireNonNull(file, "tlsKeyStore");
            this.tlsKeyStorePassword = password == null ? null : password.toCharArray();
            return this;
        }

        /**
         * Sets the TLS context of {@code rediss://} nodes outright (trust, client keys, protocols), instead of
         * {@link #tlsTrustStore} and {@link #tlsKeyStore}, which it excludes. Default: the JDK's default context.
         *
         * @param context an initialised context
         * @return this builder
         */
        public Builder sslContext(javax.net.ssl.SSLContext context) {
            this.sslContext = Objects.requireNonNull(context, "sslContext");
            return this;
        }

        /**
         * Sets whether a {@code rediss://} node's certificate must name the host it is reached by (a DNS name or an
         * IP address in its subject alternative names), as HTTPS checks it. Default true; turn it off only for
         * servers reached by an address their certificate cannot list, since without it any certificate the trusted
         * authorities signed is accepted for any node.
         *
         * @param verify whether to verify host names
         * @return this builder
         */
        public Builder tlsVerifyHostname(boolean verify) {
            this.tlsVerifyHostname = verify;
            return this;
        }

        /**
         * Checks the rules that span fields and builds the configuration. Logs a warning when the number of nodes is
         * even (it tolerates no more failures than one node fewer) or below 3 (no fault tolerance).
         *
         * @return the configuration
         * @throws IllegalArgumentException if there are no nodes, two nodes are the same, the per-node timeout is not
         *         below the lease time, or the minimum validity is not below the lease time
         */
        public RedlockConfig build() {
            ConfigChecks.nodes(nodes);
            ConfigChecks.belowLeaseTime("perNodeTimeout", perNodeTimeout, leaseTime);
            ConfigChecks.belowLeaseTime("minValidity", minValidity, leaseTime);
            checkLeaseTime("leaseTime", leaseTime, perNodeTimeout, driftFactor, minValidity);
            ConfigChecks.unverifiedIdentity(unverifiedIdentity, nodes);
            if (nodes.stream().noneMatch(NodeSpec::isCluster)) {
                // A cluster's count is known once the client finds it.
                ConfigChecks.nodesPerLock(nodesPerLock, nodes.size());
                ConfigChecks.warnOnNodeCount(nodes.size(), nodesPerLock);
            }
            if (!restartQuarantine && nodes.stream().anyMatch(NodeSpec::isSentinelManaged)) {
                ConfigChecks.warnFailoverUnprotected();
            }
            if (sslContext != null && (tlsTrustStore != null || tlsKeyStore != null)) {
                throw new IllegalArgumentException("sslContext: give either an SSLContext or tlsTrustStore/tlsKeyStore,"
                        + " not both (the context already decides trust and client keys)");
            }
            boolean tlsNodes = nodes.stream().anyMatch(NodeSpec::ssl);
            boolean tlsSettings = sslContext != null || tlsTrustStore != null || tlsKeyStore != null;
            if (tlsSettings && !tlsNodes) {
                ConfigChecks.warn("TLS settings are given but no node uses rediss://: they have no effect");
            }
            TlsSetup tls = tlsNodes || tlsSettings
                    ? TlsSetup.of(
                            sslContext,
                            tlsTrustStore,
                            tlsTrustStorePassword,
                            tlsKeyStore,
                            tlsKeyStorePassword,
                            tlsVerifyHostname)
                    : null;
            return new RedlockConfig(this, tls);
        }
    }
}
