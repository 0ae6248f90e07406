/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What {@link Secrets#mask} hides and what it keeps. */
class SecretsTest {

    @Test
    void masksEverythingUpToTheLastAtSignOfTheUri() {
        assertEquals("redis://:***@10.0.0.1:6379", Secrets.mask("redis://:My/Secret@10.0.0.1:6379"));
        assertEquals("'redis://:***@10.0.0.1'", Secrets.mask("'redis://:p@ss@10.0.0.1'"));
        assertEquals("'redis://:***@10.0.0.1'", Secrets.mask("'redis://:pass word@10.0.0.1'"));
        assertEquals("REDISS://admin:***@h:1/2", Secrets.mask("REDISS://admin:Top/S3cret@h:1/2"));
        assertEquals("redis://***@h", Secrets.mask("redis://onlyuser@h"));
    }

    @Test
    void keepsHostsAndOtherUrisOnTheLineApart() {
        assertEquals(
                "Unmatched arguments from index 2: 'redis://:***@h1', 'redis://u:***@h2', 'redis://h3'",
                Secrets.mask("Unmatched arguments from index 2: 'redis://:a@h1', 'redis://u:b/c@h2', 'redis://h3'"));
        assertEquals("redis://h1:6379 is down", Secrets.mask("redis://h1:6379 is down"));
        assertEquals("line redis://:***@h\nnext line foo@bar", Secrets.mask("line redis://:pw@h\nnext line foo@bar"));
    }

    @Test
    void aPasswordHoldingASchemeIsMaskedWhole() {
        assertEquals("redis://***@h", Secrets.mask("redis://:xredis://y@h"));
        assertEquals("'redis://***@h2'", Secrets.mask("'redis://h1', 'redis://:pw@h2'"));
    }

    @Test
    void sentinelUrisAreMaskedAndTakeTheSharedPassword() {
        assertEquals(
                "redis-sentinel://:***@s1:26379,s2/mymaster",
                Secrets.mask("redis-sentinel://:Zq7@s1:26379,s2/mymaster"));
        assertEquals("REDISS-SENTINEL://u:***@s1/m", Secrets.mask("REDISS-SENTINEL://u:p/w@s1/m"));
        assertEquals("redis-sentinel://:p%40ss@s1,s2/m", NodeOptions.withPassword("redis-sentinel://s1,s2/m", "p@ss"));
        assertEquals("redis-sentinel://u:own@s1/m", NodeOptions.withPassword("redis-sentinel://u:own@s1/m", "x"));
    }

    @Test
    void clusterUrisAreMaskedAndTakeTheSharedPassword() {
        assertEquals(
                "redis-cluster://:***@c1:7000,c2:7001/?nodes=5",
                Secrets.mask("redis-cluster://:Zq7@c1:7000,c2:7001/?nodes=5"));
        assertEquals("rediss-cluster://:p%40ss@c1,c2/", NodeOptions.withPassword("rediss-cluster://c1,c2/", "p@ss"));
    }

    @Test
    void maskedTextStaysAsItIs() {
        String help = "(expected redis://[user:***@]host[:port][/db] or rediss://...)";
        assertEquals(help, Secrets.mask(help));
        assertEquals(help, Secrets.mask("(expected redis://[user:password@]host[:port][/db] or rediss://...)"));
        assertEquals("redis://u:***@h", Secrets.mask(Secrets.mask("redis://u:pw@h")));
        assertEquals("no uri @ all", Secrets.mask("no uri @ all"));
        assertEquals("", Secrets.mask(""));
    }
}
