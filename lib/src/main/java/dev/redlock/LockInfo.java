/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the nodes say of a lock at one moment: who holds its key on each node, for how much longer, and whether one
 * holder has it on a majority. Returned by {@link RedlockClient#inspect(String)}; a snapshot, stale as soon as it is
 * read, meant for operators and dashboards, never for deciding whether to act on a resource (hold a lease for that).
 *
 * <p>Holders are named by the first 8 characters of their token, as logs show them: enough to tell holders apart and to
 * match a lease ({@link Lease#token()}), too little to release anything. Immutable and thread-safe.
 */
public final class LockInfo {

    private final String lockName;
    private final List<NodeOutcome> nodes;
    private final List<Optional<String>> holders;
    private final String holder;
    private final int holdingNodes;
    private final Duration remaining;
    private final List<Optional<HolderIdentity>> identities;

    /**
     * Creates a view; see {@link RedlockClient#inspect(String)}.
     *
     * @param lockName the lock's name
     * @param nodes each node's answer: {@link NodeStatus#TAKEN} with its {@link NodeOutcome#holderTtl()} when the key
     *     is there, {@link NodeStatus#ALREADY_EXPIRED} when absent, or a failure
     * @param holders for each node, the holder's token prefix when the key is there
     * @param driftFactor the clock drift factor: {@code ttl * driftFactor + 2 ms} is taken off the remaining time
     */
    public LockInfo(String lockName, List<NodeOutcome> nodes, List<Optional<String>> holders, double driftFactor) {
        this(lockName, nodes, holders, java.util.Collections.nCopies(nodes.size(), Optional.empty()), driftFactor);
    }

    /**
     * Creates a view with each node's holder identity; see {@link RedlockClient#inspect(String)}.
     *
     * @param lockName the lock's name
     * @param nodes each node's answer, as for {@link #LockInfo(String, List, List, double)}
     * @param holders for each node, the holder's token prefix when the key is there
     * @param identities for each node, the identity its holder's client wrote there, when it did
     * @param driftFactor the clock drift factor
     * @throws IllegalArgumentException if the three lists differ in size
     */
    public LockInfo(
            String lockName,
            List<NodeOutcome> nodes,
            List<Optional<String>> holders,
            List<Optional<HolderIdentity>> identities,
            double driftFactor) {
        if (holders.size() != nodes.size() || identities.size() != nodes.size()) {
            throw new IllegalArgumentException("nodes, holders and identities must have one element per node, got "
                    + nodes.size() + ", " + holders.size() + " and " + identities.size());
        }
        this.identities = List.copyOf(identities);
        this.lockName = Objects.requireNonNull(lockName, "lockName");
        this.nodes = List.copyOf(nodes);
        this.holders = List.copyOf(holders);
        int quorum = nodes.size() / 2 + 1;
        Map<String, Integer> count = new HashMap<>();
        for (Optional<String> h : holders) {
            h.ifPresent(p -> count.merge(p, 1, Integer::sum));
        }
        String top = null;
        int most = 0;
        for (Map.Entry<String, Integer> e : count.entrySet()) {
            if (e.getValue() > most) {
                top = e.getKey();
                most = e.getValue();
            }
        }
        this.holder = most >= quorum ? top : null;
        this.holdingNodes = most;
        if (holder == null) {
            this.remaining = null;
        } else {
            // The holder keeps its majority until the quorum-th longest of its TTLs runs out.
            List<Long> ttls = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                if (holders.get(i).filter(holder::equals).isPresent()) {
                    ttls.add(nodes.get(i).holderTtl().map(Duration::toMillis).orElse(Long.MAX_VALUE));
                }
            }
            ttls.sort(java.util.Comparator.reverseOrder());
            long ms = ttls.get(quorum - 1);
            this.remaining = ms == Long.MAX_VALUE
                    ? null
                    : Duration.ofMillis(Math.max(0, ms - (long) Math.ceil(ms * driftFactor) - 2));
        }
    }

    /**
     * Returns the lock's name.
     *
     * @return the name inspected
     */
    public String lockName() {
        return lockName;
    }

    /**
     * Returns whether one holder has the key on a majority of the nodes: the quorum view of a RedLock (a MultiLock's
     * holder has every node, so it is locked too).
     *
     * @return true when some token holds the key on at least {@code N/2 + 1} nodes
     */
    public boolean locked() {
        return holder != null;
    }

    /**
     * Returns the majority holder's token prefix.
     *
     * @return the first 8 characters of its token, or empty when no holder has a majority
     */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }

    /**
     * Returns who the majority holder is: host, process id, client name and, for a lease held about a second or more,
     * thread and since when (see {@link HolderIdentity}). Of the nodes where the holder has the key, the first whose
     * entry names a thread wins, else the first with an entry.
     *
     * @return the holder's identity, or empty when not {@link #locked()} or its client left no entry (a client of
     *     an older version, or one that died more than 30 seconds ago)
     */
    public Optional<HolderIdentity> holderIdentity() {
        if (holder == null) {
            return Optional.empty();
        }
        Optional<HolderIdentity> found = Optional.empty();
        for (int i = 0; i < identities.size(); i++) {
            Optional<HolderIdentity> id = identities.get(i);
            if (holders.get(i).filter(holder::equals).isPresent() && id.isPresent()) {
                if (id.get().thread().isPresent()) {
                    return id;
                }
                found = found.isPresent() ? found : id;
            }
        }
        return found;
    }

    /**
     * Returns each node's holder identity, in the configured order.
     *
     * @return per node, what the holder's client wrote there about itself, or empty
     */
    public List<Optional<HolderIdentity>> identities() {
        return identities;
    }

    /**
     * Returns on how many nodes the most widespread holder has the key (a majority when {@link #locked()}; fewer
     * during a round in progress, or after nodes lost their data).
     *
     * @return a count from 0 to the number of nodes
     */
    public int holdingNodes() {
        return holdingNodes;
    }

    /**
     * Returns how long, at the latest, the majority holder keeps its majority unless it extends: the {@code N/2+1}-th
     * longest remaining TTL of its keys, less the drift margin. It may release sooner.
     *
     * @return the remaining time, or empty when not {@link #locked()} (or a key of it has no TTL)
     */
    public Optional<Duration> remaining() {
        return Optional.ofNullable(remaining);
    }

    /**
     * Returns each node's answer, in the configured order: {@link NodeStatus#TAKEN} with
     * {@link NodeOutcome#holderTtl()} when the key is there, {@link NodeStatus#ALREADY_EXPIRED} when it is absent, or
     * why the node could not say.
     *
     * @return one outcome per node
     */
    public List<NodeOutcome> nodes() {
        return nodes;
    }

    /**
     * Returns each node's holder, in the configured order.
     *
     * @return per node, the token prefix of the key there, or empty
     */
    public List<Optional<String>> holders() {
        return holders;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("LockInfo{lock=")
                .append(lockName)
                .append(", locked=")
                .append(locked());
        if (holder != null) {
            s.append(", holder=")
                    .append(holder)
                    .append("…, on ")
                    .append(holdingNodes)
                    .append(" nodes");
        }
        holderIdentity().ifPresent(id -> s.append(", holderIdentity=").append(id.describe()));
        if (remaining != null) {
            s.append(", remaining=").append(remaining.toMillis()).append("ms");
        }
        return s.append(", nodes=").append(nodes).append('}').toString();
    }
}
