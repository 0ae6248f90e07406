/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs a group of real redis-server processes for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisNodesExtension REDIS = new RedisNodesExtension(5);
 * }</pre>
 *
 * <p>The servers are started once per test class (before all) and closed after it (after all).
 * Before each test, every paused server is resumed, every killed one is restarted and all keys are
 * flushed, so faults injected by one test never leak into the next. {@code @Nested} classes reuse
 * the servers of their enclosing class. The static field may live in an abstract base class: each
 * concrete subclass then gets fresh servers, but such classes must not run concurrently.
 *
 * <p>With the system property {@value #TLS_PROPERTY} set to {@code true}, the servers speak only TLS, with
 * certificates made once per JVM ({@link #certificates()}), and {@link #uris()} are {@code rediss://} URIs: the same
 * tests then run over TLS.
 */
public final class RedisNodesExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {

    /** The system property that makes every extension's servers TLS-only. */
    public static final String TLS_PROPERTY = "redlock.test.tls";

    private static TlsCertificates shared; // guarded by the class

    private final int size;
    private final List<String> extraArgs;
    private volatile RedisNodes nodes;
    private String owner; // unique id of the class context that started the nodes; guarded by this

    /**
     * Creates an extension that will run {@code size} servers with default arguments.
     *
     * @param size number of servers, at least 1
     */
    public RedisNodesExtension(int size) {
        this(size, List.of());
    }

    /**
     * Creates an extension that will run {@code size} servers with extra redis-server arguments
     * (e.g. {@code List.of("--appendonly", "yes", "--appendfsync", "always")}).
     *
     * @param size number of servers, at least 1
     * @param extraArgs arguments appended to every server's command line
     */
    public RedisNodesExtension(int size, List<String> extraArgs) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, got " + size);
        }
        this.size = size;
        this.extraArgs = List.copyOf(extraArgs);
    }

    /**
     * Starts the servers, unless an enclosing class of a {@code @Nested} class already did.
     *
     * @param context the class-level extension context
     */
    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (nodes != null) {
            if (isWithin(context, owner)) {
                return;
            }
            throw new IllegalStateException("This RedisNodesExtension is already in use by " + owner
                    + "; test classes sharing one instance must not run concurrently");
        }
        TlsCertificates tls = certificates();
        nodes = tls == null ? RedisNodes.start(size, extraArgs) : RedisNodes.startTls(size, tls, extraArgs);
        owner = context.getUniqueId();
    }

    /**
     * Returns the certificates of the TLS servers when {@value #TLS_PROPERTY} is {@code true}, made on first use.
     *
     * @return the JVM's shared test certificates, or null when servers are plain
     */
    public static synchronized TlsCertificates certificates() {
        if (!Boolean.getBoolean(TLS_PROPERTY)) {
            return null;
        }
        if (shared == null) {
            shared = TlsCertificates.generate();
        }
        return shared;
    }

    /**
     * Heals every server (resume paused, restart killed) and flushes all keys.
     *
     * @param context the method-level extension context
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        RedisNodes current = nodes();
        current.healAll();
        current.flushAll();
    }

    /**
     * Closes the servers if this class started them.
     *
     * @param context the class-level extension context
     */
    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (nodes != null && context.getUniqueId().equals(owner)) {
            RedisNodes current = nodes;
            nodes = null;
            owner = null;
            current.close();
        }
    }

    /**
     * Returns the running group of servers.
     *
     * @return the nodes
     * @throws IllegalStateException if called outside a test class's lifecycle
     */
    public RedisNodes nodes() {
        RedisNodes current = nodes;
        if (current == null) {
            throw new IllegalStateException("Redis nodes are not running; is the extension registered"
                    + " with @RegisterExtension on a static field?");
        }
        return current;
    }

    /**
     * Returns one server of the group.
     *
     * @param i index, from 0 to {@code size - 1}
     * @return the server
     */
    public RedisServer node(int i) {
        return nodes().get(i);
    }

    /**
     * Returns the URIs of all servers, in index order.
     *
     * @return e.g. {@code [redis://127.0.0.1:41234, ...]}
     */
    public List<String> uris() {
        return nodes().uris();
    }

    private static boolean isWithin(ExtensionContext context, String ancestorId) {
        for (Optional<ExtensionContext> c = context.getParent();
                c.isPresent();
                c = c.get().getParent()) {
            if (c.get().getUniqueId().equals(ancestorId)) {
                return true;
            }
        }
        return false;
    }
}
