/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** This library's RedLock or MultiLock over all nodes, through the lease handle API. */
final class OurContender implements Contender {

    private final QuorumPolicy policy;
    private final RedlockClient client;
    private final Duration lease;
    private final boolean polling;
    private final boolean tls;

    OurContender(QuorumPolicy policy, List<String> uris, Duration perNodeTimeout, Duration lease) {
        this(policy, uris, perNodeTimeout, lease, false);
    }

    /** Over TLS-only masters ({@code rediss://} URIs) whose authority is that of {@code certs}. */
    OurContender(
            QuorumPolicy policy,
            List<String> uris,
            Duration perNodeTimeout,
            Duration lease,
            dev.redlock.testkit.TlsCertificates certs) {
        this.policy = policy;
        this.lease = lease;
        this.polling = false;
        this.tls = true;
        RedlockConfig.Builder config = RedlockConfig.builder()
                .nodes(uris)
                .perNodeTimeout(perNodeTimeout)
                .restartQuarantine(false)
                .tlsTrustStore(certs.trustStore(), certs.storePassword());
        this.client = RedlockClient.create(config.build());
    }

    /**
     * @param polling with release notifications off: waiters only poll, as before they existed
     * @param listeners registered with the client, to hear its rounds
     */
    OurContender(
            QuorumPolicy policy,
            List<String> uris,
            Duration perNodeTimeout,
            Duration lease,
            boolean polling,
            RedlockListener... listeners) {
        this.policy = policy;
        this.lease = lease;
        this.polling = polling;
        this.tls = false;
        this.client = newClient(uris, perNodeTimeout, !polling, listeners);
    }

    private OurContender(QuorumPolicy policy, Duration lease, RedlockClient client) {
        this.policy = policy;
        this.lease = lease;
        this.polling = false;
        this.tls = false;
        this.client = client;
    }

    /**
     * Our RedLock with restart protection on, as the library's default: every acquire checks the node's incarnation
     * marker and every connection reads {@code INFO} first. Fresh masters do not count for the longest lease plus
     * drift, so a run must warm up for longer than {@code lease} before it measures.
     */
    static OurContender restartProtected(List<String> uris, Duration perNodeTimeout, Duration lease) {
        RedlockClient client = RedlockClient.create(RedlockConfig.builder()
                .nodes(uris)
                .perNodeTimeout(perNodeTimeout)
                .build());
        return new OurContender(QuorumPolicy.MAJORITY, lease, client);
    }

    /**
     * A client over {@code uris} as every benchmark of ours runs it, with {@code listeners} registered. Restart
     * quarantine off: the masters were started moments before the run, and would not count at first.
     */
    static RedlockClient newClient(
            List<String> uris, Duration perNodeTimeout, boolean releaseNotifications, RedlockListener... listeners) {
        RedlockConfig.Builder config = RedlockConfig.builder()
                .nodes(uris)
                .perNodeTimeout(perNodeTimeout)
                .restartQuarantine(false)
                .releaseNotifications(releaseNotifications);
        for (RedlockListener listener : listeners) {
            config.listener(listener);
        }
        return RedlockClient.create(config.build());
    }

    @Override
    public String id() {
        return (policy == QuorumPolicy.MAJORITY ? "ours-redlock" : "ours-multilock")
                + (polling ? "-polling" : "")
                + (tls ? "-tls" : "");
    }

    @Override
    public String label() {
        return (policy == QuorumPolicy.MAJORITY ? "ours: RedLock" : "ours: MultiLock")
                + (polling ? ", polling (notifications off)" : "")
                + (tls ? " over TLS" : "");
    }

    @Override
    public String settings() {
        RedlockConfig c = client.config();
        return "one RedlockClient over " + c.nodeNames().size() + (tls ? " TLS-only" : "") + " nodes; "
                + (policy == QuorumPolicy.MAJORITY ? "client.redLock(name)" : "client.multiLock(name)")
                + "; lock.tryAcquire(wait, " + lease.toSeconds() + " s) then lease.release(); " + clientSettings(c);
    }

    /** The settings of a client made by {@link #newClient}, for the reports. */
    static String clientSettings(RedlockConfig c) {
        return "perNodeTimeout " + c.perNodeTimeout().toMillis() + " ms, restartQuarantine "
                + (c.restartQuarantine() ? "on" : "off (fresh masters)") + ", "
                + "connectTimeout " + c.connectTimeout().toMillis()
                + " ms, retryDelay " + c.retryDelay().toMillis() + " ms +/- " + Math.round(c.retryJitter() * 100)
                + "%, driftFactor " + c.driftFactor() + ", circuitOpenDuration "
                + c.circuitOpenDuration().toMillis() + " ms, releaseNotifications " + c.releaseNotifications()
                + ", everything else default";
    }

    @Override
    public Handle open(String lockName) {
        QuorumLock lock = client.lock(lockName, policy);
        return new Handle() {
            private Lease held;

            @Override
            public boolean acquire(long waitMillis) throws InterruptedException {
                Optional<Lease> acquired = lock.tryAcquire(Duration.ofMillis(waitMillis), lease);
                held = acquired.orElse(null);
                return held != null;
            }

            @Override
            public void release() {
                held.release();
                held = null;
            }
        };
    }

    /** The configuration in use, for the floor's retry schedule. */
    RedlockConfig config() {
        return client.config();
    }

    @Override
    public void close() {
        client.close();
    }
}
