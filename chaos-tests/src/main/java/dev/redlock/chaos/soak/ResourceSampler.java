/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import dev.redlock.chaos.cluster.ChaosCluster;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Takes {@link SoakSample}s: the JVM's heap after a full collection and its live threads, and on every node that is
 * up its client connections, subscriptions and keys, over a connection of its own that is closed after each sample.
 */
public final class ResourceSampler {

    /** How long a node may take to answer before it counts as unreachable for this sample. */
    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);

    private final ChaosCluster cluster;
    private final String freshKeyPrefix;

    /**
     * Creates a sampler.
     *
     * @param cluster the nodes
     * @param freshKeyPrefix how the keys of fresh locks begin (their lock keys and queue keys)
     */
    public ResourceSampler(ChaosCluster cluster, String freshKeyPrefix) {
        this.cluster = cluster;
        this.freshKeyPrefix = freshKeyPrefix;
    }

    /**
     * Takes a sample. Runs a full garbage collection first ({@link System#gc()}) so that the heap figure is the live
     * set, not whatever garbage happens to be around.
     *
     * @param at when, since the start of the run
     * @param acquiredShared leases of shared locks so far
     * @param acquiredFresh leases of fresh locks so far
     * @return the sample
     */
    @SuppressWarnings("SystemGc") // the heap used after a full collection is what is measured
    public SoakSample sample(Duration at, long acquiredShared, long acquiredFresh) {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        List<SoakSample.NodeSample> nodes = new ArrayList<>();
        for (int i = 0; i < cluster.size(); i++) {
            nodes.add(node(i));
        }
        return new SoakSample(at, heap, threads, acquiredShared, acquiredFresh, nodes);
    }

    private SoakSample.NodeSample node(int i) {
        if (!cluster.isUp(i)) {
            return SoakSample.NodeSample.unreachable(i);
        }
        try (Jedis jedis = cluster.server(i).client(NODE_TIMEOUT)) {
            String clients = jedis.info("clients");
            String stats = jedis.info("stats");
            long keys = jedis.dbSize();
            int fresh = 0;
            int fences = 0;
            String cursor = ScanParams.SCAN_POINTER_START;
            ScanParams params = new ScanParams().count(1_000);
            do {
                ScanResult<String> page = jedis.scan(cursor, params);
                for (String key : page.getResult()) {
                    if (key.endsWith(":fence")) {
                        fences++;
                    } else if (key.startsWith(freshKeyPrefix)) {
                        fresh++;
                    }
                }
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return new SoakSample.NodeSample(
                    i,
                    true,
                    field(clients, "connected_clients") - 1, // this sampler's own connection
                    field(stats, "pubsub_channels"),
                    field(stats, "pubsub_patterns"),
                    keys,
                    fresh,
                    fences);
        } catch (JedisException e) {
            return SoakSample.NodeSample.unreachable(i);
        }
    }

    private static int field(String info, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + ":(\\d+)").matcher(info);
        if (!m.find()) {
            throw new IllegalStateException("INFO has no " + name + ": " + info);
        }
        return Integer.parseInt(m.group(1));
    }
}
