/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Rendezvous placement: each lock's n of M nodes, the same for every client, moving little when M changes. */
class PlacementTest {

    private static List<String> ids(int m) {
        return IntStream.range(0, m)
                .mapToObj(i -> "10.0.0." + (i + 1) + ":6379")
                .toList();
    }

    private static Placement placement(List<String> ids, int perLock) {
        return new Placement(List.of(), ids, ids, perLock);
    }

    /** The ids of {@code key}'s nodes, which do not depend on the order the nodes were listed in. */
    private static Set<String> chosen(Placement p, List<String> ids, String key) {
        Set<String> out = new TreeSet<>();
        for (int i : p.indices(key)) {
            out.add(ids.get(i));
        }
        return out;
    }

    @Test
    void everyNodeWhenEachLockUsesAll() {
        Placement p = placement(ids(5), 5);
        assertArrayEquals(new int[] {0, 1, 2, 3, 4}, p.indices("redlock:{a}"));
        assertEquals(false, p.partial());
    }

    @Test
    void aLockGetsItsNodesInConfigurationOrderWhateverTheOrderTheyWereListedIn() {
        List<String> ids = ids(10);
        List<String> shuffled = new ArrayList<>(ids);
        Collections.shuffle(shuffled, new Random(7));
        Placement a = placement(ids, 5);
        Placement b = placement(shuffled, 5);
        for (int k = 0; k < 2_000; k++) {
            String key = "redlock:{order-" + k + "}";
            int[] idx = a.indices(key);
            assertEquals(5, idx.length);
            for (int i = 1; i < idx.length; i++) {
                assertTrue(idx[i - 1] < idx[i], key);
            }
            assertEquals(chosen(a, ids, key), chosen(b, shuffled, key), key);
        }
    }

    /** Part of the wire format: clients of different versions must place a lock alike. */
    @Test
    void thePlacementOfAKnownKeyNeverChanges() {
        Placement p = placement(ids(10), 5);
        assertArrayEquals(new int[] {1, 2, 5, 6, 7}, p.indices("redlock:{orders}"), "redlock:{orders}");
        assertEquals(0xaf63dc4c8601ec8cL, Placement.fnv("a"));
    }

    /** Clients that spell a node otherwise place locks alike: host case, and the order or choice of sentinels. */
    @Test
    void aNodesPlacementIdIgnoresHostCaseAndWhichSentinelsAreListed() {
        assertEquals(
                dev.redlock.internal.node.NodeSpec.parse("n", "redis://redis1.example:6379")
                        .placementId(),
                dev.redlock.internal.node.NodeSpec.parse("n", "redis://Redis1.EXAMPLE:6379")
                        .placementId());
        assertEquals(
                dev.redlock.internal.node.NodeSpec.parse("n", "redis-sentinel://s1,s2,s3/orders")
                        .placementId(),
                dev.redlock.internal.node.NodeSpec.parse("n", "redis-sentinel://S3,s2/orders")
                        .placementId());
        assertEquals(
                "sentinel:orders/2",
                dev.redlock.internal.node.NodeSpec.parse("n", "redis-sentinel://s1/orders/2")
                        .placementId());
    }

    @Test
    void locksSpreadEvenlyOverTheNodes() {
        int m = 10;
        int perLock = 5;
        Placement p = placement(ids(m), perLock);
        int[] load = new int[m];
        int keys = 20_000;
        for (int k = 0; k < keys; k++) {
            for (int i : p.indices("redlock:{spread-" + k + "}")) {
                load[i]++;
            }
        }
        double fair = (double) keys * perLock / m;
        for (int i = 0; i < m; i++) {
            assertTrue(Math.abs(load[i] - fair) < 0.05 * fair, "node " + i + ": " + load[i] + " of a fair " + fair);
        }
    }

    /** A master that joins takes a lock's place only from one node; about n/(M+1) of the locks move. */
    @Test
    void aJoiningNodeMovesAboutNOverMOfTheLocksOneNodeEach() {
        List<String> before = ids(10);
        List<String> after = new ArrayList<>(before);
        after.add("10.0.0.99:6379");
        Placement p = placement(before, 5);
        Placement q = placement(after, 5);
        int moved = 0;
        int keys = 20_000;
        for (int k = 0; k < keys; k++) {
            String key = "redlock:{join-" + k + "}";
            Set<String> old = chosen(p, before, key);
            Set<String> now = chosen(q, after, key);
            Set<String> gone = new TreeSet<>(old);
            gone.removeAll(now);
            Set<String> came = new TreeSet<>(now);
            came.removeAll(old);
            assertTrue(came.size() <= 1 && came.size() == gone.size(), key + ": " + old + " -> " + now);
            if (!came.isEmpty()) {
                assertEquals(Set.of("10.0.0.99:6379"), came, key);
                moved++;
            }
        }
        double expected = 5.0 / 11;
        assertTrue(Math.abs((double) moved / keys - expected) < 0.03, moved + " of " + keys + " moved");
    }
}
