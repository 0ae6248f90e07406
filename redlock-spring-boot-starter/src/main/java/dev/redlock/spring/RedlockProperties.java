/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import dev.redlock.RedlockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code redlock.*} properties: the nodes and every setting of {@link RedlockConfig.Builder} that has a value
 * form, plus the settings of the health indicator ({@code redlock.health.*}) and of the Spring Integration lock
 * registry ({@code redlock.integration.*}).
 *
 * <p>Every default here is the library's own default (see the {@code DEFAULT_*} constants of {@link RedlockConfig}).
 * Durations take Spring's forms with a unit ({@code 50ms}, {@code 2s}, {@code PT1M}): a bare number such as
 * {@code 30} fails startup (Spring would read it as milliseconds), except {@code 0}. Settings
 * without a value form (a node given as the application's own transport, the ticker, the wall clock, the async executor, listeners)
 * are set with a {@link RedlockConfigCustomizer} bean; {@link dev.redlock.RedlockListener} beans are added as
 * listeners.
 */
@ConfigurationProperties("redlock")
public class RedlockProperties {

    /**
     * Whether to create a RedlockClient bean from these properties.
     */
    private boolean enabled = true;

    /**
     * Redis masters, as redis://[user:password@]host[:port][/db] or rediss:// URIs, or Sentinel-managed masters as
     * redis-sentinel://[user:password@]sentinel1[:26379],sentinel2/masterName URIs. Each must be an
     * independent master; use an odd number, at least 3. Or one Redis Cluster as the whole quorum,
     * redis-cluster://[user:password@]seed1:7000,seed2:7000/[?nodes=N].
     */
    private List<String> nodes = new ArrayList<>();

    /**
     * How long a round waits for any one node; also the socket read timeout. Keep it much smaller than the lease
     * time.
     */
    private Duration perNodeTimeout = Duration.ofMillis(50);

    /**
     * TCP connect timeout.
     */
    private Duration connectTimeout = Duration.ofSeconds(1);

    /**
     * TTL set on each node when a call fixes none; such leases are extended by the client's watchdog every third of
     * it until released.
     */
    private Duration leaseTime = Duration.ofSeconds(30);

    /**
     * Clock drift factor, in [0, 0.5): drift = ttl * driftFactor + 2 ms is subtracted from every lease's validity.
     */
    private double driftFactor = 0.01;

    /**
     * Validity a round must leave to succeed (strictly more than this); below the lease time.
     */
    private Duration minValidity = Duration.ZERO;

    /**
     * Wait budget of the calls that take none, such as QuorumLock.tryAcquire().
     */
    private Duration waitBudget = Duration.ofSeconds(2);

    /**
     * Base delay between two acquire rounds.
     */
    private Duration retryDelay = Duration.ofMillis(50);

    /**
     * Jitter of the retry delay, in [0, 1]: each delay is uniform in [retryDelay * (1 - jitter), retryDelay * (1 +
     * jitter)].
     */
    private double retryJitter = 0.5;

    /**
     * How long a failing node's open circuit breaker skips it before letting a probe through.
     */
    private Duration circuitOpenDuration = Duration.ofSeconds(1);

    /**
     * Prefix of every lock key: lock "name" is the key prefix + "{name}".
     */
    private String keyPrefix = "redlock:";

    /**
     * How this client names itself on the nodes, shown beside a lock holder's host, pid and thread by inspect and
     * "redlock status"; default spring.application.name, else the main class or jar.
     */
    private String clientName;

    /**
     * How long the watchdog keeps extending a lease before it lets it expire; 0 means no cap.
     */
    private Duration maxHoldTime = Duration.ZERO;

    /**
     * Failed extensions in a row after which the watchdog declares a lease lost; 0 means it keeps trying until the
     * lease's deadline.
     */
    private int maxFailedExtensions = 0;

    /**
     * Whether restart protection is on: a node that may have lost data recently, or whose identity cannot be read,
     * does not vote. Turn it off only for nodes that never lose acknowledged writes.
     */
    private boolean restartQuarantine = true;

    /**
     * Whether nodes with appendonly yes and appendfsync always are exempt from restart quarantine.
     */
    private boolean trustPersistentNodes = false;

    /**
     * How often an idle connection reads its node's identity and uptime again (each new connection reads them
     * first).
     */
    private Duration identityCheckInterval = Duration.ofSeconds(10);

    /**
     * Largest bulk string a node's reply may carry, from 16KB to 16MB; a larger reply is a protocol error for that
     * node. A bare number is bytes.
     */
    private DataSize maxReplyBytes = DataSize.ofKilobytes(64);

    /**
     * Whether waiting acquisitions are woken by releases (pub/sub from the release script, and this client's own
     * releases) instead of only polling.
     */
    private boolean releaseNotifications = true;

    /**
     * How many of the nodes each lock uses (0: every node); below the node count, each lock uses its own nodes by
     * rendezvous hashing of its name. Every client of the same nodes must set the same value.
     */
    private int nodesPerLock;

    /**
     * Whether to inspect the nodes when the client is created and log what looks unsafe (duplicates, replicas,
     * eviction policy, an even or small N, a lease time that leaves little validity, refused commands).
     */
    private boolean checkTopology = true;

    /**
     * Whether topology warnings are failures: creating the client (and so starting the application) fails on them.
     */
    private boolean strictTopology = false;

    /**
     * Names of nodes (host:port, as in outcomes and logs) that vote even though their INFO cannot be read; restart
     * protection for them rests on the incarnation marker alone.
     */
    private List<String> unverifiedIdentity = new ArrayList<>();

    private final Health health = new Health();

    private final Tls tls = new Tls();

    private final Integration integration = new Integration();

    /**
     * Puts back together what Spring split at the commas of a comma-separated {@code redlock.nodes} value: an entry
     * without a scheme ({@code s2:26379/mymaster}, {@code c2:7000/}) continues the Sentinel or Cluster URI before it,
     * whose sentinels or seeds it lists.
     * Anything else is left as it is, to be judged by the library's own checks.
     */
    static List<String> rejoinSentinelLists(List<String> given) {
        List<String> out = new ArrayList<>();
        for (String entry : given) {
            String previous = out.isEmpty() ? null : out.get(out.size() - 1);
            boolean continues = entry != null
                    && !entry.contains("://")
                    && previous != null
                    && previous.toLowerCase(java.util.Locale.ROOT).matches("rediss?-(?:sentinel|cluster)://[^/]*");
            if (continues) {
                out.set(out.size() - 1, previous + "," + entry.trim());
            } else {
                out.add(entry);
            }
        }
        return out;
    }

    /**
     * Returns a builder holding these settings, with the nodes added in order. The builder validates each value as
     * it is set, so an out-of-range setting fails here with an {@link IllegalArgumentException} naming the field.
     *
     * @return a new builder; listeners and customizers are not applied
     * @throws IllegalArgumentException if a setting is out of range or a node URI is malformed
     */
    public RedlockConfig.Builder toConfigBuilder() {
        long replyBytes = maxReplyBytes.toBytes();
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(rejoinSentinelLists(nodes))
                .perNodeTimeout(perNodeTimeout)
                .connectTimeout(connectTimeout)
                .leaseTime(leaseTime)
                .driftFactor(driftFactor)
                .minValidity(minValidity)
                .waitBudget(waitBudget)
                .retryDelay(retryDelay)
                .retryJitter(retryJitter)
                .circuitOpenDuration(circuitOpenDuration)
                .keyPrefix(keyPrefix)
                .maxHoldTime(maxHoldTime)
                .maxFailedExtensions(maxFailedExtensions)
                .restartQuarantine(restartQuarantine)
                .trustPersistentNodes(trustPersistentNodes)
                .identityCheckInterval(identityCheckInterval)
                .maxReplyBytes((int) Math.min(Integer.MAX_VALUE, Math.max(Integer.MIN_VALUE, replyBytes)))
                .releaseNotifications(releaseNotifications)
                .nodesPerLock(nodesPerLock)
                .checkTopology(checkTopology)
                .strictTopology(strictTopology)
                .unverifiedIdentity(unverifiedIdentity.toArray(new String[0]))
                .tlsVerifyHostname(tls.verifyHostname);
        if (tls.trustStore != null) {
            b.tlsTrustStore(tls.trustStore, tls.trustStorePassword);
        }
        if (tls.keyStore != null) {
            b.tlsKeyStore(tls.keyStore, tls.keyStorePassword);
        }
        if (clientName != null) {
            b.clientName(clientName);
        }
        return b;
    }

    /**
     * Returns the {@code redlock.tls.*} settings.
     *
     * @return the TLS settings of {@code rediss://} nodes
     */
    public Tls getTls() {
        return tls;
    }

    /**
     * The {@code redlock.tls.*} settings: how {@code rediss://} nodes are trusted and whom this client presents
     * itself as. Either a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}) or store files, not both.
     */
    public static class Tls {

        /** Name of a Spring Boot SSL bundle (spring.ssl.bundle.jks.NAME or .pem.NAME) to reach rediss:// nodes with. */
        private String bundle;

        /** Trust store of rediss:// nodes: PKCS#12, JKS or PEM certificates; default the JDK's authorities. */
        private java.nio.file.Path trustStore;

        /** Password of the trust store, if it has one. */
        private String trustStorePassword;

        /** Key store with this client's key and certificate, for nodes that require client certificates. */
        private java.nio.file.Path keyStore;

        /** Password of the key store and its key. */
        private String keyStorePassword;

        /** Whether a node's certificate must name the host it is reached by. */
        private boolean verifyHostname = true;

        /**
         * Returns the SSL bundle's name.
         *
         * @return {@code redlock.tls.bundle}, or null
         */
        public String getBundle() {
            return bundle;
        }

        /**
         * Sets the SSL bundle's name.
         *
         * @param bundle {@code redlock.tls.bundle}
         */
        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        /**
         * Returns the trust store.
         *
         * @return {@code redlock.tls.trust-store}, or null
         */
        public java.nio.file.Path getTrustStore() {
            return trustStore;
        }

        /**
         * Sets the trust store.
         *
         * @param trustStore {@code redlock.tls.trust-store}
         */
        public void setTrustStore(java.nio.file.Path trustStore) {
            this.trustStore = trustStore;
        }

        /**
         * Returns the trust store's password.
         *
         * @return {@code redlock.tls.trust-store-password}, or null
         */
        public String getTrustStorePassword() {
            return trustStorePassword;
        }

        /**
         * Sets the trust store's password.
         *
         * @param trustStorePassword {@code redlock.tls.trust-store-password}
         */
        public void setTrustStorePassword(String trustStorePassword) {
            this.trustStorePassword = trustStorePassword;
        }

        /**
         * Returns the key store.
         *
         * @return {@code redlock.tls.key-store}, or null
         */
        public java.nio.file.Path getKeyStore() {
            return keyStore;
        }

        /**
         * Sets the key store.
         *
         * @param keyStore {@code redlock.tls.key-store}
         */
        public void setKeyStore(java.nio.file.Path keyStore) {
            this.keyStore = keyStore;
        }

        /**
         * Returns the key store's password.
         *
         * @return {@code redlock.tls.key-store-password}, or null
         */
        public String getKeyStorePassword() {
            return keyStorePassword;
        }

        /**
         * Sets the key store's password.
         *
         * @param keyStorePassword {@code redlock.tls.key-store-password}
         */
        public void setKeyStorePassword(String keyStorePassword) {
            this.keyStorePassword = keyStorePassword;
        }

        /**
         * Returns whether host names are verified.
         *
         * @return {@code redlock.tls.verify-hostname}, default true
         */
        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        /**
         * Sets whether host names are verified.
         *
         * @param verifyHostname {@code redlock.tls.verify-hostname}
         */
        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    /**
     * Returns whether the client bean is created.
     *
     * @return {@code redlock.enabled}
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether the client bean is created.
     *
     * @param enabled {@code redlock.enabled}
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * Returns the node URIs.
     *
     * @return {@code redlock.nodes}, in order
     */
    public List<String> getNodes() {
        return nodes;
    }

    /**
     * Sets the node URIs.
     *
     * @param nodes {@code redlock.nodes}
     */
    public void setNodes(List<String> nodes) {
        this.nodes = nodes;
    }

    /**
     * Returns the per-node timeout.
     *
     * @return {@code redlock.per-node-timeout}
     */
    public Duration getPerNodeTimeout() {
        return perNodeTimeout;
    }

    /**
     * Sets the per-node timeout.
     *
     * @param perNodeTimeout {@code redlock.per-node-timeout}
     */
    public void setPerNodeTimeout(Duration perNodeTimeout) {
        this.perNodeTimeout = perNodeTimeout;
    }

    /**
     * Returns the TCP connect timeout.
     *
     * @return {@code redlock.connect-timeout}
     */
    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    /**
     * Sets the TCP connect timeout.
     *
     * @param connectTimeout {@code redlock.connect-timeout}
     */
    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    /**
     * Returns the default lease time.
     *
     * @return {@code redlock.lease-time}
     */
    public Duration getLeaseTime() {
        return leaseTime;
    }

    /**
     * Sets the default lease time.
     *
     * @param leaseTime {@code redlock.lease-time}
     */
    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    /**
     * Returns the drift factor.
     *
     * @return {@code redlock.drift-factor}
     */
    public double getDriftFactor() {
        return driftFactor;
    }

    /**
     * Sets the drift factor.
     *
     * @param driftFactor {@code redlock.drift-factor}
     */
    public void setDriftFactor(double driftFactor) {
        this.driftFactor = driftFactor;
    }

    /**
     * Returns the minimum validity.
     *
     * @return {@code redlock.min-validity}
     */
    public Duration getMinValidity() {
        return minValidity;
    }

    /**
     * Sets the minimum validity.
     *
     * @param minValidity {@code redlock.min-validity}
     */
    public void setMinValidity(Duration minValidity) {
        this.minValidity = minValidity;
    }

    /**
     * Returns the default wait budget.
     *
     * @return {@code redlock.wait-budget}
     */
    public Duration getWaitBudget() {
        return waitBudget;
    }

    /**
     * Sets the default wait budget.
     *
     * @param waitBudget {@code redlock.wait-budget}
     */
    public void setWaitBudget(Duration waitBudget) {
        this.waitBudget = waitBudget;
    }

    /**
     * Returns the base retry delay.
     *
     * @return {@code redlock.retry-delay}
     */
    public Duration getRetryDelay() {
        return retryDelay;
    }

    /**
     * Sets the base retry delay.
     *
     * @param retryDelay {@code redlock.retry-delay}
     */
    public void setRetryDelay(Duration retryDelay) {
        this.retryDelay = retryDelay;
    }

    /**
     * Returns the retry jitter.
     *
     * @return {@code redlock.retry-jitter}
     */
    public double getRetryJitter() {
        return retryJitter;
    }

    /**
     * Sets the retry jitter.
     *
     * @param retryJitter {@code redlock.retry-jitter}
     */
    public void setRetryJitter(double retryJitter) {
        this.retryJitter = retryJitter;
    }

    /**
     * Returns how long an open circuit breaker skips its node.
     *
     * @return {@code redlock.circuit-open-duration}
     */
    public Duration getCircuitOpenDuration() {
        return circuitOpenDuration;
    }

    /**
     * Sets how long an open circuit breaker skips its node.
     *
     * @param circuitOpenDuration {@code redlock.circuit-open-duration}
     */
    public void setCircuitOpenDuration(Duration circuitOpenDuration) {
        this.circuitOpenDuration = circuitOpenDuration;
    }

    /**
     * Returns the client's name.
     *
     * @return {@code redlock.client-name}, or null for the default
     */
    public String getClientName() {
        return clientName;
    }

    /**
     * Sets the client's name.
     *
     * @param clientName {@code redlock.client-name}
     */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /**
     * Returns the key prefix.
     *
     * @return {@code redlock.key-prefix}
     */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /**
     * Sets the key prefix.
     *
     * @param keyPrefix {@code redlock.key-prefix}
     */
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /**
     * Returns the watchdog's hold cap.
     *
     * @return {@code redlock.max-hold-time}; zero for none
     */
    public Duration getMaxHoldTime() {
        return maxHoldTime;
    }

    /**
     * Sets the watchdog's hold cap.
     *
     * @param maxHoldTime {@code redlock.max-hold-time}; zero for none
     */
    public void setMaxHoldTime(Duration maxHoldTime) {
        this.maxHoldTime = maxHoldTime;
    }

    /**
     * Returns the cap on failed extensions in a row.
     *
     * @return {@code redlock.max-failed-extensions}; zero for none
     */
    public int getMaxFailedExtensions() {
        return maxFailedExtensions;
    }

    /**
     * Sets the cap on failed extensions in a row.
     *
     * @param maxFailedExtensions {@code redlock.max-failed-extensions}; zero for none
     */
    public void setMaxFailedExtensions(int maxFailedExtensions) {
        this.maxFailedExtensions = maxFailedExtensions;
    }

    /**
     * Returns whether restart protection is on.
     *
     * @return {@code redlock.restart-quarantine}
     */
    public boolean isRestartQuarantine() {
        return restartQuarantine;
    }

    /**
     * Sets whether restart protection is on.
     *
     * @param restartQuarantine {@code redlock.restart-quarantine}
     */
    public void setRestartQuarantine(boolean restartQuarantine) {
        this.restartQuarantine = restartQuarantine;
    }

    /**
     * Returns whether fully persistent nodes are exempt from restart quarantine.
     *
     * @return {@code redlock.trust-persistent-nodes}
     */
    public boolean isTrustPersistentNodes() {
        return trustPersistentNodes;
    }

    /**
     * Sets whether fully persistent nodes are exempt from restart quarantine.
     *
     * @param trustPersistentNodes {@code redlock.trust-persistent-nodes}
     */
    public void setTrustPersistentNodes(boolean trustPersistentNodes) {
        this.trustPersistentNodes = trustPersistentNodes;
    }

    /**
     * Returns the identity check interval.
     *
     * @return {@code redlock.identity-check-interval}
     */
    public Duration getIdentityCheckInterval() {
        return identityCheckInterval;
    }

    /**
     * Sets the identity check interval.
     *
     * @param identityCheckInterval {@code redlock.identity-check-interval}
     */
    public void setIdentityCheckInterval(Duration identityCheckInterval) {
        this.identityCheckInterval = identityCheckInterval;
    }

    /**
     * Returns the largest bulk string a reply may carry.
     *
     * @return {@code redlock.max-reply-bytes}
     */
    public DataSize getMaxReplyBytes() {
        return maxReplyBytes;
    }

    /**
     * Sets the largest bulk string a reply may carry.
     *
     * @param maxReplyBytes {@code redlock.max-reply-bytes}
     */
    public void setMaxReplyBytes(DataSize maxReplyBytes) {
        this.maxReplyBytes = maxReplyBytes;
    }

    /**
     * Returns whether waiters are woken by release notifications.
     *
     * @return {@code redlock.release-notifications}
     */
    public boolean isReleaseNotifications() {
        return releaseNotifications;
    }

    /**
     * Sets whether waiters are woken by release notifications.
     *
     * @param releaseNotifications {@code redlock.release-notifications}
     */
    public void setReleaseNotifications(boolean releaseNotifications) {
        this.releaseNotifications = releaseNotifications;
    }

    /**
     * Returns how many of the nodes each lock uses.
     *
     * @return {@code redlock.nodes-per-lock}; 0 for every node
     */
    public int getNodesPerLock() {
        return nodesPerLock;
    }

    /**
     * Sets how many of the nodes each lock uses.
     *
     * @param nodesPerLock {@code redlock.nodes-per-lock}: 0 (every node) or 3 to 99
     */
    public void setNodesPerLock(int nodesPerLock) {
        this.nodesPerLock = nodesPerLock;
    }

    /**
     * Returns whether the topology is checked when the client is created.
     *
     * @return {@code redlock.check-topology}
     */
    public boolean isCheckTopology() {
        return checkTopology;
    }

    /**
     * Sets whether the topology is checked when the client is created.
     *
     * @param checkTopology {@code redlock.check-topology}
     */
    public void setCheckTopology(boolean checkTopology) {
        this.checkTopology = checkTopology;
    }

    /**
     * Returns whether topology warnings are failures.
     *
     * @return {@code redlock.strict-topology}
     */
    public boolean isStrictTopology() {
        return strictTopology;
    }

    /**
     * Sets whether topology warnings are failures.
     *
     * @param strictTopology {@code redlock.strict-topology}
     */
    public void setStrictTopology(boolean strictTopology) {
        this.strictTopology = strictTopology;
    }

    /**
     * Returns the nodes that vote without a readable identity.
     *
     * @return {@code redlock.unverified-identity}
     */
    public List<String> getUnverifiedIdentity() {
        return unverifiedIdentity;
    }

    /**
     * Sets the nodes that vote without a readable identity.
     *
     * @param unverifiedIdentity {@code redlock.unverified-identity}
     */
    public void setUnverifiedIdentity(List<String> unverifiedIdentity) {
        this.unverifiedIdentity = unverifiedIdentity;
    }

    /**
     * Returns the health indicator's settings.
     *
     * @return {@code redlock.health.*}
     */
    public Health getHealth() {
        return health;
    }

    /**
     * Returns the lock registry's settings.
     *
     * @return {@code redlock.integration.*}
     */
    public Integration getIntegration() {
        return integration;
    }

    /**
     * The {@code redlock.health.*} settings of the Actuator health indicator. The indicator itself is switched with
     * Boot's {@code management.health.redlock.enabled}.
     */
    public static class Health {

        /**
         * How often the health indicator runs a topology check (RedlockClient.check()) in the background; its
         * warnings are shown as details. 0 turns the check off.
         */
        private Duration topologyCheckInterval = Duration.ofMinutes(5);

        /**
         * Returns how often the topology is checked in the background.
         *
         * @return {@code redlock.health.topology-check-interval}; zero for never
         */
        public Duration getTopologyCheckInterval() {
            return topologyCheckInterval;
        }

        /**
         * Sets how often the topology is checked in the background.
         *
         * @param topologyCheckInterval {@code redlock.health.topology-check-interval}; zero for never
         */
        public void setTopologyCheckInterval(Duration topologyCheckInterval) {
            this.topologyCheckInterval = topologyCheckInterval;
        }
    }

    /**
     * The {@code redlock.integration.*} settings of the Spring Integration lock registry.
     */
    public static class Integration {

        /**
         * Whether to create a RedlockLockRegistry bean when Spring Integration is on the classpath.
         */
        private boolean enabled = true;

        /**
         * Fixed TTL of the registry's leases; each reentrant lock or tryLock by the owner renews it. Keep a leader
         * initiator's heartbeat under a third of it. Defaults to redlock.lease-time.
         */
        private Duration leaseTime;

        /**
         * Returns whether the registry bean is created.
         *
         * @return {@code redlock.integration.enabled}
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the registry bean is created.
         *
         * @param enabled {@code redlock.integration.enabled}
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * Returns the registry's lease time.
         *
         * @return {@code redlock.integration.lease-time}, or null for the client's lease time
         */
        public Duration getLeaseTime() {
            return leaseTime;
        }

        /**
         * Sets the registry's lease time.
         *
         * @param leaseTime {@code redlock.integration.lease-time}, or null for the client's lease time
         */
        public void setLeaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
        }
    }
}
