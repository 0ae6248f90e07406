/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * How many of the configured nodes must grant an acquisition. RedLock and MultiLock run the same engine and differ
 * only by this policy.
 *
 * <p>The quorum is always computed from the <em>configured</em> number of nodes, never from the nodes that happen to
 * be reachable: a node that is down counts as a vote that was not granted.
 */
public enum QuorumPolicy {

    /** RedLock: a strict majority, {@code N/2 + 1} of N nodes. Tolerates {@code (N-1)/2} failed nodes. */
    MAJORITY {
        @Override
        public int required(int nodes) {
            return nodes / 2 + 1;
        }
    },

    /** MultiLock: every configured node must grant. Any node down means the lock cannot be acquired. */
    ALL {
        @Override
        public int required(int nodes) {
            return nodes;
        }
    };

    /**
     * Returns the number of grants this policy requires.
     *
     * @param nodes the configured number of nodes, at least 1
     * @return the required number of grants, between 1 and {@code nodes}
     * @throws IllegalArgumentException if {@code nodes < 1}
     */
    public abstract int required(int nodes);

    /**
     * Returns the number of failed or refusing nodes this policy can absorb and still succeed.
     *
     * @param nodes the configured number of nodes, at least 1
     * @return {@code nodes - required(nodes)}
     */
    public int tolerated(int nodes) {
        return nodes - required(nodes);
    }
}
