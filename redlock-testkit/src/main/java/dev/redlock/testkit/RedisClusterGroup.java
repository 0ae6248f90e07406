/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static dev.redlock.testkit.Await.check;
import static dev.redlock.testkit.GroupSupport.PROBE_TIMEOUT;
import static dev.redlock.testkit.GroupSupport.reachable;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A Redis Cluster for tests: masters with replicas, each a real {@code redis-server} process on a free loopback port
 * (see {@link RedisServer}), its cluster bus on the port 10000 above.
 *
 * <p>The nodes are started with {@code cluster-enabled yes}, a {@code nodes.conf} in their data directory and a short
 * {@code cluster-node-timeout} (1000 ms unless set), so a replica takes over a killed master within a few seconds. The
 * 16384 slots are spread evenly over the masters in start order ({@code CLUSTER ADDSLOTS}), the nodes are joined with
 * {@code CLUSTER MEET} and the replicas attached with {@code CLUSTER REPLICATE}, after which the cluster is ready:
 * every node reports {@code cluster_state:ok} and all agree on who owns every slot.
 *
 * <p>Optionally every node requires a password ({@code requirepass}, {@code masterauth}), and everything speaks TLS
 * only, with the given {@link TlsCertificates}: clients, replication and the cluster bus ({@code tls-cluster yes}).
 *
 * <p>Roles change as the cluster fails over; the topology queries ask the cluster itself ({@code CLUSTER NODES} of the
 * first reachable node, in start order). Thread-safe: queries may run from any thread; the methods that change the
 * topology ({@code kill...}, {@code moveSlot}, {@code restart...}, {@code close}) run one at a time.
 */
public final class RedisClusterGroup implements AutoCloseable {

    /** The number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterGroup.class);
    private static final String HOST = "127.0.0.1";
    /** Where Redis puts the cluster bus by default, and the only place Redis 6.2 can put it. */
    private static final int BUS_PORT_OFFSET = 10000;

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration MOVE_TIMEOUT = Duration.ofSeconds(10);
    private static final int MIGRATE_BATCH = 100;
    private static final int MIGRATE_TIMEOUT_MILLIS = 5000;

    /** The masters as started first, then the replicas of master 0, of master 1, ...; roles change with failovers. */
    private final List<RedisServer> nodes;
    /** Node id of every node, which stays the same across restarts (it is kept in nodes.conf). */
    private final Map<RedisServer, String> ids = new ConcurrentHashMap<>();

    private final String password;
    private final TlsCertificates tls;
    private boolean closed; // guarded by this

    private RedisClusterGroup(List<RedisServer> nodes, String password, TlsCertificates tls) {
        this.nodes = List.copyOf(nodes);
        this.password = password;
        this.tls = tls;
    }

    /**
     * Starts a cluster of {@code masters} masters with {@code replicasPerMaster} replicas each, no password and no
     * TLS, and waits (at most 30 s) until it is ready: every node reports {@code cluster_state:ok}, all agree on the
     * slots and the replicas are in sync. Blocks the calling thread.
     *
     * @param masters number of masters, at least 3 (what Redis Cluster needs to fail over)
     * @param replicasPerMaster number of replicas of each master, at least 0
     * @return the running cluster; the caller must close it
     * @throws IllegalArgumentException if an argument is out of range
     * @throws IllegalStateException if a node cannot be started or the cluster is not ready in time (every process
     *     started is stopped before this is thrown)
     */
    public static RedisClusterGroup start(int masters, int replicasPerMaster) {
        return builder().masters(masters).replicasPerMaster(replicasPerMaster).start();
    }

    /**
     * Returns a builder for a cluster with a password, TLS or another node timeout.
     *
     * @return a builder for 3 masters with 1 replica each
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a {@link RedisClusterGroup}. Not thread-safe. */
    public static final class Builder {
        private int masters = 3;
        private int replicasPerMaster = 1;
        private String password;
        private TlsCertificates tls;
        private Duration nodeTimeout = Duration.ofMillis(1000);

        private Builder() {}

