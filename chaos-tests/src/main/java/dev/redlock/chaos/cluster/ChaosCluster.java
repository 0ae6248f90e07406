/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.cluster;

import dev.redlock.chaos.history.NemesisEvent;
import dev.redlock.chaos.net.FaultProxy;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * N independent Redis masters under fault injection: real {@code redis-server} processes on loopback, each
 * optionally behind an in-process {@link FaultProxy}. Every fault is reported to a listener as a
 * {@link NemesisEvent}, so the history records what was done and when.
 *
 * <p>Faults: kill (SIGKILL), pause/resume (SIGSTOP/SIGCONT), {@code CLIENT PAUSE ms WRITE}, restart on the same port
 * (keys survive only if the cluster runs with AOF), network faults through the proxy, and clock faults simulated from
 * the harness by shortening a key's TTL, which is what a forward jump or a fast clock does to Redis expiry.
 *
 * <p>Every process is stopped by its PID on {@link #close()}, and by a JVM shutdown hook if a test dies first.
 */
public final class ChaosCluster implements AutoCloseable {

    /** How the cluster is built. */
    public static final class Options {
        boolean aof;
        boolean proxies;
        boolean tls;

        /** Every node speaks only TLS, with certificates made for this cluster ({@link ChaosCluster#tls()}). */
        public Options tls() {
            this.tls = true;
            return this;
        }

        /** Every node persists with {@code appendonly yes} and {@code appendfsync always}: keys survive restarts. */
        public Options aof() {
            this.aof = true;
            return this;
        }

        /** Clients connect through a per-node fault proxy, so network faults can be injected. */
        public Options proxies() {
            this.proxies = true;
            return this;
        }
    }

    private final List<RedisServer> servers;
    private final List<FaultProxy> proxies;
    private final boolean aof;
    private final dev.redlock.testkit.TlsCertificates tls;
    private volatile Consumer<NemesisEvent> listener = e -> {};

    private ChaosCluster(
            List<RedisServer> servers, List<FaultProxy> proxies, boolean aof, dev.redlock.testkit.TlsCertificates tls) {
        this.tls = tls;
        this.servers = servers;
        this.proxies = proxies;
        this.aof = aof;
    }

    /**
     * Starts {@code n} masters.
     *
     * @param n the number of nodes
     * @param options persistence and proxies
     * @return the running cluster
     */
    public static ChaosCluster start(int n, Options options) {
        List<String> args = options.aof ? List.of("--appendonly", "yes", "--appendfsync", "always") : List.of();
        List<RedisServer> servers = new ArrayList<>();
        List<FaultProxy> proxies = new ArrayList<>();
        dev.redlock.testkit.TlsCertificates tls = options.tls ? dev.redlock.testkit.TlsCertificates.generate() : null;
        try {
            for (int i = 0; i < n; i++) {
                RedisServer s = tls == null ? RedisServer.start(args) : RedisServer.startTls(tls, false, args);
                servers.add(s);
                if (options.proxies) {
                    proxies.add(FaultProxy.start(s.port()));
                }
            }
        } catch (RuntimeException e) {
            proxies.forEach(FaultProxy::close);
            servers.forEach(RedisServer::close);
            throw e;
        }
        return new ChaosCluster(List.copyOf(servers), List.copyOf(proxies), options.aof, tls);
    }

    /** Sends every fault to {@code listener} as it is injected. */
    public void onFault(Consumer<NemesisEvent> listener) {
        this.listener = Objects.requireNonNull(listener);
    }

    private void record(String kind, int node, String detail) {
        listener.accept(new NemesisEvent(System.nanoTime(), kind, node, detail));
    }

    public int size() {
        return servers.size();
    }

    public boolean persistent() {
        return aof;
    }

    /** The certificates of a TLS cluster (its trust store is what clients must trust), or null for plain TCP. */
    public dev.redlock.testkit.TlsCertificates tls() {
        return tls;
    }

    /** The URIs clients should use: through the proxies when there are any. */
    public List<String> uris() {
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            uris.add(proxies.isEmpty() ? servers.get(i).uri() : proxies.get(i).uri());
        }
        return uris;
    }

    /**
     * Names node {@code i} for people: its index and the port its {@code redis-server} listens on, which stays the
     * same across restarts, e.g. {@code "node 1 (:7001)"}. Clients of a cluster with fault proxies connect to the
     * proxy's port instead ({@link #uris()}).
     *
     * @param i the node's index
     * @return the label
     */
    public String label(int i) {
        return "node " + i + " (:" + servers.get(i).port() + ")";
    }

    public RedisServer server(int i) {
        return servers.get(i);
    }

    /** The fault proxy in front of node {@code i}. */
    public FaultProxy proxy(int i) {
        if (proxies.isEmpty()) {
            throw new IllegalStateException("this cluster was started without fault proxies");
        }
        return proxies.get(i);
    }

    // ------------------------------------------------------------------------------------------- process faults

    public void kill(int i) {
        servers.get(i).kill();
        record("kill", i, servers.get(i).uri());
    }

    public void pause(int i) {
        servers.get(i).pause();
        record("pause", i, "SIGSTOP");
    }

    public void resume(int i) {
        servers.get(i).resume();
        record("resume", i, "SIGCONT");
    }

    /** Restarts node {@code i} on the same port: its keys survive only with AOF. */
    public void restart(int i) {
        servers.get(i).restart();
        if (!proxies.isEmpty()) {
            proxies.get(i).retarget(servers.get(i).port());
        }
        record("restart", i, aof ? "with AOF appendfsync always" : "without persistence");
    }

    /** {@code FLUSHALL}: the node keeps running but its data is gone, as after a failover to an empty replica. */
    public void flushAll(int i) {
        servers.get(i).flushAll();
        record("flushall", i, "every key gone, same process");
    }

    /** {@code CLIENT PAUSE ms WRITE}: the node stops executing writes (and scripts) for that long. */
    public void clientPauseWrites(int i, Duration duration) {
        // A generous timeout: the nemesis may have SIGSTOPped this node a moment ago; the command runs when it resumes.
        try (Jedis jedis = servers.get(i).client(Duration.ofSeconds(10))) {
            jedis.sendCommand(
                    redis.clients.jedis.Protocol.Command.CLIENT, "PAUSE", Long.toString(duration.toMillis()), "WRITE");
        }
        record("client-pause", i, duration.toMillis() + " ms WRITE");
    }

    // ------------------------------------------------------------------------------------------- network faults

    public void latency(int i, Duration perDirection) {
        proxy(i).latency(perDirection);
        record("latency", i, perDirection.toMillis() + " ms each way");
    }

    public void freeze(int i) {
        proxy(i).freeze();
        record("freeze", i, "link delivers nothing");
    }

    public void dropConnections(int i) {
        proxy(i).dropConnections();
        record("drop", i, "connections closed");
    }

    public void refuseConnections(int i, boolean refuse) {
        proxy(i).refuseConnections(refuse);
        record(refuse ? "refuse" : "accept", i, refuse ? "connections refused" : "connections accepted");
    }

    // ------------------------------------------------------------------------------------------- clock faults

    /**
     * A forward clock jump on node {@code i}, as Redis sees it: every key matching {@code pattern} expires now.
     *
     * @return how many keys were expired
     */
    public int clockJump(int i, String pattern) {
        int n = 0;
        try (Jedis jedis = servers.get(i).client()) {
            for (String key : scan(jedis, pattern)) {
                if (jedis.pexpire(key, 1) == 1) {
                    n++;
                }
            }
        }
        record("clock-jump", i, "expired " + n + " key(s) matching " + pattern);
        return n;
    }

    /**
     * A fast clock on node {@code i}: the remaining TTL of every key matching {@code pattern} is divided by
     * {@code factor}. Applied repeatedly on a schedule, it makes the node expire keys that much early.
     */
    public void clockRate(int i, String pattern, double factor) {
        try (Jedis jedis = servers.get(i).client()) {
            for (String key : scan(jedis, pattern)) {
                long pttl = jedis.pttl(key);
                if (pttl > 0) {
                    jedis.pexpire(key, Math.max(1, (long) (pttl / factor)));
                }
            }
        }
        record("clock-rate", i, "TTLs of " + pattern + " divided by " + factor);
    }

    private static List<String> scan(Jedis jedis, String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        ScanParams params = new ScanParams().match(pattern).count(100);
        do {
            ScanResult<String> page = jedis.scan(cursor, params);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }

    // ------------------------------------------------------------------------------------------- healing, checks

    /** Undoes every fault on node {@code i}: resumes or restarts the process and heals its link. */
    public void heal(int i) {
        RedisServer s = servers.get(i);
        if (s.isPaused()) {
            resume(i);
        }
        if (!s.isRunning()) {
            restart(i);
        }
        if (!proxies.isEmpty()) {
            proxies.get(i).heal();
            record("heal", i, "link healed");
        }
    }

    public void healAll() {
        for (int i = 0; i < servers.size(); i++) {
            heal(i);
        }
    }

    /** Whether node {@code i} runs and is not paused (its link may still be faulty). */
    public boolean isUp(int i) {
        return servers.get(i).isRunning() && !servers.get(i).isPaused();
    }

    /** Keys matching {@code pattern} on every node that is up, as "node:key" strings. */
    public List<String> keysEverywhere(String pattern) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            if (isUp(i)) {
                try (Jedis jedis = servers.get(i).client()) {
                    for (String key : scan(jedis, pattern)) {
                        found.add(i + ":" + key);
                    }
                }
            }
        }
        return found;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (FaultProxy p : proxies) {
            try {
                p.close();
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        for (RedisServer s : servers) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
