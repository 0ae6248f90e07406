/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds and runs a client's node connections: nodes given by URI, plain or TLS, share one non-blocking I/O loop;
 * the user's own transports each get a {@link TransportNodeClient} with its own I/O thread.
 */
public final class NodeClients implements AutoCloseable, Subscriptions.Source {

    private final List<NodeClient> nodes;
    private final NioLoop loop;
    private final RedlockConfig config;
    private final List<ReleaseSubscriber> subscribers = new ArrayList<>();
    /** Where each followed node's server is (Sentinel-managed nodes, cluster slots), by node name. */
    private final java.util.Map<String, MasterWatch> watches = new java.util.LinkedHashMap<>();
    /** The watches to start and close: one per Sentinel-managed node, one per cluster. */
    private final List<Object> watchers = new ArrayList<>();

    public NodeClients(RedlockConfig config, String threadPrefix, Quarantine quarantine) {
        long tickMillis = Math.max(1, config.perNodeTimeout().toMillis() / 4);
        this.config = config;
        this.loop = new NioLoop(threadPrefix + "io", tickMillis);
        List<NodeClient> list = new ArrayList<>();
        java.util.Map<List<NodeSpec>, List<NodeSpec>> clusters = new java.util.LinkedHashMap<>();
        for (NodeSpec spec : config.nodeSpecs()) {
            if (spec.isCluster()) {
                throw new IllegalStateException(
                        spec.name() + ": a Redis Cluster must be expanded into its nodes first");
            }
            if (spec.isClusterSlot()) {
                clusters.computeIfAbsent(spec.clusterSeeds(), k -> new ArrayList<>())
                        .add(spec);
            }
        }
        for (List<NodeSpec> slots : clusters.values()) {
            ClusterWatch watch = new ClusterWatch(
                    slots,
                    config,
                    threadPrefix + "cluster-"
                            + slots.get(0).clusterSeeds().get(0).name());
            watchers.add(watch);
            for (int i = 0; i < slots.size(); i++) {
                watches.put(slots.get(i).name(), watch.node(i));
            }
        }
        for (NodeSpec spec : config.nodeSpecs()) {
            if (spec.isClusterSlot()) {
                list.add(new NioNodeClient(spec, config, loop, quarantine, watches.get(spec.name())));
            } else if (spec.isSentinelManaged()) {
                SentinelWatch watch = new SentinelWatch(spec, config, threadPrefix + "sentinel-" + spec.name());
                watches.put(spec.name(), watch);
                watchers.add(watch);
                list.add(new NioNodeClient(spec, config, loop, quarantine, watch));
            } else if (spec.transport() == null) {
                list.add(new NioNodeClient(spec, config, loop, quarantine));
            } else {
                list.add(new TransportNodeClient(spec, config, threadPrefix + "node-" + spec.name(), quarantine));
            }
        }
        this.nodes = List.copyOf(list);
    }

    /**
     * How blocking callers wait for their rounds: over nodes given by URI, a caller that is alone reads its replies on
     * its own thread (see {@link NioLoop}); with the user's own transports only, it parks.
     */
    public Parking parking() {
        return nodes.stream().anyMatch(n -> n instanceof NioNodeClient) ? loop.drivingParking() : Parking.PLAIN;
    }

    /** Starts the I/O threads; nodes connect in the background. */
    public void start() {
        loop.start();
        for (Object watch : watchers) {
            if (watch instanceof ClusterWatch) {
                ((ClusterWatch) watch).start();
            } else {
                ((SentinelWatch) watch).start();
            }
        }
        for (NodeClient node : nodes) {
            if (node instanceof NioNodeClient) {
                ((NioNodeClient) node).start();
            } else {
                ((TransportNodeClient) node).start();
            }
        }
    }

    /**
     * Waits until every node given by URI has its first connection ready or failed, at most {@code max}: so a client's
     * first round does not race its own connection setup (a TLS handshake takes longer than a short per-node
     * timeout). A node that does not answer costs at most {@code max}.
     */
    public void awaitFirstConnections(java.time.Duration max) {
        List<java.util.concurrent.CompletableFuture<Void>> all = new ArrayList<>();
        for (NodeClient node : nodes) {
            if (node instanceof NioNodeClient) {
                all.add(((NioNodeClient) node).firstConnection());
            }
        }
        try {
            java.util.concurrent.CompletableFuture.allOf(all.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                    .get(max.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // Slow or failing nodes: the rounds report them.
        }
    }

    public List<NodeClient> nodes() {
        return nodes;
    }

    /**
     * Release notifications from every node given by URI, plain or TLS (one subscriber connection each, on the
     * shared loop, opened when the first key is subscribed); the user's transports have none, their waiters poll.
     * Call once, before {@link #start()}.
     *
     * @param onRelease called with a released key and the payload its release published (null: a node confirmed a
     *     subscription to the channel; both null: a node's connection went with subscriptions it had confirmed), on
     *     the I/O loop thread; must not block
     */
    @Override
    public Subscriptions listen(java.util.function.BiConsumer<String, String> onRelease) {
        for (NodeSpec spec : config.nodeSpecs()) {
            if (spec.transport() == null) {
                subscribers.add(new ReleaseSubscriber(spec, config, loop, onRelease, watches.get(spec.name())));
            }
        }
        return new Subscriptions() {
            @Override
            public void subscribe(String key) {
                for (ReleaseSubscriber s : subscribers) {
                    s.subscribe(key);
                }
            }

            @Override
            public void subscribe(String key, java.util.Set<String> nodes) {
                for (ReleaseSubscriber s : subscribers) {
                    if (nodes == null || nodes.contains(s.nodeName())) {
                        s.subscribe(key);
                    }
                }
            }

            @Override
            public void unsubscribe(String key) {
                for (ReleaseSubscriber s : subscribers) {
                    s.unsubscribe(key); // a node where the key was not subscribed has nothing to do
                }
            }

            @Override
            public int listening() {
                return NodeClients.this.listening();
            }

            @Override
            public int listening(java.util.Set<String> nodes) {
                return count(s -> s.listening() && (nodes == null || nodes.contains(s.nodeName())));
            }

            @Override
            public int confirmed(String channel) {
                return count(s -> s.confirmed(channel));
            }
        };
    }

    /** How many nodes' subscriber connections are up and subscribed (for tests). */
    public int listening() {
        return count(ReleaseSubscriber::listening);
    }

    /** How many nodes' subscribers say {@code yes}. */
    private int count(java.util.function.Predicate<ReleaseSubscriber> yes) {
        int n = 0;
        for (ReleaseSubscriber s : subscribers) {
            if (yes.test(s)) {
                n++;
            }
        }
        return n;
    }

    /** Closes the subscriber connections and stops the shared I/O loop; call after every node was closed. */
    @Override
    public void close() {
        for (ReleaseSubscriber s : subscribers) {
            s.close();
        }
        for (Object watch : watchers) {
            if (watch instanceof ClusterWatch) {
                ((ClusterWatch) watch).close();
            } else {
                ((SentinelWatch) watch).close();
            }
        }
        loop.stop(5_000);
    }
}