        /**
         * Sets the number of masters.
         *
         * @param masters at least 3 (default 3)
         * @return this builder
         * @throws IllegalArgumentException if {@code masters < 3}
         */
        public Builder masters(int masters) {
            if (masters < 3) {
                throw new IllegalArgumentException("masters must be at least 3, got " + masters);
            }
            this.masters = masters;
            return this;
        }

        /**
         * Sets the number of replicas of each master.
         *
         * @param replicasPerMaster at least 0 (default 1)
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder replicasPerMaster(int replicasPerMaster) {
            if (replicasPerMaster < 0) {
                throw new IllegalArgumentException("replicasPerMaster must be at least 0, got " + replicasPerMaster);
            }
            this.replicasPerMaster = replicasPerMaster;
            return this;
        }

        /**
         * Makes every node require a password ({@code requirepass}, {@code masterauth}); the kit's own connections
         * ({@link RedisServer#client()}) and slot migrations send it.
         *
         * @param password printable ASCII without spaces, quotes or backslashes; null for none (the default)
         * @return this builder
         * @throws IllegalArgumentException if the password has other characters
         */
        public Builder password(String password) {
            this.password = GroupSupport.checkPassword(password, "password");
            return this;
        }

        /**
         * Makes every node speak TLS only with these certificates: clients (who need not present a certificate),
         * replication and the cluster bus, on which the nodes authenticate each other with the client certificate.
         *
         * @param tls the certificates; null for plain TCP (the default)
         * @return this builder
         */
        public Builder tls(TlsCertificates tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Sets {@code cluster-node-timeout}: how long a node must be unreachable before the others take it for
         * failing and a replica takes over.
         *
         * @param nodeTimeout at least 100 ms (default 1000 ms)
         * @return this builder
         * @throws IllegalArgumentException if shorter than 100 ms
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            if (nodeTimeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms, got " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
            return this;
        }

        /**
         * Starts the cluster and waits (at most 30 s) until it is ready. Blocks the calling thread.
         *
         * @return the running cluster; the caller must close it
         * @throws IllegalStateException if a node cannot be started or the cluster is not ready in time (every process
         *     started is stopped before this is thrown)
         */
        public RedisClusterGroup start() {
            return launch(this);
        }
    }

    private static RedisClusterGroup launch(Builder b) {
        List<String> args = new ArrayList<>(List.of(
                "--cluster-enabled",
                "yes",
                // Relative to the node's own data directory.
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                Long.toString(b.nodeTimeout.toMillis()),
                // Redis 7 waits 5 s for more replicas before a diskless full sync by default.
                "--repl-diskless-sync-delay",
                "0"));
        if (b.password != null) {
            args.addAll(List.of("--requirepass", b.password, "--masterauth", b.password));
        }
        TlsCertificates tls = b.tls;
        if (tls != null) {
            // The bus asks every connecting node for a certificate; the server's is not one for client authentication.
            args.addAll(List.of(
                    "--tls-replication",
                    "yes",
                    "--tls-cluster",
                    "yes",
                    "--tls-client-cert-file",
                    tls.clientCertificate().toString(),
                    "--tls-client-key-file",
                    tls.clientKey().toString()));
        }
        int count = b.masters * (1 + b.replicasPerMaster);
        List<Supplier<RedisServer>> starters = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            starters.add(() -> RedisServer.start(tls, false, List.of(), args, RedisClusterGroup::busPortFree));
        }
        List<RedisServer> started = GroupSupport.startAll(starters, "redis-cluster-group-start");
        RedisClusterGroup group = new RedisClusterGroup(started, b.password, tls);
        try {
            group.assemble(b.masters, b.replicasPerMaster);
            LOG.debug("Started {}", group);
            return group;
        } catch (RuntimeException e) {
            GroupSupport.closeAll(started, e);
            throw e;
        }
    }

