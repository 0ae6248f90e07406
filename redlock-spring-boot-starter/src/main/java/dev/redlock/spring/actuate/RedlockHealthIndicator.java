/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.actuate;

import dev.redlock.NodeOutcome;
import dev.redlock.NodeStatus;
import dev.redlock.RedlockClient;
import dev.redlock.TopologyReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Health of a {@link RedlockClient}: {@code UP} while a quorum ({@code N/2 + 1}) of its nodes answers, {@code DOWN}
 * otherwise or once the client is closed. With {@code nodesPerLock} n of the N nodes, {@code quorum} is {@code n/2 + 1}
 * and it is {@code UP} while every lock has one: no more than {@code n - (n/2 + 1)} nodes are down.
 *
 * <p>Each call reads one probe key on every node in parallel through the client's own connections
 * ({@link RedlockClient#inspect(String)}), so it takes at most one per-node timeout and changes nothing on the nodes.
 * Details:
 * <ul>
 *   <li>{@code nodes}: per node (by name), {@code status} {@code UP} or {@code DOWN}, and for a node that did not
 *       answer, {@code answer} (the {@link NodeStatus}: {@code ERROR}, {@code TIMEOUT}, {@code CIRCUIT_OPEN}, or
 *       {@code PENDING} for no answer within the per-node timeout) and {@code error};</li>
 *   <li>{@code reachable}, {@code voting} (reachable, and not kept out by restart protection), {@code quorum} and
 *       {@code total}: counts of nodes; a reachable node under restart protection also has {@code restartProtection},
 *       why and about how many seconds are left ({@link RedlockClient#restartProtection()});</li>
 *   <li>{@code topology}: the last topology check ({@link RedlockClient#check()}), run in the background at most once
 *       per {@code redlock.health.topology-check-interval} and never waited for: {@code pending} until the first
 *       completes, then {@code checkedAt}, {@code warnings} and {@code failures} (see {@link TopologyReport}). Topology
 *       findings never change the status.</li>
 * </ul>
 *
 * <p>The status follows reachability only: a node under restart protection is UP, since it will vote by itself
 * within a lease (a freshly started cluster would otherwise report DOWN for its first lease). While {@code voting} is
 * below {@code quorum}, locks fail although the status is UP: alert on that detail, not on the status.
 *
 * <p>For Kubernetes probes, include {@code redlock} in the readiness group only
 * ({@code management.endpoint.health.group.readiness.include=readinessState,redlock}), never in liveness: a restart
 * brings no Redis master back, and every instance would be restarted at once while the quorum is lost.
 */
public class RedlockHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    /** The lock name whose key the probe reads on every node; nothing ever holds it. */
    public static final String PROBE_LOCK = "redlock-health-probe";

    private final RedlockClient client;
    /** Probe lock names whose nodes cover every node: one, unless each lock uses some of the nodes. */
    private final java.util.List<String> probes;

    private final Duration topologyCheckInterval;
    private final Clock clock;
    private final ThreadPoolExecutor topologyExecutor;
    private final AtomicBoolean checking = new AtomicBoolean();
    private volatile Topology topology;
    private volatile Instant nextCheck = Instant.MIN;

    /**
     * Creates an indicator that checks the topology every 5 minutes.
     *
     * @param client the client whose nodes to report
     */
    public RedlockHealthIndicator(RedlockClient client) {
        this(client, Duration.ofMinutes(5));
    }

    /**
     * Creates an indicator.
     *
     * @param client the client whose nodes to report
     * @param topologyCheckInterval how often to run a topology check in the background; zero turns it off
     * @throws IllegalArgumentException if the interval is negative
     */
    public RedlockHealthIndicator(RedlockClient client, Duration topologyCheckInterval) {
        super("Redlock health check failed");
        this.client = Objects.requireNonNull(client, "client");
        this.probes = probesCoveringEveryNode(client);
        this.topologyCheckInterval = Objects.requireNonNull(topologyCheckInterval, "topologyCheckInterval");
        if (topologyCheckInterval.isNegative()) {
            throw new IllegalArgumentException("topologyCheckInterval: must be >= 0, got " + topologyCheckInterval);
        }
        this.clock = Clock.systemUTC();
        // One daemon thread, started by the first check and gone when idle: a check blocks for up to a connect
        // timeout per node that does not answer, so it never runs on the caller's thread.
        this.topologyExecutor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "redlock-health-topology");
            t.setDaemon(true);
            return t;
        });
        this.topologyExecutor.allowCoreThreadTimeOut(true);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        if (client.isClosed()) {
            builder.down().withDetail("error", "the Redlock client is closed");
            return;
        }
        Map<String, NodeOutcome> outcomes = new java.util.HashMap<>();
        for (String name : probes) {
            for (NodeOutcome o : client.inspect(name).nodes()) {
                outcomes.putIfAbsent(o.node(), o);
            }
        }
        Map<String, String> protection = client.restartProtection();
        Map<String, Object> nodes = new LinkedHashMap<>();
        int reachable = 0;
        int voting = 0;
        for (String nodeName : client.nodeNames()) {
            NodeOutcome outcome = outcomes.get(nodeName);
            if (outcome == null) {
                continue;
            }
            Map<String, Object> node = new LinkedHashMap<>();
            if (answered(outcome.status())) {
                reachable++;
                node.put("status", "UP");
                String waiting = protection.get(outcome.node());
                if (waiting != null) {
                    node.put("restartProtection", waiting);
                } else {
                    voting++;
                }
            } else {
                node.put("status", "DOWN");
                node.put("answer", outcome.status().name());
                outcome.error()
                        .ifPresent(e -> node.put(
                                "error",
                                e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())));
            }
            node.put("latencyMicros", outcome.latency().toNanos() / 1_000);
            nodes.put(outcome.node(), node);
        }
        int total = client.nodeNames().size();
        int perLock = client.config().nodesPerLock(total);
        int quorum = perLock / 2 + 1;
        // Every lock has a quorum while no more of the nodes are down than a lock's own nodes can spare.
        if (total - reachable <= perLock - quorum) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail("nodes", nodes)
                .withDetail("reachable", reachable)
                .withDetail("voting", voting)
                .withDetail("quorum", quorum)
                .withDetail("total", total)
                // How this client appears as a holder in inspect() and "redlock status", and what it holds now.
                .withDetail("clientName", client.config().clientName())
                .withDetail("leasesHeld", client.activeLeases());
        if (!topologyCheckInterval.isZero()) {
            builder.withDetail("topology", topologyDetails());
        }
    }

    /** The probe lock, and with each lock on some of the nodes, more probe names until their nodes cover all. */
    private static java.util.List<String> probesCoveringEveryNode(RedlockClient client) {
        java.util.List<String> names = new java.util.ArrayList<>(java.util.List.of(PROBE_LOCK));
        java.util.Set<String> covered = new java.util.HashSet<>(client.nodeNamesOf(PROBE_LOCK));
        for (int k = 1; covered.size() < client.nodeNames().size() && k < 10_000; k++) {
            java.util.List<String> of = client.nodeNamesOf(PROBE_LOCK + "-" + k);
            if (!covered.containsAll(of)) {
                names.add(PROBE_LOCK + "-" + k);
                covered.addAll(of);
            }
        }
        return java.util.List.copyOf(names);
    }

    /** A node answered about the key: present (TAKEN) or absent (ALREADY_EXPIRED). */
    private static boolean answered(NodeStatus status) {
        return status == NodeStatus.TAKEN || status == NodeStatus.ALREADY_EXPIRED;
    }

    private Object topologyDetails() {
        refreshTopologyIfDue();
        Topology current = topology;
        if (current == null) {
            return "pending";
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("checkedAt", current.checkedAt().toString());
        details.put("warnings", current.warnings());
        details.put("failures", current.failures());
        return details;
    }

    /** Starts a background check when the last one is older than the interval and none is running. */
    private void refreshTopologyIfDue() {
        Instant now = clock.instant();
        if (now.isBefore(nextCheck) || !checking.compareAndSet(false, true)) {
            return;
        }
        try {
            topologyExecutor.execute(() -> {
                try {
                    topology = checkTopology();
                } finally {
                    nextCheck = clock.instant().plus(topologyCheckInterval);
                    checking.set(false);
                }
            });
        } catch (RuntimeException e) {
            // Shut down with the context: nothing more to check.
            checking.set(false);
        }
    }

    private Topology checkTopology() {
        try {
            TopologyReport report = client.check();
            return new Topology(clock.instant(), report.warnings(), report.failures());
        } catch (RuntimeException e) {
            // strictTopology: the report comes as an exception listing the problems.
            String message = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            return new Topology(clock.instant(), List.of(message), List.of());
        }
    }

    /**
     * Stops the background topology check thread.
     */
    @Override
    public void destroy() {
        topologyExecutor.shutdownNow();
    }

    private record Topology(Instant checkedAt, List<String> warnings, List<String> failures) {}
}
