/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

/**
 * One kind of simulated cluster: which faults the seed may draw, whether they stay inside the assumptions under which
 * the library promises its guarantees, and what the clients do.
 *
 * @param name how the configuration is named in the summary line
 * @param quarantine whether restart protection is on
 * @param trustPersistent whether nodes that persist every write are trusted across restarts
 * @param driftOutside whether clocks may drift beyond the configured drift factor
 * @param majorityLoss whether a majority of nodes may lose their data at once
 * @param insideAssumptions whether the checkers must find no violation (false: a negative control, which must)
 * @param workload what the clients do
 * @param notifications whether the clients subscribe to the nodes' release notifications (off: their waiters poll, as
 *     they do while every subscription is down)
 * @param failover whether each node has an asynchronous replica that a failover promotes (with the writes it had
 *     received by then), instead of losing data to restarts without persistence or {@code FLUSHALL}
 * @param slotMoves whether each node is one hash slot of a Redis Cluster whose slot may move to another master, with
 *     its keys or (data loss) without them
 * @param nodes how many nodes there are (5 unless each lock uses some of them)
 * @param nodesPerLock how many of them each lock uses (0: every node)
 * @param mixedPlacement whether every other client uses every node whatever {@code nodesPerLock} says (a negative
 *     control: clients that place locks otherwise)
 */
public record SimConfig(
        String name,
        boolean quarantine,
        boolean trustPersistent,
        boolean driftOutside,
        boolean majorityLoss,
        boolean insideAssumptions,
        Workload workload,
        boolean notifications,
        boolean failover,
        boolean slotMoves,
        int nodes,
        int nodesPerLock,
        boolean mixedPlacement) {

    /** A configuration of five nodes, every lock on every node. */
    public SimConfig(
            String name,
            boolean quarantine,
            boolean trustPersistent,
            boolean driftOutside,
            boolean majorityLoss,
            boolean insideAssumptions,
            Workload workload,
            boolean notifications,
            boolean failover,
            boolean slotMoves) {
        this(
                name,
                quarantine,
                trustPersistent,
                driftOutside,
                majorityLoss,
                insideAssumptions,
                workload,
                notifications,
                failover,
                slotMoves,
                5,
                0,
                false);
    }

    /** What the simulated clients do. */
    public enum Workload {
        /**
         * Three clients, each one acquisition after another (and a second one for a fair lock now and then), over
         * every kind of lock.
         */
        FAMILY(3, 1),
        /**
         * Four clients, each with three acquisitions in flight, all for one lock: a RedLock in half the seeds, a fair
         * lock in the others (each fenced in half of its seeds); short holds, long waits, so that waiters of every
         * client queue and are woken by releases.
         */
        ONE_LOCK(4, 3);

        private final int clients;
        private final int threads;

        Workload(int clients, int threads) {
            this.clients = clients;
            this.threads = threads;
        }

        /** How many client processes run. */
        public int clients() {
            return clients;
        }

        /** How many acquisitions each client keeps in flight (as many threads would). */
        public int threads() {
            return threads;
        }
    }

    /** Every fault, inside the assumptions: clocks within the drift factor, data loss on a minority. */
    public static final SimConfig FAULTS =
            new SimConfig("faults", true, false, false, false, true, Workload.FAMILY, false, false, false);
    /** The same, with nodes that fsync every write trusted across restarts. */
    public static final SimConfig TRUSTED_PERSISTENCE =
            new SimConfig("trusted-persistence", true, true, false, false, true, Workload.FAMILY, false, false, false);
    /** Every fault, inside the assumptions, with several clients' waiters queued for one lock. */
    public static final SimConfig ONE_LOCK =
            new SimConfig("one-lock", true, false, false, false, true, Workload.ONE_LOCK, true, false, false);
    /**
     * Every fault, inside the assumptions, on nodes that each have a replica (Sentinel-managed masters): data is lost
     * only when a failover promotes a replica that had not received the latest writes (replication lag, a stalled
     * link), on a minority of nodes; a planned switchover (the replica caught up first) on any node.
     */
    public static final SimConfig FAILOVER =
            new SimConfig("failover", true, false, false, false, true, Workload.FAMILY, false, true, false);
    /** Negative control: the same failovers with restart protection off. */
    public static final SimConfig FAILOVER_NO_QUARANTINE = new SimConfig(
            "failover-no-quarantine", false, false, false, false, false, Workload.FAMILY, false, true, false);
    /**
     * Every fault, inside the assumptions, with the nodes as hash slots of one Redis Cluster whose masters have
     * replicas: the failovers of {@link #FAILOVER}, and slot moves to another master (another run_id), with their keys
     * on any node, or without them (data loss) on a minority of nodes, which loses data only through these and
     * failovers.
     */
    public static final SimConfig CLUSTER =
            new SimConfig("cluster", true, false, false, false, true, Workload.FAMILY, false, true, true);
    /** Negative control: the same cluster with restart protection off. */
    public static final SimConfig CLUSTER_NO_QUARANTINE = new SimConfig(
            "cluster-no-quarantine", false, false, false, false, false, Workload.FAMILY, false, true, true);
    /**
     * Every fault, inside the assumptions, on seven nodes with five per lock: each lock on its own five by rendezvous
     * hashing. At most two nodes lose data, a minority of every lock's five.
     */
    public static final SimConfig PLACEMENT = new SimConfig(
            "placement", true, false, false, false, true, Workload.FAMILY, false, false, false, 7, 5, false);
    /** Negative control: the same, with every other client placing each lock on all seven nodes. */
    public static final SimConfig PLACEMENT_MIXED = new SimConfig(
            "placement-mixed", true, false, false, false, false, Workload.FAMILY, false, false, false, 7, 5, true);
    /** Negative control: clocks drift beyond the drift factor. */
    public static final SimConfig DRIFT_BEYOND_FACTOR =
            new SimConfig("drift-beyond-factor", true, false, true, false, false, Workload.FAMILY, false, false, false);
    /** Negative control: restart protection off while nodes lose data. */
    public static final SimConfig NO_QUARANTINE =
            new SimConfig("no-quarantine", false, false, false, false, false, Workload.FAMILY, false, false, false);
    /** Negative control: a majority of nodes lose their data at once. */
    public static final SimConfig MAJORITY_LOSS =
            new SimConfig("majority-loss", true, false, false, true, false, Workload.FAMILY, false, false, false);

    /** Looks a configuration up by name. */
    public static SimConfig named(String name) {
        for (SimConfig c : new SimConfig[] {
            FAULTS,
            TRUSTED_PERSISTENCE,
            FAILOVER,
            CLUSTER,
            PLACEMENT,
            ONE_LOCK,
            DRIFT_BEYOND_FACTOR,
            NO_QUARANTINE,
            MAJORITY_LOSS,
            FAILOVER_NO_QUARANTINE,
            CLUSTER_NO_QUARANTINE,
            PLACEMENT_MIXED
        }) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("sim.config: unknown configuration '" + name + "'; known: faults, "
                + "trusted-persistence, failover, cluster, placement, one-lock, drift-beyond-factor, no-quarantine, "
                + "majority-loss, failover-no-quarantine, cluster-no-quarantine, placement-mixed");
    }
}