    /** Whether the cluster bus of a node on {@code port} can bind: it must exist and be free. */
    private static boolean busPortFree(int port) {
        int bus = port + BUS_PORT_OFFSET;
        if (bus > 65535) {
            return false;
        }
        try (ServerSocket socket = new ServerSocket(bus, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private void assemble(int masterCount, int replicasPerMaster) {
        List<RedisServer> masters = nodes.subList(0, masterCount);
        for (int i = 0; i < nodes.size(); i++) {
            RedisServer node = nodes.get(i);
            try (Jedis jedis = node.client()) {
                ids.put(node, jedis.clusterMyId());
                // Distinct epochs from the start, as redis-cli does: no collisions to resolve later.
                jedis.clusterSetConfigEpoch(i + 1L);
            }
        }
        for (int i = 0; i < masterCount; i++) {
            int from = i * SLOTS / masterCount;
            int to = (i + 1) * SLOTS / masterCount; // exclusive
            int[] slots = new int[to - from];
            Arrays.setAll(slots, k -> from + k);
            try (Jedis jedis = masters.get(i).client()) {
                // ADDSLOTS rather than ADDSLOTSRANGE, which Redis 6.2 lacks.
                jedis.clusterAddSlots(slots);
            }
        }
        try (Jedis jedis = nodes.get(0).client()) {
            for (RedisServer node : nodes.subList(1, nodes.size())) {
                jedis.clusterMeet(HOST, node.port());
            }
        }
        Set<String> all = new HashSet<>(ids.values());
        Await.until(STARTUP_TIMEOUT, "every cluster node knowing every other", () -> {
            for (RedisServer node : nodes) {
                Map<String, NodeEntry> view = view(node);
                check(view.keySet().equals(all), node + " knows " + view.keySet());
                for (NodeEntry e : view.values()) {
                    check(!e.flags.contains("handshake") && !e.flags.contains("noaddr"), node + " sees " + e);
                }
            }
            return null;
        });
        for (int i = 0; i < masterCount; i++) {
            for (int k = 0; k < replicasPerMaster; k++) {
                RedisServer replica = nodes.get(masterCount + i * replicasPerMaster + k);
                try (Jedis jedis = replica.client()) {
                    jedis.clusterReplicate(ids.get(masters.get(i)));
                }
            }
        }
        Await.until(STARTUP_TIMEOUT, "the cluster being ready", () -> {
            Map<String, NodeEntry> view = agreedView();
            for (int i = 0; i < masterCount; i++) {
                String masterId = ids.get(masters.get(i));
                for (int k = 0; k < replicasPerMaster; k++) {
                    RedisServer replica = nodes.get(masterCount + i * replicasPerMaster + k);
                    NodeEntry e = view.get(ids.get(replica));
                    check(e.flags.contains("slave") && masterId.equals(e.masterId), "cluster lists " + e);
                }
            }
            checkLinksUp(view);
            return null;
        });
    }

    /** Checks that every reachable replica of the view has its replication link up. */
    private void checkLinksUp(Map<String, NodeEntry> view) {
        for (NodeEntry e : view.values()) {
            RedisServer node = nodeWithId(e.id);
            if (e.flags.contains("slave") && node != null && reachable(node)) {
                String link = GroupSupport.info(node, "replication").get("master_link_status");
                check("up".equals(link), node + " has its master link " + link);
            }
        }
    }

    /**
     * Returns every node, the masters as started first, then the replicas of the first master, of the second, and so
     * on; roles change with failovers.
     *
     * @return an unmodifiable list
     */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /**
     * Returns the current masters that serve slots, as the first reachable node sees them, ordered by their first
     * slot; a failed master without slots is not among them.
     *
     * @return a new unmodifiable list
     * @throws IllegalStateException if no node answers
     */
    public List<RedisServer> masters() {
        return anyView().values().stream()
                .filter(e -> e.flags.contains("master") && !e.flags.contains("fail") && !e.slots.isEmpty())
                .sorted(Comparator.comparingInt(e -> e.slots.nextSetBit(0)))
                .map(e -> nodeWithIdOrFail(e.id))
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * Returns the replicas of a master, as the first reachable node sees them (a replica that failed is still listed).
     *
     * @param master a node of this cluster
     * @return a new unmodifiable list, in start order; empty if it has none or is not a master
     * @throws IllegalArgumentException if {@code master} is not a node of this cluster
     * @throws IllegalStateException if no node answers
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = nodeId(master);
        Map<String, NodeEntry> view = anyView();
        return nodes.stream()
                .filter(n -> {
                    NodeEntry e = view.get(ids.get(n));
                    return e != null && e.flags.contains("slave") && id.equals(e.masterId);
                })
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * Returns the master that serves a slot, as the first reachable node sees it.
     *
     * @param slot from 0 to 16383
     * @return the master
     * @throws IllegalArgumentException if the slot is out of range
     * @throws IllegalStateException if no node answers, or no node serves the slot
     */
    public RedisServer masterOfSlot(int slot) {
        checkSlot(slot);
        for (NodeEntry e : anyView().values()) {
            if (e.slots.get(slot)) {
                return nodeWithIdOrFail(e.id);
            }
        }
        throw new IllegalStateException("No node of " + this + " serves slot " + slot);
    }

    /**
     * Returns the master that serves a key's slot, as the first reachable node sees it.
     *
     * @param key the key (a hash tag {@code {...}} is honoured)
     * @return the master
     * @throws IllegalStateException if no node answers, or no node serves the slot
     */
    public RedisServer masterOfKey(String key) {
        return masterOfSlot(slotOf(key));
    }

    /**
     * Returns the hash slot of a key, as Redis Cluster computes it (CRC16 of the key or of its hash tag, modulo 16384).
     *
     * @param key the key
     * @return the slot, from 0 to 16383
     */
    public static int slotOf(String key) {
        return JedisClusterCRC16.getSlot(key);
    }

    /**
     * Returns a node's cluster node id, which stays the same across restarts.
     *
     * @param node a node of this cluster
     * @return the 40-character id
     * @throws IllegalArgumentException if {@code node} is not a node of this cluster
     */
    public String nodeId(RedisServer node) {
        String id = ids.get(Objects.requireNonNull(node, "node"));
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of " + this);
        }
        return id;
    }

    /**
     * Returns the addresses of every node, in start order, to give a cluster client as seeds.
     *
     * @return e.g. {@code [127.0.0.1:41234, 127.0.0.1:41236, ...]}
     */
    public List<String> seedAddresses() {
        return nodes.stream().map(n -> HOST + ":" + n.port()).collect(Collectors.toUnmodifiableList());
    }

    /**
     * Returns a URI naming every node as a seed, with the password if there is one; the scheme is
     * {@code rediss-cluster} when the cluster speaks TLS.
     *
     * @return e.g. {@code redis-cluster://127.0.0.1:41234,127.0.0.1:41236/}, or
     *     {@code redis-cluster://:secret@127.0.0.1:41234,127.0.0.1:41236/} with a password (percent-encoded)
     */
    public String seedUri() {
        return (tls != null ? "rediss-cluster://" : "redis-cluster://") + GroupSupport.userInfo(password)
                + String.join(",", seedAddresses()) + "/";
    }

    /**
     * Returns the nodes' password.
     *
     * @return the password, or null if they need none
     */
    public String password() {
        return password;
    }

    /**
     * Returns the certificates of a TLS cluster.
     *
     * @return the certificates, or null for plain TCP
     */
    public TlsCertificates tls() {
        return tls;
    }

    /**
     * Kills a master with SIGKILL and waits until one of its replicas has taken over its slots and the cluster is
     * ready again: every reachable node reports {@code cluster_state:ok} and all agree on the slots. The killed node
     * stays down (see {@link #restartAndAwaitRejoin}). Blocks the calling thread; with the default node timeout this
     * takes about 2 to 4 s.
     *
     * @param master a master that serves slots and has a running replica
     * @param timeout how long to wait for the takeover
     * @return the promoted replica
     * @throws IllegalArgumentException if {@code master} is not a node of this cluster, or not a master with slots
     * @throws IllegalStateException if the cluster is closed, the master has no running replica, or no replica takes
     *     over in time
     */
    public synchronized RedisServer killMasterAndAwaitFailover(RedisServer master, Duration timeout) {
        checkOpen();
        String masterId = nodeId(master);
        Map<String, NodeEntry> view = anyView();
        NodeEntry entry = view.get(masterId);
        if (entry == null || !entry.flags.contains("master") || entry.slots.isEmpty()) {
            throw new IllegalArgumentException(master + " is not a master that serves slots: " + entry);
        }
        List<RedisServer> candidates =
                replicasOf(master).stream().filter(GroupSupport::reachable).collect(Collectors.toList());
        if (candidates.isEmpty()) {
            throw new IllegalStateException(master + " has no running replica to take over");
        }
        BitSet slots = entry.slots;
        long start = System.nanoTime();
        master.kill();
        RedisServer promoted = Await.until(timeout, "a replica of " + master + " taking over its slots", () -> {
            Map<String, NodeEntry> agreed = agreedView();
            String owner = ownerOf(agreed, slots.nextSetBit(0));
            check(!masterId.equals(owner), "the killed master still owns its slots");
            RedisServer node = nodeWithIdOrFail(owner);
            check(candidates.contains(node), node + " owns the slots, not a replica of the killed master");
            check(agreed.get(owner).slots.equals(slots), "slots not all moved: " + agreed.get(owner));
            return node;
        });
        LOG.info(
                "Cluster: killed master {}, replica {} took over after {} ms",
                master.port(),
                promoted.port(),
                (System.nanoTime() - start) / 1_000_000);
        return promoted;
    }

    /**
     * Moves a slot to another master, as {@link #moveSlot(int, RedisServer, boolean, Duration)} does, waiting at most
     * 10 s.
     *
     * @param slot from 0 to 16383
     * @param to the master that is to serve the slot
     * @param withKeys whether the slot's keys move along (a resharding) or stay behind and are lost
     * @throws IllegalArgumentException if the slot is out of range, or {@code to} is not a master of this cluster
     * @throws IllegalStateException if the cluster is closed, a command fails, or the nodes do not agree in time
     */
    public void moveSlot(int slot, RedisServer to, boolean withKeys) {
        moveSlot(slot, to, withKeys, MOVE_TIMEOUT);
    }

    /**
     * Moves a slot to another master and waits until every reachable node agrees and reports
     * {@code cluster_state:ok}. Does nothing if {@code to} already serves it.
     *
     * <p>With keys, this is a resharding as {@code redis-cli --cluster reshard} does it: {@code CLUSTER SETSLOT
     * IMPORTING} on the target, {@code MIGRATING} on the owner, {@code MIGRATE ... REPLACE} of the slot's keys in
     * batches (a stale copy of a key on the target gives way to the owner's), then {@code SETSLOT NODE} on the target,
     * the owner and the other masters. If a command fails, the slot is set back to stable on both and stays with its
     * owner.
     *
     * <p>Without keys, the slot moves and its data does not: the target claims the slot ({@code SETSLOT NODE}, then
     * {@code CLUSTER BUMPEPOCH} so that its claim wins), the other masters but the owner are told, and the owner learns
     * it from the cluster bus, whereupon Redis deletes the keys it held in that slot. The target serves the slot empty.
     *
     * <p>Moving a master's last slot may turn it into a replica of the target (Redis does that to a master left
     * without slots). Blocks the calling thread.
     *
     * @param slot from 0 to 16383
     * @param to the master that is to serve the slot
     * @param withKeys whether the slot's keys move along
     * @param timeout how long to wait for the nodes to agree
     * @throws IllegalArgumentException if the slot is out of range, or {@code to} is not a master of this cluster
     * @throws IllegalStateException if the cluster is closed, a command fails, or the nodes do not agree in time
     */
    public synchronized void moveSlot(int slot, RedisServer to, boolean withKeys, Duration timeout) {
        checkOpen();
        checkSlot(slot);
        String toId = nodeId(to);
        Map<String, NodeEntry> view = anyView();
        NodeEntry target = view.get(toId);
        if (target == null || !target.flags.contains("master") || target.flags.contains("fail")) {
            throw new IllegalArgumentException(to + " is not a working master: " + target);
        }
        String fromId = ownerOf(view, slot);
        if (toId.equals(fromId)) {
            return;
        }
        RedisServer from = fromId == null ? null : nodeWithIdOrFail(fromId);
        try {
            if (withKeys && from != null) {
                migrateKeys(slot, from, fromId, to, toId);
                setSlotNode(to, slot, toId); // bumps the target's epoch, as it was importing
                setSlotNode(from, slot, toId);
            } else {
                setSlotNode(to, slot, toId);
                try (Jedis jedis = to.client()) {
                    jedis.clusterBumpEpoch();
                }
            }
            for (NodeEntry e : view.values()) {
                RedisServer other = nodeWithId(e.id);
                if (other != null
                        && other != to
                        && other != from
                        && e.flags.contains("master")
                        && !e.flags.contains("fail")
                        && reachable(other)) {
                    setSlotNode(other, slot, toId);
                }
            }
        } catch (JedisException e) {
            if (withKeys && from != null) {
                stabilize(slot, from, to, e);
            }
            throw new IllegalStateException("Cannot move slot " + slot + " to " + to, e);
        }
        try {
            awaitOwner(slot, to, toId, timeout);
        } catch (IllegalStateException notAgreed) {
            // On a loaded machine a node can keep an older claim (another configuration epoch) past the wait: claim the
            // slot again with a newer epoch on every reachable master, and wait once more.
            LOG.debug("slot {} not agreed on in {}; claiming it for {} again", slot, timeout, to);
            try {
                try (Jedis jedis = to.client()) {
                    jedis.clusterBumpEpoch();
                }
                for (NodeEntry e : anyView().values()) {
                    RedisServer other = nodeWithId(e.id);
                    if (other != null && e.flags.contains("master") && !e.flags.contains("fail") && reachable(other)) {
                        setSlotNode(other, slot, toId);
                    }
                }
            } catch (JedisException e) {
                notAgreed.addSuppressed(e);
                throw notAgreed;
            }
            awaitOwner(slot, to, toId, timeout);
        }
        LOG.debug("Moved slot {} from {} to {} {} its keys", slot, from, to, withKeys ? "with" : "without");
    }

    private void awaitOwner(int slot, RedisServer to, String toId, Duration timeout) {
        Await.until(timeout, "every node agreeing that " + to + " serves slot " + slot, () -> {
            Map<String, NodeEntry> agreed = agreedView();
            check(toId.equals(ownerOf(agreed, slot)), "slot " + slot + " is served by " + ownerOf(agreed, slot));
            return null;
        });
    }

    private void migrateKeys(int slot, RedisServer from, String fromId, RedisServer to, String toId) {
        try (Jedis target = to.client();
                Jedis source = from.client(Duration.ofMillis(MIGRATE_TIMEOUT_MILLIS * 2L))) {
            target.clusterSetSlotImporting(slot, fromId);
            source.clusterSetSlotMigrating(slot, toId);
            // REPLACE: the owner's keys are the slot's data. A copy the target holds of a slot it does not serve is
            // stale (left by an earlier fault), and without it MIGRATE stops at BUSYKEY with the slot half moved.
            MigrateParams params = MigrateParams.migrateParams().replace();
            if (password != null) {
                params.auth(password);
            }
            while (true) {
                List<String> keys = source.clusterGetKeysInSlot(slot, MIGRATE_BATCH);
                if (keys.isEmpty()) {
                    return;
                }
                source.migrate(HOST, to.port(), 0, MIGRATE_TIMEOUT_MILLIS, params, keys.toArray(new String[0]));
            }
        }
    }

    /**
     * A resharding failed: the slot goes back to stable on both ends (it stays with its owner), so that a failed move
     * leaves no slot half migrated, which would keep redirecting its clients and can keep the cluster from settling.
     */
    private static void stabilize(int slot, RedisServer from, RedisServer to, JedisException failure) {
        for (RedisServer node : List.of(to, from)) {
            try (Jedis jedis = node.client()) {
                jedis.clusterSetSlotStable(slot);
            } catch (JedisException e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static void setSlotNode(RedisServer node, int slot, String ownerId) {
        try (Jedis jedis = node.client()) {
            jedis.clusterSetSlotNode(slot, ownerId);
        }
    }

    /**
     * Restarts a node (killing it first if it runs) on the same port with the same node id ({@code nodes.conf}) and
     * waits until the cluster is ready again with the node back in it: it reports {@code cluster_state:ok}, agrees on
     * the slots and, if it comes back as a replica (as a master whose slots were taken over does), its link is up. Its
     * data is gone unless it was started with persistence. Blocks the calling thread.
     *
     * @param node a node of this cluster
     * @param timeout how long to wait
     * @throws IllegalArgumentException if {@code node} is not a node of this cluster
     * @throws IllegalStateException if the cluster is closed, the node cannot be restarted or the cluster is not ready
     *     in time
     */
    public synchronized void restartAndAwaitRejoin(RedisServer node, Duration timeout) {
        checkOpen();
        String id = nodeId(node);
        node.restart();
        Await.until(timeout, node + " rejoining the cluster", () -> {
            Map<String, NodeEntry> agreed = agreedView();
            NodeEntry e = agreed.get(id);
            check(e != null && !e.flags.contains("fail") && !e.flags.contains("pfail"), "cluster lists " + e);
            checkLinksUp(agreed);
            return null;
        });
    }

    /**
     * Waits until every reachable node reports {@code cluster_state:ok}, all agree on who serves every slot, and every
     * reachable replica has its link up. Blocks the calling thread.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException if the cluster is not ready in time
     */
    public void awaitReady(Duration timeout) {
        Await.until(timeout, "the cluster being ready", () -> {
            checkLinksUp(agreedView());
            return null;
        });
    }

    /**
     * Stops every node, even if some fail to stop. Idempotent. Data directories (with {@code nodes.conf}) are kept for
     * post-mortem inspection.
     *
     * @throws IllegalStateException carrying every failure as suppressed exceptions, if any
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        IllegalStateException failure = new IllegalStateException("Failed to stop some nodes of " + this);
        GroupSupport.closeAll(nodes, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    /**
     * Describes the cluster for logs and assertion messages.
     *
     * @return e.g. {@code RedisClusterGroup[RedisServer[127.0.0.1:41234, pid 1234, running], ...]}
     */
    @Override
    public String toString() {
        return "RedisClusterGroup" + nodes;
    }

    private synchronized void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in [0, " + (SLOTS - 1) + "], got " + slot);
        }
    }

    private RedisServer nodeWithId(String id) {
        for (Map.Entry<RedisServer, String> e : ids.entrySet()) {
            if (e.getValue().equals(id)) {
                return e.getKey();
            }
        }
        return null;
    }

    private RedisServer nodeWithIdOrFail(String id) {
        RedisServer node = nodeWithId(id);
        if (node == null) {
            throw new IllegalStateException("The cluster lists node " + id + ", which is not a node of " + this);
        }
        return node;
    }

    /** The cluster as the first reachable node (in start order) sees it. */
    private Map<String, NodeEntry> anyView() {
        RuntimeException last = null;
        for (RedisServer node : nodes) {
            if (reachable(node)) {
                try {
                    return view(node);
                } catch (JedisException e) {
                    last = e;
                }
            }
        }
        throw new IllegalStateException("No node of " + this + " answered", last);
    }

    /**
     * The view every reachable node shares, each reporting {@code cluster_state:ok} and every slot served, by the same
     * node in every view; throws {@link Await.NotYet} otherwise.
     */
    private Map<String, NodeEntry> agreedView() {
        Map<String, NodeEntry> first = null;
        String[] owners = null;
        RedisServer firstNode = null;
        for (RedisServer node : nodes) {
            if (!reachable(node)) {
                continue;
            }
            Map<String, String> info;
            Map<String, NodeEntry> view;
            try (Jedis jedis = node.client(PROBE_TIMEOUT)) {
                info = GroupSupport.parseInfo(jedis.clusterInfo());
                view = parseNodes(jedis.clusterNodes());
            }
            check("ok".equals(info.get("cluster_state")), node + " reports cluster_state:" + info.get("cluster_state"));
            String[] o = owners(view);
            for (int slot = 0; slot < SLOTS; slot++) {
                check(o[slot] != null, node + " sees nobody serving slot " + slot);
            }
            if (first == null) {
                first = view;
                owners = o;
                firstNode = node;
            } else {
                int differ = firstDifference(owners, o);
                check(
                        differ < 0,
                        node + " and " + firstNode + " disagree on slot " + differ + ": "
                                + (differ < 0 ? "" : o[differ]) + " vs " + (differ < 0 ? "" : owners[differ]));
            }
        }
        check(first != null, "no node is reachable");
        return first;
    }

    private static int firstDifference(String[] a, String[] b) {
        for (int i = 0; i < a.length; i++) {
            if (!Objects.equals(a[i], b[i])) {
                return i;
            }
        }
        return -1;
    }

    private static String[] owners(Map<String, NodeEntry> view) {
        String[] owners = new String[SLOTS];
        for (NodeEntry e : view.values()) {
            for (int s = e.slots.nextSetBit(0); s >= 0; s = e.slots.nextSetBit(s + 1)) {
                owners[s] = e.id;
            }
        }
        return owners;
    }

    private static String ownerOf(Map<String, NodeEntry> view, int slot) {
        for (NodeEntry e : view.values()) {
            if (e.slots.get(slot)) {
                return e.id;
            }
        }
        return null;
    }

    private static Map<String, NodeEntry> view(RedisServer node) {
        try (Jedis jedis = node.client(PROBE_TIMEOUT)) {
            return parseNodes(jedis.clusterNodes());
        }
    }

    /**
     * Parses CLUSTER NODES: {@code <id> <ip:port@cport[,hostname]> <flags> <master|-> <ping> <pong> <epoch> <link>
     * <slot>...}, where a slot is {@code n}, {@code a-b}, or {@code [n->-id]} / {@code [n-<-id]} for a migration.
     */
    static Map<String, NodeEntry> parseNodes(String text) {
        Map<String, NodeEntry> view = new LinkedHashMap<>();
        text.lines().filter(l -> !l.isBlank()).forEach(line -> {
            String[] f = line.trim().split(" ");
            if (f.length < 8) {
                throw new IllegalStateException("Unexpected CLUSTER NODES line: " + line);
            }
            String address = f[1];
            int at = address.indexOf('@');
            String hostPort = at < 0 ? address : address.substring(0, at);
            int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            BitSet slots = new BitSet(SLOTS);
            for (int i = 8; i < f.length; i++) {
                String s = f[i];
                if (s.startsWith("[")) {
                    continue; // a migration in progress, not ownership
                }
                int dash = s.indexOf('-');
                if (dash < 0) {
                    slots.set(Integer.parseInt(s));
                } else {
                    slots.set(Integer.parseInt(s.substring(0, dash)), Integer.parseInt(s.substring(dash + 1)) + 1);
                }
            }
            Set<String> flags = Set.of(f[2].split(","));
            view.put(f[0], new NodeEntry(f[0], port, flags, "-".equals(f[3]) ? null : f[3], slots));
        });
        return view;
    }

    /** One line of CLUSTER NODES. */
    record NodeEntry(String id, int port, Set<String> flags, String masterId, BitSet slots) {
        @Override
        public String toString() {
            return id.substring(0, Math.min(8, id.length())) + "@" + port + " " + flags
                    + (masterId == null ? "" : " of " + masterId.substring(0, Math.min(8, masterId.length())))
                    + (slots.isEmpty() ? "" : " " + slots.cardinality() + " slots");
        }
    }
}
