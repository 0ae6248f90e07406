/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.testkit.RedisNodesExtension;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Base of the tests that run against five real redis-server processes, started once per test class. Before each
 * test every node is healed (resumed, restarted) and flushed; clients made with {@link #client} are closed after it.
 */
abstract class RedisBackedTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private static final AtomicInteger KEYS = new AtomicInteger();
    private final List<RedlockClient> clients = new ArrayList<>();

    /**
     * Settings for tests: small delays so contended tests run fast; generous timeouts for a loaded CI box. Restart
     * quarantine is off because the nodes were started moments ago; its own tests turn it on.
     */
    RedlockConfig.Builder config() {
        return config(REDIS.uris());
    }

    /** The test settings over the given node URIs. */
    RedlockConfig.Builder config(List<String> uris) {
        RedlockConfig.Builder b = RedlockConfig.builder();
        dev.redlock.testkit.TlsCertificates tls = RedisNodesExtension.certificates();
        if (tls != null) {
            b.tlsTrustStore(tls.trustStore(), tls.storePassword()); // the same tests, over TLS
        }
        return b.nodes(uris)
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .leaseTime(Duration.ofSeconds(10))
                .retryDelay(Duration.ofMillis(5))
                .retryJitter(0.5)
                .waitBudget(Duration.ofSeconds(10));
    }

    RedlockClient client() {
        return client(b -> {});
    }

    RedlockClient client(Consumer<RedlockConfig.Builder> tweak) {
        return client(REDIS.uris(), tweak);
    }

    /** A client over the given node URIs with the test settings, closed after the test. */
    RedlockClient client(List<String> uris, Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder b = config(uris);
        tweak.accept(b);
        RedlockClient c = RedlockClient.create(b.build());
        clients.add(c);
        return c;
    }

    /** A lock name no other test uses. */
    static String uniqueName(String base) {
        return base + "-" + KEYS.incrementAndGet();
    }

    static RedisServer node(int i) {
        return REDIS.node(i);
    }

    /** How many running nodes hold {@code key} with exactly {@code value}. */
    static int nodesHolding(String key, String value) {
        int n = 0;
        for (int i = 0; i < 5; i++) {
            RedisServer s = node(i);
            if (s.isRunning() && !s.isPaused() && value.equals(s.get(key))) {
                n++;
            }
        }
        return n;
    }

    /** How many running nodes have {@code key} at all. */
    static int nodesWithKey(String key) {
        int n = 0;
        for (int i = 0; i < 5; i++) {
            RedisServer s = node(i);
            if (s.isRunning() && !s.isPaused() && s.exists(key)) {
                n++;
            }
        }
        return n;
    }

    /**
     * A thread for each task, for tests that run several blocking calls at once: shut down after the test. Not
     * CompletableFuture's default executor, which on JDK 25 is the common pool even where that pool has a single
     * thread (two cores), so that blocking tasks there run one after another; JDK 17 gave each task a new thread.
     */
    ExecutorService threads() {
        if (threads == null) {
            threads = Executors.newCachedThreadPool();
        }
        return threads;
    }

    private ExecutorService threads;

    @AfterEach
    void closeClients() {
        for (RedlockClient c : clients) {
            c.close();
        }
        clients.clear();
        if (threads != null) {
            threads.shutdownNow();
            threads = null;
        }
    }
}
