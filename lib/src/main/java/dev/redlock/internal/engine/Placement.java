/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.internal.node.NodeClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which nodes a lock uses: every node, or, with {@code nodesPerLock} n below the M nodes, the n nodes that rank
 * highest for the lock's key by rendezvous (highest random weight) hashing.
 *
 * <p>The rank of node j for key k is {@code mix(fnv(k) ^ fnv(id_j))}, where {@code fnv} is 64-bit FNV-1a over the
 * UTF-8 bytes, {@code mix} is the SplitMix64 finalizer, and {@code id_j} is the node's placement id (its name, or a
 * cluster node's slot); ties go to the smaller id. It is part of the wire format: every client of the same nodes must
 * compute the same sets. It depends on the ids only, not their order, and a node that joins or leaves moves only the
 * locks whose top n it enters or leaves, about n/M of them.
 *
 * <p>Hand-written rather than a library's hash: it runs for every round of a lock that does not use every node, and
 * a specified function keeps placements the same across versions. Immutable and thread-safe.
 */
final class Placement {

    /** The nodes of one lock, in configuration order; round index i is node {@code clients.get(i)}. */
    record Nodes(List<? extends NodeClient> clients, List<String> names) {
        int size() {
            return clients.size();
        }

        NodeClient client(int i) {
            return clients.get(i);
        }
    }

    private final Nodes all;
    private final int perLock;
    private final long[] idHashes;
    private final String[] ids;

    Placement(List<? extends NodeClient> clients, List<String> names, List<String> ids, int perLock) {
        this.all = new Nodes(List.copyOf(clients), List.copyOf(names));
        this.ids = ids.toArray(String[]::new);
        this.perLock = Math.min(perLock, this.ids.length);
        this.idHashes = new long[this.ids.length];
        for (int i = 0; i < this.ids.length; i++) {
            idHashes[i] = fnv(this.ids[i]);
        }
    }

    /** How many nodes each lock uses. */
    int perLock() {
        return perLock;
    }

    /** Every node. */
    Nodes all() {
        return all;
    }

    /** Whether some lock does not use every node. */
    boolean partial() {
        return perLock < ids.length;
    }

    /** The nodes of the lock whose key is {@code key}. */
    Nodes of(String key) {
        if (perLock == ids.length) {
            return all;
        }
        int[] chosen = indices(key);
        List<NodeClient> clients = new ArrayList<>(chosen.length);
        List<String> names = new ArrayList<>(chosen.length);
        for (int i : chosen) {
            clients.add(all.client(i));
            names.add(all.names().get(i));
        }
        return new Nodes(List.copyOf(clients), List.copyOf(names));
    }

    /** The configuration indices of the nodes of {@code key}, ascending. */
    int[] indices(String key) {
        int m = idHashes.length;
        if (perLock >= m) {
            int[] every = new int[m];
            Arrays.setAll(every, i -> i);
            return every;
        }
        long k = fnv(key);
        long[] ranks = new long[m];
        for (int j = 0; j < m; j++) {
            ranks[j] = mix(k ^ idHashes[j]);
        }
        // The top perLock by rank (unsigned), by selection: M is small, and this allocates nothing else.
        boolean[] taken = new boolean[m];
        for (int c = 0; c < perLock; c++) {
            int best = -1;
            for (int j = 0; j < m; j++) {
                if (!taken[j] && (best < 0 || outranks(j, best, ranks))) {
                    best = j;
                }
            }
            taken[best] = true;
        }
        int[] out = new int[perLock];
        int o = 0;
        for (int j = 0; j < m; j++) {
            if (taken[j]) {
                out[o++] = j;
            }
        }
        return out;
    }

    private boolean outranks(int a, int b, long[] ranks) {
        int c = Long.compareUnsigned(ranks[a], ranks[b]);
        return c > 0 || (c == 0 && ids[a].compareTo(ids[b]) < 0);
    }

    /** 64-bit FNV-1a over the UTF-8 bytes. */
    static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The SplitMix64 finalizer: spreads every input bit over the output. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
