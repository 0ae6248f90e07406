/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.RedlockConfig;
import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * The node-level repair of fencing counters, against three real nodes: two intact, one that lost its data. A node is
 * marked intact only once every counter of the sources is in it.
 */
class FencingRepairTest {

    private final List<RedisServer> servers = new ArrayList<>();

    @BeforeEach
    void start() {
        for (int i = 0; i < 3; i++) {
            servers.add(RedisServer.start());
        }
    }

    @AfterEach
    void stop() {
        servers.forEach(RedisServer::close);
    }

    /** Nodes 0 and 1 intact with {@code counters} counters at 100 under {@code prefix}; node 2 lost its data. */
    private void seed(String prefix, int counters) {
        for (int i = 0; i < 3; i++) {
            try (Jedis j = servers.get(i).client()) {
                j.hset(
                        prefix + "node-incarnation",
                        Map.of("id", "m" + i, "run", "r" + i, "born", "0", "intact", i == 2 ? "0" : "1"));
                if (i < 2) {
                    Pipeline p = j.pipelined();
                    for (int k = 0; k < counters; k++) {
                        p.hset(prefix + "{k" + k + "}:fence", "v", "100");
                    }
                    p.sync();
                }
            }
        }
    }

    private FencingRepair repair(String prefix) {
        List<String> uris = new ArrayList<>();
        for (RedisServer s : servers) {
            uris.add(s.uri());
        }
        RedlockConfig config = RedlockConfig.builder()
                .nodes(uris)
                .keyPrefix(prefix)
                .restartQuarantine(true)
                .build();
        return new FencingRepair(config, new Quarantine(config), "repair-test");
    }

    private String target(String field, String key) {
        try (Jedis j = servers.get(2).client()) {
            return j.hget(key, field);
        }
    }

    private long targetKeys() {
        try (Jedis j = servers.get(2).client()) {
            return j.dbSize();
        }
    }

    @Test
    void aRepairedNodeHasEveryCounterAndIsMarkedIntact() {
        seed("redlock:", 1_000);
        try (FencingRepair repair = repair("redlock:")) {
            repair.request();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> "1".equals(target("intact", "redlock:node-incarnation")));
        }
        for (int k = 0; k < 1_000; k += 97) {
            assertEquals("100", target("v", "redlock:{k" + k + "}:fence"));
            assertEquals("m2", target("inc", "redlock:{k" + k + "}:fence"), "tagged with the node's incarnation");
        }
    }

    @Test
    void closingDuringACopyNeverMarksTheNodeIntact() throws Exception {
        seed("redlock:", 60_000);
        FencingRepair repair = repair("redlock:");
        repair.request();
        // The copy has begun once node 2 holds anything besides its marker. (Waiting for one named counter instead
        // waits for wherever SCAN's order puts it: on a slow machine, past the whole copy's first seconds.)
        await().atMost(Duration.ofSeconds(30)).until(() -> targetKeys() > 1);
        repair.close(); // mid-copy: most counters are still missing on node 2
        long copied = targetKeys() - 1;
        assertTrue(copied < 60_000, "closed mid-copy, after " + copied + " of 60000 counters");
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !"1".equals(target("intact", "redlock:node-incarnation")));
    }

    @Test
    void aKeyPrefixWithGlobCharactersIsMatchedLiterally() {
        String prefix = "app[1]*?:";
        seed(prefix, 3);
        try (FencingRepair repair = repair(prefix)) {
            repair.request();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> "1".equals(target("intact", prefix + "node-incarnation")));
        }
        assertEquals("100", target("v", prefix + "{k2}:fence"));
        assertNotEquals(null, target("inc", prefix + "{k0}:fence"));
    }
}
