/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import static dev.redlock.internal.node.LateAcquireTest.acquire;
import static dev.redlock.internal.node.LateAcquireTest.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.QuorumPolicy;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.script.LockRef;
import dev.redlock.testkit.RedisServer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A plain lock's single attempt (waiter "-") ignores the hand-over queue and takes no place: it is sent as the plain
 * acquire, without the queue's keys and words, which cost each node's script a third more time on the uncontended
 * path. Seen failing before that: the attempt carried the three queue keys and the words {@code q 0 - <window>}. A
 * waiter's attempt still goes through the queue.
 */
class SingleAttemptCommandTest {

    private static RedisServer server;

    @BeforeAll
    static void start() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aSingleAttemptSendsThePlainAcquire() {
        LockRef plain = new LockRef("single", "redlock:{single}", QuorumPolicy.MAJORITY);
        String token = Tokens.next();
        String[] single = acquire(plain.handOver(1_000).begin("-", 0), token).arguments();
        assertArrayEquals(acquire(plain, token).arguments(), single, "a single attempt is the plain acquire");
        String[] waiter = acquire(plain.handOver(1_000).begin("c1", 42), token).arguments();
        assertTrue(Arrays.asList(waiter).contains("redlock:{single}:q"), "a waiter's attempt names the queue");
    }

    @Test
    void aSingleAttemptIgnoresTheQueueAsBefore() {
        LockRef queued = new LockRef("barge", "redlock:{barge}", QuorumPolicy.MAJORITY).handOver(1_000);
        try (Jedis jedis = server.client()) {
            // Another client's waiter is refused while the lock is held, and takes its place in the queue.
            jedis.set("redlock:{barge}", "holder");
            Object refused = run(jedis, acquire(queued.begin("c2", 7), Tokens.next()));
            assertEquals(0L, ((List<?>) refused).get(0), "refused while held");
            assertEquals(1L, jedis.zcard("redlock:{barge}:q"), "the refused waiter holds a place");
            jedis.del("redlock:{barge}");
            // The lock is free: the queued client's waiter is at the head, yet a single attempt is granted, and
            // takes no place.
            assertEquals(1L, run(jedis, acquire(queued.begin("-", 0), Tokens.next())));
            assertEquals(1L, jedis.zcard("redlock:{barge}:q"), "a single attempt takes no place");
        }
    }
}
