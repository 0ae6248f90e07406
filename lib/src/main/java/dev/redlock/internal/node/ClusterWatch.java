/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.RedlockConfig;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis Cluster as the quorum: which master owns each of the hash slots that are the cluster's nodes.
 *
 * <p>A cluster of N nodes ({@code ?nodes=N}, or one per master with slots when the client starts) is the owners of N
 * fixed slots, {@code (2k + 1) * 16384 / (2N)} for node {@code k}: the middle of the k-th of N equal ranges, which is
 * one slot per master in a cluster whose slots were spread evenly over N masters. The slots depend on N alone, so
 * every client that counts the cluster as the same N locks the same keys, whatever it saw of the cluster when it
 * started. Every key sent to node k starts with {@link #tagOf(int) a hash tag} of its slot, so it lives where the slot
 * lives.
 *
 * <p>One thread per cluster asks a master for {@code CLUSTER SLOTS} at start, once a second, and at once when a node
 * answers a command with a redirect ({@code MOVED}, {@code ASK}) or turns out a replica. When a slot's owner changes
 * (a failover, a slot moved by resharding), its node's connections drop the old server and reconnect to the new one.
 * Safety does not rest on following quickly:
 * <ul>
 *   <li>the new owner is another server process (another {@code run_id}), so restart protection keeps the node's
 *       votes out for a lease plus {@link MasterWatch#extraQuarantineNanos()}: a failover may have lost writes, and a
 *       slot that moved without its keys lost them all; a slot that moved with its keys costs the same quarantine,
 *       since nothing tells the two apart;</li>
 *   <li>that extra time covers the cluster's node timeout, the longest an old master cut off from the majority takes
 *       writes before it stops, and the staleness limit below;</li>
 *   <li>a vote counts only while the cluster named its server as the slot's owner within {@link #staleLimitNanos};
 *       a server that says it is a replica never votes; a command the server redirects is a failed vote.</li>
 * </ul>
 * Thread-safe; {@link #close()} stops the thread and closes its connection.
 */
public final class ClusterWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterWatch.class);
    /** A cluster has this many hash slots. */
    public static final int SLOTS = 16384;
    /** How often the cluster is asked without a reason to ask sooner. */
    static final long POLL_MILLIS = 1000;
    /** How long to wait before trying again after no server answered. */
    private static final long RETRY_MILLIS = 200;
    /** Redis's default {@code cluster-node-timeout}, used when the servers do not tell theirs. */
    static final long DEFAULT_NODE_TIMEOUT_MILLIS = 15_000;

    private final NodeSpec cluster;
    private final RedlockConfig config;
    private final List<NodeSpec> nodes;
    private final Thread thread;
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean stopped;
    private final CompletableFuture<Void> firstAnswer = new CompletableFuture<>();
    private final dev.redlock.Ticker ticker;
    private final long staleLimitNanos;
    private volatile long nodeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(DEFAULT_NODE_TIMEOUT_MILLIS);
    /** Whether the node timeout's refusal was logged (watch thread only). */
    private boolean nodeTimeoutWarned;
    /** Each node's owner as last named, by node index (null before any answer). */
    private final java.util.concurrent.atomic.AtomicReferenceArray<NodeSpec> owners;

    private final List<List<Runnable>> listeners = new ArrayList<>();
    /** When the cluster last answered, on the ticker. */
    private volatile long confirmedAtNanos = Long.MIN_VALUE;
    /** Why the last attempt to ask failed, or null after an answer. */
    private volatile String problem;
    /** The watch thread's connection, to whichever server answered last; volatile so close() can break a read. */
    private volatile BlockingConnection query;
    /** Masters named in the last answer, asked before the seeds (watch thread only). */
    private List<NodeSpec> known = List.of();

    /**
     * @param nodes the cluster's nodes ({@link NodeSpec#isClusterSlot()}, all of one cluster), as {@link #expand}
     *     made them
     * @param threadName the watch thread's name
     */
    public ClusterWatch(List<NodeSpec> nodes, RedlockConfig config, String threadName) {
        if (nodes.isEmpty() || !nodes.stream().allMatch(NodeSpec::isClusterSlot)) {
            throw new IllegalArgumentException("not the nodes of a Redis Cluster: " + nodes);
        }
        this.cluster = nodes.get(0);
        this.nodes = List.copyOf(nodes);
        this.config = config;
        this.ticker = config.ticker();
        // A poll, plus a server that does not answer its connect and read, plus a poll's slack.
        this.staleLimitNanos = TimeUnit.MILLISECONDS.toNanos(2 * POLL_MILLIS)
                + 2 * config.connectTimeout().toNanos();
        this.owners = new java.util.concurrent.atomic.AtomicReferenceArray<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            listeners.add(new CopyOnWriteArrayList<>());
        }
        this.thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
    }

    /** The watch of node {@code index} (in the order given to the constructor), for its connections. */
    MasterWatch node(int index) {
        return new Slot(index);
    }

    /** Starts asking the cluster, in the background. */
    public void start() {
        thread.start();
    }

    /** How long after the cluster last named a server as a slot's owner that server's votes still count. */
    public long staleLimitNanos() {
        return staleLimitNanos;
    }

    /** A redirect or a cluster error: the slot moved, is moving, or the cluster is down where the command went. */
    static boolean isRedirect(String errorMessage) {
        return errorMessage.startsWith("MOVED ")
                || errorMessage.startsWith("ASK ")
                || errorMessage.startsWith("TRYAGAIN")
                || errorMessage.startsWith("CLUSTERDOWN");
    }

    private final class Slot implements MasterWatch {
        private final int index;

        Slot(int index) {
            this.index = index;
        }

        @Override
        public NodeSpec current() {
            return owners.get(index);
        }

        @Override
        public CompletableFuture<Void> firstAnswer() {
            return firstAnswer;
        }

        @Override
        public void onChange(Runnable listener) {
            listeners.get(index).add(listener);
        }

        @Override
        public void askAgain() {
            ClusterWatch.this.askAgain();
        }

        @Override
        public long staleLimitNanos() {
            return staleLimitNanos;
        }

        @Override
        public long extraQuarantineNanos() {
            return staleLimitNanos + nodeTimeoutNanos;
        }

        @Override
        public String unconfirmed(NodeSpec target) {
            NodeSpec owner = owners.get(index);
            String where = target.host() + ":" + target.port();
            if (owner == null || !MasterWatch.sameAddress(owner, target)) {
                return "the cluster no longer names " + where + " as the owner of slot "
                        + nodes.get(index).slot();
            }
            long age = ticker.nanoTime() - confirmedAtNanos;
            if (confirmedAtNanos == Long.MIN_VALUE || age > staleLimitNanos) {
                return "the cluster did not confirm " + where + " as the owner of slot "
                        + nodes.get(index).slot()
                        + " in the last " + TimeUnit.NANOSECONDS.toMillis(staleLimitNanos) + " ms"
                        + (problem == null ? "" : " (" + problem + ")");
            }
            return null;
        }

        @Override
        public String noMasterYet() {
            String why = problem;
            return "the cluster has not named the owner of slot "
                    + nodes.get(index).slot() + " (node " + nodes.get(index).name() + ") yet"
                    + (why == null ? "" : ": " + why);
        }

        @Override
        public void start() {
            // The cluster's watch is started once, by whoever owns it.
        }

        @Override
        public void close() {
            // The cluster's watch is closed once, by whoever owns it.
        }
    }

    /** Asks the cluster again at once. */
    void askAgain() {
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    private void run() {
        long failures = 0;
        while (!stopped) {
            try {
                update(ask());
                failures = 0;
            } catch (RuntimeException e) {
                problem = e.getMessage();
                if (failures++ == 0) {
                    LOG.warn("{}: {}", cluster.name().replaceAll("/slot-\\d+$", ""), e.getMessage());
                }
            }
            firstAnswer.complete(null);
            try {
                wake.tryAcquire(problem == null ? POLL_MILLIS : RETRY_MILLIS, TimeUnit.MILLISECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopped = true;
            }
        }
        closeQuietly(query);
    }

    /** Asks the server that answered last, then the masters it named, then the seeds, until one answers. */
    private NodeSpec[] ask() {
        BlockingConnection c = query;
        if (c != null) {
            try {
                NodeSpec[] slots = slots(c, cluster);
                confirmedAtNanos = ticker.nanoTime();
                return slots;
            } catch (RuntimeException e) {
                closeQuietly(c);
                query = null;
            }
        }
        StringBuilder why = new StringBuilder();
        List<NodeSpec> candidates = new ArrayList<>(known);
        candidates.addAll(cluster.clusterSeeds());
        for (NodeSpec server : candidates) {
            if (stopped) {
                break;
            }
            try {
                c = open(server, config);
                query = c;
                NodeSpec[] slots = slots(c, cluster);
                confirmedAtNanos = ticker.nanoTime();
                readNodeTimeout(c);
                return slots;
            } catch (RuntimeException e) {
                closeQuietly(c);
                query = null;
                why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
            }
        }
        throw new IllegalStateException("no server of the cluster answered CLUSTER SLOTS (" + why + ")");
    }

    private void readNodeTimeout(BlockingConnection c) {
        try {
            String value = Commands.pairs(c.call("CONFIG", "GET", "cluster-node-timeout"))
                    .get("cluster-node-timeout");
            if (value != null) {
                nodeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(value.trim()));
            }
        } catch (RuntimeException e) {
            // CONFIG refused (an ACL, a managed service): keep Redis's default.
            if (!nodeTimeoutWarned) {
                nodeTimeoutWarned = true;
                LOG.warn(
                        "{}: cluster-node-timeout cannot be read ({}); assuming Redis's default, {} ms, in the wait"
                                + " after a failover. If the cluster's is longer, allow CONFIG GET cluster-node-timeout"
                                + " for the client's user",
                        cluster.name().replaceAll("/slot-\\d+$", ""),
                        e.getMessage(),
                        DEFAULT_NODE_TIMEOUT_MILLIS);
            }
        }
    }

    private void update(NodeSpec[] slots) {
        problem = null;
        Map<String, NodeSpec> masters = new LinkedHashMap<>();
        for (NodeSpec owner : slots) {
            if (owner != null) {
                masters.putIfAbsent(owner.host() + ":" + owner.port(), owner);
            }
        }
        known = List.copyOf(masters.values());
        for (int i = 0; i < nodes.size(); i++) {
            NodeSpec node = nodes.get(i);
            NodeSpec owner = slots[node.slot()];
            NodeSpec before = owners.get(i);
            if (owner == null) {
                continue; // the slot has no owner now (being moved, or the cluster lost it): keep the last one
            }
            if (before != null && MasterWatch.sameAddress(before, owner)) {
                continue;
            }
            owners.set(i, node.at(owner.host(), owner.port()));
            if (before == null) {
                LOG.debug("node {}: at {}:{}", node.name(), owner.host(), owner.port());
            } else {
                LOG.warn(
                        "node {}: the cluster names a new owner of slot {}, {}:{} (was {}:{}); reconnecting to it",
                        node.name(),
                        node.slot(),
                        owner.host(),
                        owner.port(),
                        before.host(),
                        before.port());
            }
            for (Runnable listener : listeners.get(i)) {
                try {
                    listener.run();
                } catch (RuntimeException e) {
                    LOG.error("node {}: a listener of owner changes failed", node.name(), e);
                }
            }
        }
    }

    /** Stops the watch thread and closes its connection; waits for the thread at most a second. */
    @Override
    public void close() {
        stopped = true;
        wake.release();
        closeQuietly(query);
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        firstAnswer.complete(null);
    }

    // --------------------------------------------------------------------------------------- one-shot questions

    /**
     * The server that owns a cluster node's slot, asked once in the caller's thread.
     *
     * @throws UncheckedIOException naming the node and why no server answered
     */
    static NodeSpec resolve(NodeSpec node, RedlockConfig config) {
        StringBuilder why = new StringBuilder();
        for (NodeSpec seed : node.clusterSeeds()) {
            try (BlockingConnection c = open(seed, config)) {
                NodeSpec owner = slots(c, node)[node.slot()];
                if (owner == null) {
                    throw new IllegalStateException("seed " + seed.name() + " names no owner of slot " + node.slot());
                }
                return node.at(owner.host(), owner.port());
            } catch (RuntimeException e) {
                why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
            }
        }
        throw new UncheckedIOException(
                node.name() + ": no seed named the owner of slot " + node.slot() + " (" + why + ")",
                new java.io.IOException(why.toString()));
    }

    /**
     * A Redis Cluster as written, as its nodes: N of them ({@code ?nodes=N}, or one per master that owns slots now),
     * node k the owner of slot {@code (2k + 1) * 16384 / (2N)}.
     *
     * @throws IllegalStateException if no seed answers, or fewer than 3 masters own slots, naming the cluster and why
     */
    public static List<NodeSpec> expand(NodeSpec cluster, RedlockConfig config) {
        if (!cluster.isCluster()) {
            throw new IllegalArgumentException(cluster.name() + " is not a Redis Cluster");
        }
        StringBuilder why = new StringBuilder();
        for (NodeSpec seed : cluster.clusterSeeds()) {
            try (BlockingConnection c = open(seed, config)) {
                NodeSpec[] owners = slots(c, cluster);
                java.util.Set<String> masters = new java.util.LinkedHashSet<>();
                for (NodeSpec owner : owners) {
                    if (owner != null) {
                        masters.add(owner.host().toLowerCase(Locale.ROOT) + ":" + owner.port());
                    }
                }
                if (masters.size() < 3) {
                    throw new IllegalArgumentException(cluster.name() + ": " + masters.size() + " master(s) own slots;"
                            + " a Redis Cluster as the quorum needs at least 3 (add masters, or give independent"
                            + " masters as redis:// nodes)");
                }
                int n = cluster.clusterNodes() > 0 ? cluster.clusterNodes() : masters.size();
                if (n > masters.size()) {
                    LOG.warn(
                            "{}: ?nodes={} exceeds the {} masters that own slots: some master holds the slots of"
                                    + " several nodes, and its failure costs each of their votes; lower the count or"
                                    + " add masters",
                            cluster.name(),
                            n,
                            masters.size());
                }
                if (!config.restartQuarantine()) {
                    LOG.warn(
                            "{}: restartQuarantine is off: a failover or a slot moved without its keys can grant a lock"
                                    + " twice; a cluster as the quorum is safe only with it on",
                            cluster.name());
                }
                if (config.nodesPerLock() > n) {
                    throw new IllegalArgumentException("nodesPerLock: must be 0 (every node) or 3 to the cluster's"
                            + " node count (" + n + " for " + cluster.name() + "), got " + config.nodesPerLock());
                }
                agreeOnNodeCount(cluster, owners, n, config);
                List<NodeSpec> nodes = new ArrayList<>(n);
                for (int k = 0; k < n; k++) {
                    int slot = slotOfNode(k, n);
                    nodes.add(cluster.slotNode(slot, "{" + tagOf(slot) + "}", n));
                }
                return nodes;
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (IllegalStateException e) {
                if (e.getMessage().contains("could not check the node count")) {
                    throw e;
                }
                why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
            } catch (RuntimeException e) {
                why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
            }
        }
        throw new IllegalStateException(cluster.name()
                + ": no seed gave the cluster's slots (CLUSTER SLOTS), so its masters are unknown (" + why + ")");
    }

    /** The slots of the node-count records: three, spread over the slot range as a 3-master cluster's nodes are. */
    private static final int[] COUNT_RECORD_SLOTS = {slotOfNode(0, 3), slotOfNode(1, 3), slotOfNode(2, 3)};

    /**
     * Every client of one cluster must count it as the same number of nodes: with another count it would lock other
     * slots, and two clients could each win a quorum of their own. The count is recorded in three places on the
     * cluster ({@code {tag}<keyPrefix>cluster:nodes} in three slots, usually on three masters, no expiry): each client
     * writes its count where none is ({@code SET NX}) and reads all three. It starts only if at least two records,
     * a majority, hold its own count and none holds another: two clients that both started read a common record, so
     * the second sees the first's count. One record lost in a failover, or one master out of reach, changes nothing.
     *
     * @throws IllegalArgumentException if a record holds another count
     * @throws IllegalStateException if fewer than two records could be read
     */
    private static void agreeOnNodeCount(NodeSpec cluster, NodeSpec[] owners, int n, RedlockConfig config) {
        // With nodesPerLock below the count, the record is "count/perLock": those clients place locks otherwise.
        int perLock = config.nodesPerLock(n);
        String count = perLock < n ? n + "/" + perLock : Integer.toString(n);
        int confirmed = 0;
        StringBuilder why = new StringBuilder();
        for (int slot : COUNT_RECORD_SLOTS) {
            String key = "{" + tagOf(slot) + "}" + config.keyPrefix() + "cluster:nodes";
            NodeSpec owner = owners[slot];
            String held;
            try {
                if (owner == null) {
                    throw new IllegalStateException("slot " + slot + " has no owner");
                }
                try (BlockingConnection c = open(owner, config)) {
                    c.call("SET", key, count, "NX");
                    held = Commands.text(c.call("GET", key));
                }
            } catch (RuntimeException e) {
                why.append(why.length() == 0 ? "" : "; ")
                        .append(key)
                        .append(": ")
                        .append(e.getMessage());
                continue;
            }
            if (held != null && !held.equals(count)) {
                boolean given = cluster.clusterNodes() > 0;
                String theirs = held.matches("[0-9]{1,2}(/[0-9]{1,2})?") ? held.replaceAll("/.*", "") : "N";
                String theirPerLock = held.matches("[0-9]{1,2}/[0-9]{1,2}") ? held.replaceAll(".*/", "") : "0";
                String advice = theirs.equals(Integer.toString(n))
                        ? "Set nodesPerLock to " + theirPerLock + " (0: every node)"
                        : given
                                ? "Change the URI's ?nodes=" + n + " to ?nodes=" + theirs
                                : "Add ?nodes=" + theirs + " to the URI";
                if (!theirs.equals(Integer.toString(n)) && !theirPerLock.equals("0")) {
                    advice += " and set nodesPerLock to " + theirPerLock;
                }
                throw new IllegalArgumentException(cluster.name() + ": other clients count this cluster as "
                        + (held.length() <= 6 ? describeCount(held) : "something else") + " (key " + key + "), this"
                        + " one as " + describeCount(count) + (given ? " (?nodes=" + n + ")" : " (one per master)")
                        + "; clients with different counts would lock different slots and could both hold a lock. "
                        + advice
                        + ", or, once no client with the old count runs, delete the keys *" + config.keyPrefix()
                        + "cluster:nodes (one in each of slots 2730, 8192 and 13653)");
            }
            confirmed++;
        }
        if (confirmed < 2) {
            throw new IllegalStateException(cluster.name() + ": could not check the node count " + n + " against"
                    + " other clients' (" + confirmed + " of the 3 records read, 2 needed: " + why + "); a client"
                    + " that counted the cluster otherwise could hold the same locks, so this one does not start."
                    + " Reach the masters of slots 2730, 8192 and 13653, and try again");
        }
    }

    /** A count record as a phrase: "5 nodes", or "10 nodes, 5 per lock". */
    private static String describeCount(String record) {
        int slash = record.indexOf('/');
        return slash < 0
                ? record + " nodes"
                : record.substring(0, slash) + " nodes, " + record.substring(slash + 1) + " per lock";
    }

    /** The slot of node {@code k} of a cluster counted as {@code n} nodes: the middle of the k-th of n equal ranges. */
    static int slotOfNode(int k, int n) {
        return (int) ((2L * k + 1) * SLOTS / (2L * n));
    }

    /**
     * The shortest string of lower-case letters and digits, first in that order, whose hash slot is {@code slot}: the
     * hash tag of the slot's node. Part of the wire format: every client must compute the same tag.
     */
    static String tagOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot " + slot + " is not in [0, " + SLOTS + ")");
        }
        String alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
        for (int length = 1; length <= 4; length++) {
            int combinations = (int) Math.pow(alphabet.length(), length);
            char[] chars = new char[length];
            for (int i = 0; i < combinations; i++) {
                int v = i;
                for (int p = length - 1; p >= 0; p--) {
                    chars[p] = alphabet.charAt(v % alphabet.length());
                    v /= alphabet.length();
                }
                String candidate = new String(chars);
                if (slotOf(candidate) == slot) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("no tag of at most 4 characters for slot " + slot);
    }

    /**
     * The hash slot of a key, as Redis Cluster computes it: CRC16 (XMODEM) of the key, or of its hash tag (what is
     * between the first '{' and the next '}', if not empty), modulo 16384. Written here because the lock library
     * needs nothing else of a cluster client; only setup and tests call it.
     */
    static int slotOf(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        int crc = 0;
        for (int i = start; i < end; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int b = 0; b < 8; b++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc % SLOTS;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static BlockingConnection open(NodeSpec server, RedlockConfig config) {
        return BlockingConnection.open(server, config, config.connectTimeout());
    }

    /**
     * Each slot's master, from {@code CLUSTER SLOTS}, as plain specs with the cluster's credentials and TLS.
     *
     * @throws IllegalStateException if the server refuses or answers something else than slot ranges
     */
    private static NodeSpec[] slots(BlockingConnection c, NodeSpec cluster) {
        Object reply;
        try {
            reply = c.call("CLUSTER", "SLOTS");
        } catch (RedisErrorReply e) {
            throw new IllegalStateException(
                    c.name() + " refused CLUSTER SLOTS: " + e.getMessage()
                            + (e.getMessage().contains("cluster support disabled")
                                    ? " (it is not part of a Redis Cluster)"
                                    : ""),
                    e);
        }
        if (!(reply instanceof List) || ((List<?>) reply).isEmpty()) {
            throw new IllegalStateException(c.name() + " answered CLUSTER SLOTS with no slot ranges");
        }
        NodeSpec[] owners = new NodeSpec[SLOTS];
        Map<String, NodeSpec> specs = new java.util.HashMap<>();
        for (Object range : (List<?>) reply) {
            if (!(range instanceof List) || ((List<?>) range).size() < 3) {
                throw new IllegalStateException(c.name() + " answered CLUSTER SLOTS with something else than ranges");
            }
            List<?> r = (List<?>) range;
            List<?> master = (List<?>) r.get(2);
            String host = Commands.text(master.get(0));
            if (host == null || host.isEmpty() || host.equals("?")) {
                host = c.host(); // the server does not know its own address: it is the one asked
            }
            if (host.indexOf(':') >= 0 && !host.startsWith("[")) {
                host = "[" + host + "]";
            }
            int port = ((Long) master.get(1)).intValue();
            String address = host + ":" + port;
            String h = host;
            NodeSpec spec = specs.computeIfAbsent(address, a -> cluster.seedAt(h, port));
            int from = ((Long) r.get(0)).intValue();
            int to = ((Long) r.get(1)).intValue();
            if (from < 0 || to >= SLOTS || from > to) {
                throw new IllegalStateException(c.name() + " answered CLUSTER SLOTS with a range outside the slots");
            }
            java.util.Arrays.fill(owners, from, to + 1, spec);
        }
        return owners;
    }

    private static void closeQuietly(BlockingConnection c) {
        if (c != null) {
            c.close();
        }
    }
}
