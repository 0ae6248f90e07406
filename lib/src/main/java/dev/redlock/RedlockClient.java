package dev.redlock;

import dev.redlock.internal.JedisNodeClient;
import dev.redlock.internal.LockRef;
import dev.redlock.internal.NodeSpec;
import dev.redlock.internal.QuorumEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The entry point: owns one connection and one I/O thread per node, plus one scheduler thread, and hands out locks.
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
 * <p>Thread-safe: share one client across the application. Creating it starts the node I/O threads, which connect in
 * the background (a node that is down at start does not fail creation; it answers with errors until it is back).
 * {@link #close()} flushes queued releases, closes every connection and stops every thread the client started.
 * Clients given through {@link RedlockConfig.Builder#node(String, redis.clients.jedis.UnifiedJedis)} belong to the
 * caller and are not closed.
 */
public final class RedlockClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedlockClient.class);
    private static final AtomicInteger IDS = new AtomicInteger();

    private final RedlockConfig config;
    private final List<JedisNodeClient> nodes;
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
        List<JedisNodeClient> list = new ArrayList<>();
        for (NodeSpec spec : config.nodeSpecs()) {
            list.add(new JedisNodeClient(spec, config, prefix + "node-" + spec.name()));
        }
        this.nodes = List.copyOf(list);
        this.engine = new QuorumEngine(config, nodes, scheduler);
        for (JedisNodeClient node : nodes) {
            node.start();
        }
        LOG.debug("started Redlock client over {} node(s): {}", nodes.size(), config.nodeNames());
    }

    /**
     * Creates a client and starts its threads.
     *
     * @param config the configuration
     * @return a new client; close it when done
     */
    public static RedlockClient create(RedlockConfig config) {
        return new RedlockClient(Objects.requireNonNull(config, "config"));
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
     * @throws IllegalArgumentException if the name is empty
     */
    public QuorumLock redLock(String name) {
        return lock(name, QuorumPolicy.MAJORITY);
    }

    /**
     * Returns a MultiLock: granted only when every configured node grants.
     *
     * @param name the lock's name; the Redis key is {@code keyPrefix + "{" + name + "}"}
     * @return the lock
     * @throws IllegalArgumentException if the name is empty
     */
    public QuorumLock multiLock(String name) {
        return lock(name, QuorumPolicy.ALL);
    }

    /**
     * Returns a lock with the given quorum policy.
     *
     * @param name the lock's name
     * @param policy {@link QuorumPolicy#MAJORITY} (RedLock) or {@link QuorumPolicy#ALL} (MultiLock)
     * @return the lock
     * @throws IllegalArgumentException if the name is empty
     */
    public QuorumLock lock(String name, QuorumPolicy policy) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(policy, "policy");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name: a lock name must not be empty");
        }
        return new QuorumLock(this, engine, new LockRef(name, keyOf(name), policy));
    }

    /**
     * Returns the Redis key that holds lock {@code name} on every node.
     *
     * @param name the lock's name
     * @return {@code keyPrefix + "{" + name + "}"}
     */
    public String keyOf(String name) {
        return LockRef.keyOf(config.keyPrefix(), name);
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
     * Returns whether {@link #close()} was called.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        return closed.get();
    }

    ConcurrentHashMap<QuorumLock.HoldKey, QuorumLock.Hold> holds() {
        return holds;
    }

    /**
     * Closes the client: stops accepting new rounds, lets each node's I/O thread flush queued releases (bounded by a
     * short grace period), closes every connection and stops every thread the client started. Leases still held are
     * not released; their keys expire after their TTL. Idempotent; calls after the first return at once.
     * Acquisitions in progress on other threads fail with {@link IllegalStateException}.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        engine.close();
        scheduler.shutdownNow();
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
        return "RedlockClient{nodes=" + nodes + ", closed=" + closed.get() + '}';
    }
}
