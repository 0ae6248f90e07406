/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisClusterGroup;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Slots, tags and tagged keys of a Redis Cluster's nodes: pure logic, checked against the testkit's own hashing. */
class ClusterKeysTest {

    @Test
    void slotsAgreeWithTheClusterClientsHashing() {
        for (String key : List.of("", "a", "redlock:{orders}", "{user1000}.following", "foo{}{bar}", "{}x", "ü{é}")) {
            assertEquals(RedisClusterGroup.slotOf(key), ClusterWatch.slotOf(key), key);
        }
        assertEquals(12182, ClusterWatch.slotOf("foo"), "Redis's own example");
    }

    @Test
    void everySlotHasAShortTagThatHashesToIt() {
        for (int slot = 0; slot < ClusterWatch.SLOTS; slot += 97) {
            String tag = ClusterWatch.tagOf(slot);
            assertTrue(tag.length() <= 4, tag);
            assertEquals(slot, RedisClusterGroup.slotOf("{" + tag + "}redlock:{any}"), tag);
        }
        assertEquals(ClusterWatch.tagOf(8192), ClusterWatch.tagOf(8192), "the same tag for every client");
        assertThrows(IllegalArgumentException.class, () -> ClusterWatch.tagOf(16384));
    }

    @Test
    void nodesSitInTheMiddleOfEqualRanges() {
        assertEquals(2730, ClusterWatch.slotOfNode(0, 3));
        assertEquals(8192, ClusterWatch.slotOfNode(1, 3));
        assertEquals(13653, ClusterWatch.slotOfNode(2, 3));
        for (int n = 3; n <= 99; n++) {
            Set<Integer> slots = new HashSet<>();
            for (int k = 0; k < n; k++) {
                int slot = ClusterWatch.slotOfNode(k, n);
                assertTrue(slot >= k * 16384 / n && slot < (k + 1) * 16384 / n + 1, n + "/" + k);
                slots.add(slot);
            }
            assertEquals(n, slots.size());
        }
    }

    @Test
    void everyKeyOfAScriptGetsTheTagAndTheArgumentsDoNot() {
        String[] call = {"EVALSHA", "sha", "2", "redlock:{a}", "redlock:{a}:t:tok", "tok", "1000"};
        assertArrayEquals(
                new String[] {"EVALSHA", "sha", "2", "{x1}redlock:{a}", "{x1}redlock:{a}:t:tok", "tok", "1000"},
                NodeOp.tagged(call, "{x1}", false));
        String[] inspect = {"EVALSHA", "sha", "1", "redlock:{a}", "redlock:client:"};
        assertEquals("{x1}redlock:client:", NodeOp.tagged(inspect, "{x1}", true)[4]);
        String[] none = {"EVALSHA", "sha", "1", "redlock:{a}", ""};
        assertEquals("", NodeOp.tagged(none, "{x1}", true)[4], "an empty prefix stays empty: read no entry");
    }

    @Test
    void shortLivedConnectionsTagKeysAndUntagWhatScanReturns() {
        assertArrayEquals(new String[] {"DEL", "{t}a", "{t}b"}, KeyTags.command(new String[] {"DEL", "a", "b"}, "{t}"));
        assertArrayEquals(
                new String[] {"HMGET", "{t}m", "id", "intact"},
                KeyTags.command(new String[] {"HMGET", "m", "id", "intact"}, "{t}"));
        assertArrayEquals(
                new String[] {"SCAN", "0", "MATCH", "{t}redlock:*:fence", "COUNT", "100"},
                KeyTags.command(new String[] {"SCAN", "0", "MATCH", "redlock:*:fence", "COUNT", "100"}, "{t}"));
        assertArrayEquals(new String[] {"INFO", "server"}, KeyTags.command(new String[] {"INFO", "server"}, "{t}"));
        assertThrows(IllegalArgumentException.class, () -> KeyTags.command(new String[] {"SCAN", "0"}, "{t}"));
        Object page = List.of("7".getBytes(), List.of("{t}redlock:x".getBytes(), "other".getBytes()));
        List<?> keys = (List<?>) ((List<?>) KeyTags.reply(new String[] {"SCAN", "0"}, page, "{t}")).get(1);
        assertEquals("redlock:x", new String((byte[]) keys.get(0)));
        assertEquals("other", new String((byte[]) keys.get(1)));
    }
}
