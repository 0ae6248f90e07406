/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;

/** What the replicated topologies share: parallel starts, INFO parsing, URI encoding. */
final class GroupSupport {

    /** Timeout of the kit's own short-lived connections while it polls a topology. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private static final String HEX = "0123456789ABCDEF";

    private GroupSupport() {}

    /**
     * Runs every starter in parallel and returns the servers in the starters' order; if any fails, the servers that
     * did start are closed and the first failure is thrown (the others suppressed).
     */
    static List<RedisServer> startAll(List<Supplier<RedisServer>> starters, String threadName) {
        if (starters.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(starters.size(), r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<RedisServer>> futures = new ArrayList<>();
            for (Supplier<RedisServer> starter : starters) {
                futures.add(CompletableFuture.supplyAsync(starter, pool));
            }
            List<RedisServer> started = new ArrayList<>();
            RuntimeException failure = null;
            for (CompletableFuture<RedisServer> future : futures) {
                try {
                    started.add(future.join());
                } catch (CompletionException e) {
                    RuntimeException cause =
                            e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            if (failure != null) {
                closeAll(started, failure);
                throw failure;
            }
            return started;
        } finally {
            pool.shutdown();
        }
    }

    /** Closes every server, adding each failure to {@code collector} as a suppressed exception. */
    static void closeAll(List<RedisServer> servers, RuntimeException collector) {
        for (RedisServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                collector.addSuppressed(e);
            }
        }
    }

    /** Whether the kit can talk to the server now: running and not frozen. */
    static boolean reachable(RedisServer server) {
        return server.isRunning() && !server.isPaused();
    }

    /** One section of INFO as a map ({@code role -> master}); comment lines and blank lines are left out. */
    static Map<String, String> info(RedisServer server, String section) {
        try (Jedis jedis = server.client(PROBE_TIMEOUT)) {
            return parseInfo(jedis.info(section));
        }
    }

    /** Parses {@code key:value} lines, as INFO and CLUSTER INFO print them. */
    static Map<String, String> parseInfo(String text) {
        Map<String, String> map = new HashMap<>();
        text.lines().forEach(line -> {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                map.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        });
        return map;
    }

    /** Fails unless a password can go on a redis-server command line and in a configuration file as it is. */
    static String checkPassword(String password, String what) {
        if (password == null) {
            return null;
        }
        if (password.isEmpty()
                || !password.chars().allMatch(c -> c > ' ' && c < 127 && c != '"' && c != '\'' && c != '\\')) {
            throw new IllegalArgumentException(what + " must be non-empty printable ASCII without spaces, quotes or"
                    + " backslashes (it goes on a command line and in a configuration file as it is)");
        }
        return password;
    }

    /** The user info of a URI carrying only a password ({@code :secret@}), percent-encoded; empty without one. */
    static String userInfo(String password) {
        if (password == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(":");
        for (byte b : password.getBytes(UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(HEX.charAt((b >> 4) & 0xf)).append(HEX.charAt(b & 0xf));
            }
        }
        return out.append('@').toString();
    }
}
