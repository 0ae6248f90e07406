/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static dev.redlock.testkit.Await.check;
import static dev.redlock.testkit.GroupSupport.PROBE_TIMEOUT;
import static dev.redlock.testkit.GroupSupport.info;
import static dev.redlock.testkit.GroupSupport.reachable;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Sentinel-managed master for tests: one master, its replicas ({@code --replicaof}) and the Sentinels that watch it,
 * each a real {@code redis-server} process on a free loopback port (see {@link RedisServer}).
 *
 * <p>Every Sentinel has its own configuration file, which it rewrites as the topology changes, in a directory under
 * {@code target/redis-data}; it binds and announces {@code 127.0.0.1}. The timings are short: a master is down for the
 * Sentinels after {@code down-after-milliseconds} (1000 ms unless set), and a failover is abandoned after
 * {@code failover-timeout} (3000 ms unless set), so a failover after a master is killed completes in a few seconds.
 *
 * <p>Optionally the data nodes require a password ({@code requirepass} and {@code masterauth}, given to the Sentinels
 * with {@code sentinel auth-pass}), the Sentinels require one of their own, and everything speaks TLS only, with the
 * given {@link TlsCertificates} (replication and the Sentinels' links too, {@code tls-replication yes}).
 *
 * <p>The data nodes keep their identity across failovers: {@link #master()} asks the Sentinels which of them is the
 * master now. Thread-safe: queries may run from any thread; the methods that change the topology ({@code kill...},
 * {@code failover}, {@code restart...}, {@code close}) run one at a time.
 */
public final class RedisSentinelGroup implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisSentinelGroup.class);
    private static final String HOST = "127.0.0.1";
    /** What {@code sentinel monitor} and a configuration file take without quoting. */
    private static final Pattern MASTER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    /** How long a new group may take until every Sentinel knows the master, every replica and every other Sentinel. */
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

    private final String masterName;
    /** The master as started first, then the replicas; their roles change with failovers. */
    private final List<RedisServer> dataNodes;

    private final List<RedisServer> sentinels;
    private final String password;
    private final TlsCertificates tls;
    private final Path configDir;
    private boolean closed; // guarded by this

    private RedisSentinelGroup(
            String masterName,
            List<RedisServer> dataNodes,
            List<RedisServer> sentinels,
            String password,
            TlsCertificates tls,
            Path configDir) {
        this.masterName = masterName;
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
        this.password = password;
        this.tls = tls;
        this.configDir = configDir;
    }

    /**
     * Starts a master, {@code replicas} replicas and {@code sentinels} Sentinels with a majority quorum, no password
     * and no TLS, and waits (at most 30 s) until every Sentinel knows the master, every replica (in sync) and every
     * other Sentinel. Blocks the calling thread.
     *
     * @param masterName the name the Sentinels monitor the master under: 1 to 128 ASCII letters, digits, '.', '_', '-'
     * @param replicas number of replicas, at least 1 (a failover needs one)
     * @param sentinels number of Sentinels, at least 1
     * @return the running group; the caller must close it
     * @throws IllegalArgumentException if an argument is out of range
     * @throws IllegalStateException if a process cannot be started or the group does not come together in time (every
     *     process started is stopped before this is thrown)
     */
    public static RedisSentinelGroup start(String masterName, int replicas, int sentinels) {
        return builder(masterName).replicas(replicas).sentinels(sentinels).start();
    }

    /**
     * Returns a builder for a group with a password, TLS, another quorum or other timings.
     *
     * @param masterName the name the Sentinels monitor the master under: 1 to 128 ASCII letters, digits, '.', '_', '-'
     * @return a builder with 2 replicas, 3 Sentinels and a majority quorum
     * @throws IllegalArgumentException if the name is not allowed
     */
    public static Builder builder(String masterName) {
        return new Builder(masterName);
    }

    /** Settings of a {@link RedisSentinelGroup}. Not thread-safe. */
    public static final class Builder {
        private final String masterName;
        private int replicas = 2;
        private int sentinels = 3;
        private int quorum;
        private String password;
        private String sentinelPassword;
        private TlsCertificates tls;
        private Duration downAfter = Duration.ofMillis(1000);
        private Duration failoverTimeout = Duration.ofMillis(3000);

        private Builder(String masterName) {
            Objects.requireNonNull(masterName, "masterName");
            if (!MASTER_NAME.matcher(masterName).matches()) {
                throw new IllegalArgumentException("master name must be 1 to 128 ASCII letters, digits, '.', '_' or"
                        + " '-', got '" + masterName + "'");
            }
            this.masterName = masterName;
        }

        /**
         * Sets the number of replicas.
         *
         * @param replicas at least 1 (default 2)
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas < 1}
         */
        public Builder replicas(int replicas) {
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas must be at least 1, got " + replicas);
            }
            this.replicas = replicas;
            return this;
        }

        /**
         * Sets the number of Sentinels.
         *
         * @param sentinels at least 1 (default 3)
         * @return this builder
         * @throws IllegalArgumentException if {@code sentinels < 1}
         */
        public Builder sentinels(int sentinels) {
            if (sentinels < 1) {
                throw new IllegalArgumentException("sentinels must be at least 1, got " + sentinels);
            }
            this.sentinels = sentinels;
            return this;
        }

        /**
         * Sets how many Sentinels must agree that the master is down before a failover starts (a failover also needs
         * the votes of a majority of the Sentinels, whatever the quorum).
         *
         * @param quorum from 1 to the number of Sentinels (default: a majority of them)
         * @return this builder
         * @throws IllegalArgumentException if {@code quorum < 1}
         */
        public Builder quorum(int quorum) {
            if (quorum < 1) {
                throw new IllegalArgumentException("quorum must be at least 1, got " + quorum);
            }
            this.quorum = quorum;
            return this;
        }

        /**
         * Makes the data nodes require a password ({@code requirepass}, {@code masterauth}); the Sentinels get it with
         * {@code sentinel auth-pass}, and the kit's own connections ({@link RedisServer#client()}) send it.
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
         * Makes the Sentinels themselves require a password ({@code requirepass} in Sentinel mode; they use it with
         * each other as well).
         *
         * @param password printable ASCII without spaces, quotes or backslashes; null for none (the default)
         * @return this builder
         * @throws IllegalArgumentException if the password has other characters
         */
        public Builder sentinelPassword(String password) {
            this.sentinelPassword = GroupSupport.checkPassword(password, "sentinel password");
            return this;
        }

        /**
         * Makes every process speak TLS only with these certificates, replication and the Sentinels' own links
         * included ({@code tls-replication yes}); clients need not present a certificate.
         *
         * @param tls the certificates; null for plain TCP (the default)
         * @return this builder
         */
        public Builder tls(TlsCertificates tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Sets the Sentinels' {@code down-after-milliseconds}: how long a node must fail to answer before a Sentinel
         * takes it for down.
         *
         * @param downAfter at least 100 ms (default 1000 ms)
         * @return this builder
         * @throws IllegalArgumentException if shorter than 100 ms
         */
        public Builder downAfter(Duration downAfter) {
            if (downAfter.toMillis() < 100) {
                throw new IllegalArgumentException("downAfter must be at least 100 ms, got " + downAfter);
            }
            this.downAfter = downAfter;
            return this;
        }

        /**
         * Sets the Sentinels' {@code failover-timeout}: how long a failover may take before it is abandoned (twice that
         * before the same Sentinel tries again), and how long an election may take.
         *
         * @param failoverTimeout at least 1000 ms (default 3000 ms)
         * @return this builder
         * @throws IllegalArgumentException if shorter than 1000 ms
         */
        public Builder failoverTimeout(Duration failoverTimeout) {
            if (failoverTimeout.toMillis() < 1000) {
                throw new IllegalArgumentException("failoverTimeout must be at least 1000 ms, got " + failoverTimeout);
            }
            this.failoverTimeout = failoverTimeout;
            return this;
        }

        /**
         * Starts the group and waits (at most 30 s) until every Sentinel knows the master, every replica (in sync)
         * and every other Sentinel. Blocks the calling thread.
         *
         * @return the running group; the caller must close it
         * @throws IllegalArgumentException if the quorum exceeds the number of Sentinels
         * @throws IllegalStateException if a process cannot be started or the group does not come together in time
         *     (every process started is stopped before this is thrown)
         */
        public RedisSentinelGroup start() {
            if (quorum > sentinels) {
                throw new IllegalArgumentException(
                        "quorum " + quorum + " is more than the number of sentinels, " + sentinels);
            }
            return launch(this);
        }
    }

    private static RedisSentinelGroup launch(Builder b) {
        TlsCertificates tls = b.tls;
        List<String> dataArgs = new ArrayList<>(List.of(
                // Redis 7 waits 5 s for more replicas before a diskless full sync by default.
                "--repl-diskless-sync-delay", "0"));
        if (b.password != null) {
            dataArgs.addAll(List.of("--requirepass", b.password, "--masterauth", b.password));
        }
        if (tls != null) {
            dataArgs.addAll(List.of("--tls-replication", "yes"));
        }
        List<RedisServer> data = new ArrayList<>();
        List<RedisServer> sentinelServers = new ArrayList<>();
        try {
            RedisServer master = startDataNode(tls, dataArgs);
            data.add(master);
            List<String> replicaArgs = new ArrayList<>(dataArgs);
            replicaArgs.addAll(List.of("--replicaof", HOST, Integer.toString(master.port())));
            List<Supplier<RedisServer>> replicaStarters = new ArrayList<>();
            for (int i = 0; i < b.replicas; i++) {
                replicaStarters.add(() -> startDataNode(tls, replicaArgs));
            }
            data.addAll(GroupSupport.startAll(replicaStarters, "redis-sentinel-group-start"));

            Path configDir = Files.createTempDirectory(
                    Files.createDirectories(Path.of("target", "redis-data").toAbsolutePath()),
                    "sentinel-" + b.masterName + "-");
            int quorum = b.quorum > 0 ? b.quorum : b.sentinels / 2 + 1;
            List<String> sentinelArgs = new ArrayList<>();
            if (b.sentinelPassword != null) {
                sentinelArgs.addAll(List.of("--requirepass", b.sentinelPassword));
            }
            if (tls != null) {
                // Sentinels connect to the data nodes and to each other with TLS when tls-replication is on.
                sentinelArgs.addAll(List.of("--tls-replication", "yes"));
            }
            List<Supplier<RedisServer>> sentinelStarters = new ArrayList<>();
            for (int i = 0; i < b.sentinels; i++) {
                Path config = configDir.resolve("sentinel-" + i + ".conf");
                Files.write(config, sentinelConfig(b, master.port(), quorum), UTF_8);
                sentinelStarters.add(() -> RedisServer.start(
                        tls, false, List.of(config.toString(), "--sentinel"), sentinelArgs, port -> true));
            }
            sentinelServers.addAll(GroupSupport.startAll(sentinelStarters, "redis-sentinel-group-start"));
            RedisSentinelGroup group =
                    new RedisSentinelGroup(b.masterName, data, sentinelServers, b.password, tls, configDir);
            group.awaitAssembled(b.replicas, STARTUP_TIMEOUT);
            LOG.debug("Started {}", group);
            return group;
        } catch (IOException e) {
            UncheckedIOException failure = new UncheckedIOException(
                    "Cannot write the Sentinel configuration files under target/redis-data", e);
            stopAll(sentinelServers, data, failure);
            throw failure;
        } catch (RuntimeException e) {
            stopAll(sentinelServers, data, e);
            throw e;
        }
    }

    private static RedisServer startDataNode(TlsCertificates tls, List<String> args) {
        return tls == null ? RedisServer.start(args) : RedisServer.startTls(tls, false, args);
    }

    private static List<String> sentinelConfig(Builder b, int masterPort, int quorum) {
        String name = b.masterName;
        List<String> lines = new ArrayList<>(List.of(
                "sentinel announce-ip " + HOST,
                "sentinel monitor " + name + " " + HOST + " " + masterPort + " " + quorum,
                "sentinel down-after-milliseconds " + name + " " + b.downAfter.toMillis(),
                "sentinel failover-timeout " + name + " " + b.failoverTimeout.toMillis(),
                // Reconfigure every replica at once: the failover ends sooner.
                "sentinel parallel-syncs " + name + " " + b.replicas));
        if (b.password != null) {
            lines.add("sentinel auth-pass " + name + " " + b.password);
        }
        return lines;
    }

    private static void stopAll(List<RedisServer> sentinels, List<RedisServer> data, RuntimeException collector) {
        GroupSupport.closeAll(sentinels, collector);
        GroupSupport.closeAll(data, collector);
    }

    /** Waits until every Sentinel knows the master, the replicas (in sync) and the other Sentinels. */
    private void awaitAssembled(int replicas, Duration timeout) {
        RedisServer master = dataNodes.get(0);
        String masterAddress = HOST + ":" + master.port();
        Await.until(timeout, "the Sentinels of " + masterName + " knowing the whole group", () -> {
            for (RedisServer sentinel : sentinels) {
                try (Jedis jedis = sentinel.client(PROBE_TIMEOUT)) {
                    String seen = address(jedis.sentinelGetMasterAddrByName(masterName));
                    check(masterAddress.equals(seen), sentinel + " reports master " + seen);
                    long goodReplicas = jedis.sentinelReplicas(masterName).stream()
                            .filter(r -> "slave".equals(r.get("flags")) && "ok".equals(r.get("master-link-status")))
                            .count();
                    check(goodReplicas == replicas, sentinel + " knows " + goodReplicas + " healthy replicas");
                    int others = jedis.sentinelSentinels(masterName).size();
                    check(others == sentinels.size() - 1, sentinel + " knows " + others + " other sentinels");
                }
            }
            for (RedisServer replica : dataNodes.subList(1, dataNodes.size())) {
                Map<String, String> r = info(replica, "replication");
                check("up".equals(r.get("master_link_status")), replica + " has not synchronised yet");
            }
            return null;
        });
    }

    /**
     * Returns the name the Sentinels monitor the master under.
     *
     * @return the master name
     */
    public String masterName() {
        return masterName;
    }

    /**
     * Returns the current master as the Sentinels see it: the data node at the address that the first reachable
     * Sentinel (running, not paused, in start order) gives for {@code SENTINEL GET-MASTER-ADDR-BY-NAME}. During a
     * failover Sentinels may disagree; {@link #killMasterAndAwaitFailover} and {@link #failover} wait until they agree.
     *
     * @return the master
     * @throws IllegalStateException if no Sentinel answers, or one names an address that is not a data node here
     */
    public RedisServer master() {
        RuntimeException last = null;
        for (RedisServer sentinel : sentinels) {
            if (!reachable(sentinel)) {
                continue;
            }
            try (Jedis jedis = sentinel.client(PROBE_TIMEOUT)) {
                return dataNodeAt(address(jedis.sentinelGetMasterAddrByName(masterName)));
            } catch (JedisException | Await.NotYet e) {
                last = e;
            }
        }
        throw new IllegalStateException("No sentinel of " + this + " answered", last);
    }

    /**
     * Returns every data node but the current master ({@link #master()}), in start order, whatever its state: a node
     * that was killed is among them, and a replica that has not been reconfigured yet may replicate from an old
     * master.
     *
     * @return a new unmodifiable list
     * @throws IllegalStateException if no Sentinel answers
     */
    public List<RedisServer> replicas() {
        RedisServer master = master();
        return dataNodes.stream().filter(n -> n != master).collect(Collectors.toUnmodifiableList());
    }

    /**
     * Returns every data node, the master as started first, then the replicas as started; roles change with
     * failovers.
     *
     * @return an unmodifiable list
     */
    public List<RedisServer> dataNodes() {
        return dataNodes;
    }

    /**
     * Returns the Sentinel processes, in start order, e.g. to kill or pause one.
     *
     * @return an unmodifiable list
     */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /**
     * Returns the Sentinels' addresses, in start order.
     *
     * @return e.g. {@code [127.0.0.1:41234, 127.0.0.1:41236, 127.0.0.1:41240]}
     */
    public List<String> sentinelAddresses() {
        return sentinels.stream().map(s -> HOST + ":" + s.port()).collect(Collectors.toUnmodifiableList());
    }

    /**
     * Returns the URI through which a client finds the master: the Sentinels' addresses and the master name, with the
     * data nodes' password if they have one. The scheme is {@code rediss-sentinel} when the group speaks TLS.
     *
     * @return e.g. {@code redis-sentinel://127.0.0.1:41234,127.0.0.1:41236/mymaster}, or
     *     {@code redis-sentinel://:secret@127.0.0.1:41234,127.0.0.1:41236/mymaster} with a password (percent-encoded)
     */
    public String sentinelUri() {
        return (tls != null ? "rediss-sentinel://" : "redis-sentinel://") + GroupSupport.userInfo(password)
                + String.join(",", sentinelAddresses()) + "/" + masterName;
    }

    /**
     * Returns the data nodes' password.
     *
     * @return the password, or null if they need none
     */
    public String password() {
        return password;
    }

    /**
     * Returns the certificates of a TLS group.
     *
     * @return the certificates, or null for plain TCP
     */
    public TlsCertificates tls() {
        return tls;
    }

    /**
     * Returns the directory holding the Sentinels' configuration files ({@code sentinel-0.conf}, ...), which they
     * rewrite as the topology changes; kept after {@link #close()} for post-mortem inspection.
     *
     * @return the absolute directory
     */
    public Path configDir() {
        return configDir;
    }

    /**
     * Kills the current master with SIGKILL and waits until the Sentinels have promoted a replica: every reachable
     * Sentinel gives the same new address for {@code SENTINEL GET-MASTER-ADDR-BY-NAME}, none has a failover in
     * progress or takes the master for down, and that node reports {@code role:master}. The killed node stays down
     * (see {@link #restartAsReplica}). Blocks the calling thread; with the default timings this takes about 2 to 5 s.
     *
     * @param timeout how long to wait for the new master
     * @return the promoted data node
     * @throws IllegalStateException if the group is closed, no Sentinel answers, or no new master is agreed on in time
     */
    public synchronized RedisServer killMasterAndAwaitFailover(Duration timeout) {
        checkOpen();
        long start = System.nanoTime();
        RedisServer old = master();
        old.kill();
        RedisServer promoted = awaitPromotion(old, timeout);
        LOG.info(
                "{}: killed master {}, {} promoted after {} ms",
                masterName,
                old.port(),
                promoted.port(),
                (System.nanoTime() - start) / 1_000_000);
        return promoted;
    }

    /**
     * Asks a Sentinel for a graceful failover ({@code SENTINEL FAILOVER <name>}), retrying while it answers that no
     * replica is fit yet or a failover is in progress, and waits for the new master as
     * {@link #killMasterAndAwaitFailover} does. The old master keeps running and stays a writable master until the
     * Sentinels turn it into a replica, about 10 s later (that is Sentinel's behaviour;
     * {@link #awaitReplicasInSync(Duration)} waits for it). Blocks the calling thread.
     *
     * @param timeout how long to wait in all
     * @return the promoted data node
     * @throws IllegalStateException if the group is closed, no Sentinel accepts the failover, or no new master is
     *     agreed on in time
     */
    public synchronized RedisServer failover(Duration timeout) {
        checkOpen();
        long start = System.nanoTime();
        RedisServer old = master();
        Await.until(timeout, "a Sentinel accepting SENTINEL FAILOVER " + masterName, () -> {
            JedisException last = null;
            for (RedisServer sentinel : sentinels) {
                if (!reachable(sentinel)) {
                    continue;
                }
                try (Jedis jedis = sentinel.client(PROBE_TIMEOUT)) {
                    jedis.sentinelFailover(masterName);
                    return sentinel;
                } catch (JedisException e) {
                    last = e; // NOGOODSLAVE while no replica is known fit, INPROG during a failover
                }
            }
            throw new Await.NotYet(last == null ? "no sentinel is reachable" : last.getMessage());
        });
        Duration left = timeout.minusNanos(System.nanoTime() - start);
        RedisServer promoted = awaitPromotion(old, left.isNegative() ? Duration.ZERO : left);
        LOG.info(
                "{}: failover from {} to {} after {} ms",
                masterName,
                old.port(),
                promoted.port(),
                (System.nanoTime() - start) / 1_000_000);
        return promoted;
    }

    /**
     * Waits for the failover that follows a fault the caller caused itself (the master killed or paused, with the
     * replicas set up as the test needs): until the Sentinels agree on a master other than {@code old}, as
     * {@link #killMasterAndAwaitFailover} does. Blocks the calling thread.
     *
     * @param old the master before the fault
     * @param timeout how long to wait
     * @return the promoted data node
     * @throws IllegalStateException if no Sentinel answers, or no new master is agreed on in time
     */
    public RedisServer awaitFailover(RedisServer old, Duration timeout) {
        checkOpen();
        return awaitPromotion(old, timeout);
    }

    /**
     * Waits until the Sentinels agree on a master (as after a failover: same address everywhere, no failover in
     * progress, the node reports {@code role:master}) other than {@code old}.
     */
    private RedisServer awaitPromotion(RedisServer old, Duration timeout) {
        String oldAddress = HOST + ":" + old.port();
        return Await.until(timeout, "a new master of " + masterName + " replacing " + oldAddress, () -> {
            String agreed = null;
            for (RedisServer sentinel : sentinels) {
                if (!reachable(sentinel)) {
                    continue;
                }
                try (Jedis jedis = sentinel.client(PROBE_TIMEOUT)) {
                    String seen = address(jedis.sentinelGetMasterAddrByName(masterName));
                    check(!oldAddress.equals(seen), sentinel + " still reports the old master " + seen);
                    check(agreed == null || agreed.equals(seen), "sentinels disagree: " + agreed + " and " + seen);
                    agreed = seen;
                    String flags = jedis.sentinelMaster(masterName).get("flags");
                    check(
                            "master".equals(flags),
                            sentinel + " has flags " + flags + " for " + seen + " (failover not finished)");
                }
            }
            check(agreed != null, "no sentinel is reachable");
            RedisServer master = dataNodeAt(agreed);
            String role = reachable(master) ? info(master, "replication").get("role") : "unreachable";
            check("master".equals(role), master + " has role " + role);
            return master;
        });
    }

    /**
     * Waits until every running, unpaused data node other than the current master replicates from it with the link
     * up and has reached the master's replication offset ({@code master_repl_offset}) as read when this is called.
     * After a graceful {@link #failover} that includes the old master, which Sentinel demotes about 10 s later; a
     * killed node is not waited for. Blocks the calling thread.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException if no Sentinel answers, or the replicas are not in sync in time
     */
    public void awaitReplicasInSync(Duration timeout) {
        RedisServer master = master();
        long target = Long.parseLong(info(master, "replication").get("master_repl_offset"));
        String masterPort = Integer.toString(master.port());
        Await.until(timeout, "the replicas of " + master + " reaching offset " + target, () -> {
            for (RedisServer node : dataNodes) {
                if (node == master || !reachable(node)) {
                    continue;
                }
                Map<String, String> r = info(node, "replication");
                check("slave".equals(r.get("role")), node + " has role " + r.get("role"));
                check(masterPort.equals(r.get("master_port")), node + " replicates from port " + r.get("master_port"));
                check("up".equals(r.get("master_link_status")), node + " has its master link down");
                long offset = Long.parseLong(r.getOrDefault("slave_repl_offset", "-1"));
                check(offset >= target, node + " is at offset " + offset);
            }
            return null;
        });
    }

    /**
     * Restarts a data node that is not the master (killing it first if it runs) and makes it a replica of the current
     * master at once ({@code REPLICAOF}) rather than waiting for the Sentinels to reconfigure it, then waits until its
     * link to the master is up. Its data is gone unless it was started with persistence. Blocks the calling thread.
     *
     * @param node a data node of this group
     * @param timeout how long to wait for the link
     * @throws IllegalArgumentException if {@code node} is not a data node of this group, or is the current master
     * @throws IllegalStateException if the group is closed, the node cannot be restarted or does not sync in time
     */
    public synchronized void restartAsReplica(RedisServer node, Duration timeout) {
        checkOpen();
        if (!dataNodes.contains(node)) {
            throw new IllegalArgumentException(node + " is not a data node of " + this);
        }
        RedisServer master = master();
        if (node == master) {
            throw new IllegalArgumentException(node + " is the current master of " + masterName);
        }
        node.restart();
        try (Jedis jedis = node.client()) {
            jedis.replicaof(HOST, master.port());
        }
        String masterPort = Integer.toString(master.port());
        Await.until(timeout, node + " replicating from " + master, () -> {
            Map<String, String> r = info(node, "replication");
            check(masterPort.equals(r.get("master_port")), node + " replicates from port " + r.get("master_port"));
            check("up".equals(r.get("master_link_status")), node + " has its master link down");
            return null;
        });
    }

    /**
     * Freezes every running Sentinel with SIGSTOP: the data nodes keep serving but nothing fails over. A Sentinel
     * that is frozen for more than 2 s enters TILT mode once resumed and takes no action for 30 s (Sentinel's
     * protection against clock jumps).
     *
     * @throws IllegalStateException if the group is closed or a signal cannot be sent
     */
    public synchronized void pauseSentinels() {
        checkOpen();
        for (RedisServer sentinel : sentinels) {
            if (sentinel.isRunning() && !sentinel.isPaused()) {
                sentinel.pause();
            }
        }
    }

    /**
     * Continues every paused Sentinel with SIGCONT.
     *
     * @throws IllegalStateException if a signal cannot be sent
     */
    public synchronized void resumeSentinels() {
        for (RedisServer sentinel : sentinels) {
            if (sentinel.isPaused()) {
                sentinel.resume();
            }
        }
    }

    /**
     * Stops every process, the Sentinels first (so that none reacts to the others going away), even if some fail to
     * stop. Idempotent. Data directories and configuration files are kept for post-mortem inspection.
     *
     * @throws IllegalStateException carrying every failure as suppressed exceptions, if any
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        IllegalStateException failure = new IllegalStateException("Failed to stop some processes of " + this);
        stopAll(sentinels, dataNodes, failure);
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    /**
     * Describes the group for logs and assertion messages.
     *
     * @return e.g. {@code RedisSentinelGroup[mymaster, data [...], sentinels [...]]}
     */
    @Override
    public String toString() {
        return "RedisSentinelGroup[" + masterName + ", data " + dataNodes + ", sentinels " + sentinels + "]";
    }

    private synchronized void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private RedisServer dataNodeAt(String address) {
        for (RedisServer node : dataNodes) {
            if (address.equals(HOST + ":" + node.port())) {
                return node;
            }
        }
        throw new IllegalStateException("A sentinel names master " + address + ", not a data node of " + this);
    }

    /** {@code host:port} from a GET-MASTER-ADDR-BY-NAME reply. */
    private String address(List<String> reply) {
        if (reply == null || reply.size() != 2) {
            throw new Await.NotYet("no address for " + masterName + ": " + reply);
        }
        return reply.get(0) + ":" + reply.get(1);
    }
}
