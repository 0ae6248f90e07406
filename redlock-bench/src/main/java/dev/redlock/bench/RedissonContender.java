/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson as the baseline: {@code RedissonRedLock} or {@code RedissonMultiLock} over one {@code RedissonClient} per
 * node (as Redisson's documentation builds them), or a plain {@code RLock} on one node.
 */
final class RedissonContender implements Contender {

    /** Which Redisson lock to build. */
    enum Kind {
        RED_LOCK,
        MULTI_LOCK,
        SINGLE
    }

    /** Redisson's own response timeout, the counterpart of our per-node timeout. */
    static final int TIMEOUT_MILLIS = 50;
    /** The lowest value Redisson accepts: no retry of a command that timed out. */
    static final int RETRY_ATTEMPTS = 0;
    /** Same as our connect timeout (Redisson's default is 10 s). */
    static final int CONNECT_TIMEOUT_MILLIS = 1000;

    private final Kind kind;
    private final List<RedissonClient> clients;
    private final long leaseMillis;

    RedissonContender(Kind kind, List<String> uris, Duration lease) {
        this.kind = kind;
        this.leaseMillis = lease.toMillis();
        this.clients = newClients(kind == Kind.SINGLE ? uris.subList(0, 1) : uris);
    }

    /** One client per node ({@link #newClient}); if one cannot start, the ones that did are shut down. */
    static List<RedissonClient> newClients(List<String> uris) {
        return Cleanup.openAll(uris.size(), i -> newClient(uris.get(i)), RedissonContender::shutdownAll);
    }

    /** A client of one node, configured as every Redisson baseline runs it (see {@link #CLIENT_SETTINGS}). */
    static RedissonClient newClient(String uri) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress(uri)
                .setTimeout(TIMEOUT_MILLIS)
                .setRetryAttempts(RETRY_ATTEMPTS)
                .setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
        return Redisson.create(config);
    }

    /** The settings of a client made by {@link #newClient}, for the reports. */
    static final String CLIENT_SETTINGS = "useSingleServer(): timeout " + TIMEOUT_MILLIS + " ms, retryAttempts "
            + RETRY_ATTEMPTS + " (lowest allowed), connectTimeout " + CONNECT_TIMEOUT_MILLIS + " ms; everything else "
            + "default (connectionPoolSize 64, connectionMinimumIdleSize 24, nettyThreads 32, codec default)";

    /** Shuts the clients down without a quiet period; throws the first failure after trying every one. */
    static void shutdownAll(List<RedissonClient> clients) {
        try {
            // No quiet period: nothing is submitted any more, and the default 2 s per client adds up.
            Cleanup.each(clients, client -> client.shutdown(0, 5, TimeUnit.SECONDS));
        } finally {
            clients.clear();
        }
    }

    @Override
    public String id() {
        return switch (kind) {
            case RED_LOCK -> "redisson-redlock";
            case MULTI_LOCK -> "redisson-multilock";
            case SINGLE -> "redisson-rlock";
        };
    }

    @Override
    public String label() {
        return switch (kind) {
            case RED_LOCK -> "Redisson RedissonRedLock";
            case MULTI_LOCK -> "Redisson RedissonMultiLock";
            case SINGLE -> "Redisson RLock (1 node)";
        };
    }

    @Override
    public String settings() {
        String shape = switch (kind) {
            case RED_LOCK -> "new RedissonRedLock(5 RLocks, one per RedissonClient, one client per node)";
            case MULTI_LOCK -> "new RedissonMultiLock(5 RLocks, one per RedissonClient, one client per node)";
            case SINGLE -> "client.getLock(name) on one RedissonClient for node 1";
        };
        return shape + "; tryLock(wait, " + leaseMillis + ", MILLISECONDS) then unlock(); " + CLIENT_SETTINGS;
    }

    // RedissonRedLock is deprecated, but it is still the Redlock that Redisson ships and documents.
    @Override
    @SuppressWarnings("deprecation")
    public Handle open(String lockName) {
        String key = "redisson:" + lockName;
        RLock lock;
        if (kind == Kind.SINGLE) {
            lock = clients.get(0).getLock(key);
        } else {
            RLock[] parts = clients.stream().map(c -> c.getLock(key)).toArray(RLock[]::new);
            lock = kind == Kind.RED_LOCK ? new RedissonRedLock(parts) : new RedissonMultiLock(parts);
        }
        return handle(lock, leaseMillis);
    }

    /** A handle on a Redisson lock: {@code tryLock} with the fixed lease, {@code unlock}. */
    static Handle handle(RLock lock, long leaseMillis) {
        return new Handle() {
            @Override
            public boolean acquire(long waitMillis) throws InterruptedException {
                return lock.tryLock(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
            }

            @Override
            public void release() {
                lock.unlock();
            }
        };
    }

    @Override
    public void close() {
        shutdownAll(clients);
    }
}
