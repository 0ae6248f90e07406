/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.internal.node.NodeSpec;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks behind {@link RedlockConfig.Builder}: each fails with an {@link IllegalArgumentException} that names the
 * field, the allowed values and what was given, and shows no node's user or password.
 */
final class ConfigChecks {

    // The configuration's logger name, which users' logging settings already address.
    private static final Logger LOG = LoggerFactory.getLogger(RedlockConfig.class);

    private ConfigChecks() {}

    /** At least one node, and no server twice (two databases of one server are one node: one restart, two votes). */
    static void nodes(List<NodeSpec> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException(
                    "nodes: at least 1 node is required (got none); add redis://host:port URIs");
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).isCluster() && nodes.size() > 1) {
                throw new IllegalArgumentException("nodes[" + i + "]: a Redis Cluster is the whole quorum; give it as"
                        + " the only node (got " + nodes.size() + " nodes)");
            }
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            Integer first = seen.putIfAbsent(nodes.get(i).server(), i);
            if (first != null) {
                throw new IllegalArgumentException(
                        "nodes: duplicate node " + nodes.get(i).server() + " at nodes[" + first + "] and nodes[" + i
                                + "]; every node must be a distinct master");
            }
        }
    }

    /** {@code value} (the setting {@code field}) must be below the lease time. */
    static void belowLeaseTime(String field, Duration value, Duration leaseTime) {
        if (value.compareTo(leaseTime) >= 0) {
            throw new IllegalArgumentException(field + ": must be below leaseTime (" + leaseTime.toMillis()
                    + " ms), got " + value.toMillis() + " ms");
        }
    }

    /** Every node named as unverified must be a configured node. */
    static void unverifiedIdentity(Collection<String> unverified, List<NodeSpec> nodes) {
        Set<String> names = new LinkedHashSet<>();
        for (NodeSpec spec : nodes) {
            names.add(spec.name());
        }
        for (String name : unverified) {
            if (!names.contains(name)) {
                // A URI given by mistake may carry a password: show only what follows its last '@'.
                int at = name.lastIndexOf('@');
                String shown = at < 0 ? name : "***" + name.substring(at);
                throw new IllegalArgumentException(
                        "unverifiedIdentity: '" + shown + "' is not a configured node; " + "allowed: " + names);
            }
        }
    }

    /** Warns when the node count gives no fault tolerance (below 3) or no more than one node fewer would (even). */
    static void warn(String message) {
        LOG.warn(message);
    }

    /** Restart protection off with Sentinel-managed nodes: their failovers are data loss nothing accounts for. */
    static void warnFailoverUnprotected() {
        LOG.warn("restartQuarantine is off with Sentinel-managed nodes: a failover that lost a lock's key can grant it"
                + " twice; such nodes are safe only with it on");
    }

    /** Nodes per lock, when given, must not exceed the nodes (a Redis Cluster's count is checked when expanded). */
    static void nodesPerLock(int perLock, int nodes) {
        if (perLock > nodes) {
            throw new IllegalArgumentException(
                    "nodesPerLock: must be 0 (every node) or 3 to the number of nodes (" + nodes + "), got " + perLock);
        }
    }

    static void warnOnNodeCount(int n, int perLock) {
        if (perLock != 0 && perLock % 2 == 0) {
            LOG.warn(
                    "nodesPerLock {}: an even n tolerates no more failures than n-1 ({}); prefer an odd n",
                    perLock,
                    QuorumPolicy.MAJORITY.tolerated(perLock));
            return;
        }
        if (perLock != 0) {
            return; // each lock's own n is what a quorum counts
        }
        if (n < 3) {
            LOG.warn(
                    "{} node(s) configured: a RedLock needs at least 3 independent masters to survive a node "
                            + "failure",
                    n);
        } else if (n % 2 == 0) {
            LOG.warn(
                    "{} nodes configured: an even N tolerates no more failures than N-1 ({}); prefer an odd N",
                    n,
                    QuorumPolicy.MAJORITY.tolerated(n));
        }
    }

    static Duration notNegative(String field, Duration d) {
        Objects.requireNonNull(d, field);
        if (d.isNegative()) {
            throw new IllegalArgumentException(field + ": must be >= 0, got " + describe(d));
        }
        return d;
    }

    /** A budget or cap beyond what a long of nanoseconds holds means "as long as it takes". */
    static Duration saturated(Duration d, Duration max) {
        return d.compareTo(max) > 0 ? max : d;
    }

    static Duration inRange(String field, Duration d, Duration min, Duration max) {
        Objects.requireNonNull(d, field);
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(
                    field + ": must be in [" + human(min) + ", " + human(max) + "], got " + describe(d));
        }
        return d;
    }

    /** A limit in its largest whole unit: "7 days", "5 min", "1 ms". */
    static String human(Duration d) {
        if (!d.isZero() && d.toSeconds() % 86_400 == 0 && d.getNano() == 0) {
            long days = d.toDays();
            return days + (days == 1 ? " day" : " days");
        }
        if (!d.isZero() && d.toSeconds() % 3_600 == 0 && d.getNano() == 0) {
            return d.toHours() + " h";
        }
        if (!d.isZero() && d.toSeconds() % 60 == 0 && d.getNano() == 0) {
            return d.toMinutes() + " min";
        }
        return describe(d);
    }

    /** A rejected value, exactly: in ms or ns when a long holds it, else in seconds (never an overflow). */
    static String describe(Duration d) {
        long seconds = d.getSeconds();
        if (seconds > -9_000_000_000L && seconds < 9_000_000_000L) {
            long nanos = d.toNanos();
            return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + " ms" : nanos + " ns";
        }
        return BigDecimal.valueOf(seconds)
                        .add(BigDecimal.valueOf(d.getNano(), 9))
                        .stripTrailingZeros()
                        .toPlainString() + " s";
    }
}
