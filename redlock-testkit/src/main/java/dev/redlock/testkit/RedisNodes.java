/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A group of independent redis-server masters, as used by Redlock: no replication, no cluster,
 * each on its own free loopback port.
 */
public final class RedisNodes implements AutoCloseable {

    private final List<RedisServer> servers;

    private RedisNodes(List<RedisServer> servers) {
        this.servers = List.copyOf(servers);
    }

    /**
     * Starts {@code n} servers in parallel with default arguments (no persistence). If any fails
     * to start, the others are closed before the failure is thrown.
     *
     * @param n number of servers, at least 1
     * @return the running group
     * @throws IllegalStateException if a server cannot be started
     */
    public static RedisNodes start(int n) {
        return start(n, List.of());
    }

    /**
     * Starts {@code n} servers in parallel, each with the given extra redis-server arguments (see
     * {@link RedisServer#start(List)}). If any fails to start, the others are closed before the
     * failure is thrown.
     *
     * @param n number of servers, at least 1
     * @param extraArgs arguments appended to every server's command line
     * @return the running group
     * @throws IllegalStateException if a server cannot be started
     */
    public static RedisNodes start(int n, List<String> extraArgs) {
        return start(n, null, extraArgs);
    }

    /**
     * Starts {@code n} TLS-only servers in parallel with the given certificates (see
     * {@link RedisServer#startTls(TlsCertificates)}) and extra arguments.
     *
     * @param n number of servers, at least 1
     * @param tls the servers' certificates
     * @param extraArgs arguments appended to every server's command line
     * @return the running group
     * @throws IllegalStateException if a server cannot be started
     */
    public static RedisNodes startTls(int n, TlsCertificates tls, List<String> extraArgs) {
        return start(n, java.util.Objects.requireNonNull(tls, "tls"), extraArgs);
    }

    private static RedisNodes start(int n, TlsCertificates tls, List<String> extraArgs) {
        List<String> args = List.copyOf(extraArgs);
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1, got " + n);
        }
        List<java.util.function.Supplier<RedisServer>> starters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            starters.add(() -> tls == null ? RedisServer.start(args) : RedisServer.startTls(tls, false, args));
        }
        // Never leaks the servers that did start when one fails.
        return new RedisNodes(GroupSupport.startAll(starters, "redis-nodes-start"));
    }

    /**
     * Returns the number of servers in the group.
     *
     * @return the group size
     */
    public int size() {
        return servers.size();
    }

    /**
     * Returns one server.
     *
     * @param i index, from 0 to {@code size() - 1}
     * @return the server at that index
     */
    public RedisServer get(int i) {
        return servers.get(i);
    }

    /**
     * Returns all servers, in index order.
     *
     * @return an unmodifiable list
     */
    public List<RedisServer> servers() {
        return servers;
    }

    /**
     * Returns the URIs of all servers, in index order.
     *
     * @return e.g. {@code [redis://127.0.0.1:41234, ...]}
     */
    public List<String> uris() {
        return servers.stream().map(RedisServer::uri).collect(Collectors.toUnmodifiableList());
    }

    /** Runs FLUSHALL on every server that is running and not paused. */
    public void flushAll() {
        for (RedisServer server : servers) {
            if (server.isRunning() && !server.isPaused()) {
                server.flushAll();
            }
        }
    }

    /** Undoes fault injection: resumes every paused server and restarts every killed one. */
    public void healAll() {
        for (RedisServer server : servers) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isRunning()) {
                server.restart();
            }
        }
    }

    /**
     * Closes every server, even if some fail to close.
     *
     * @throws IllegalStateException carrying every failure as suppressed exceptions, if any
     */
    @Override
    public void close() {
        IllegalStateException failure = new IllegalStateException("Failed to close some redis-servers");
        GroupSupport.closeAll(servers, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    /**
     * Describes the group for logs and assertion messages.
     *
     * @return the servers' descriptions
     */
    @Override
    public String toString() {
        return "RedisNodes" + servers;
    }
}
