/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The least a node's ACL must allow, as the documentation gives it: a user with exactly these commands, keys and
 * channels can lock, pass the topology check, fence, and be woken by releases; one command fewer and the check says
 * which.
 */
class MinimalAclTest extends RedisBackedTest {

    /** The documented rule (README, "Compatibility"), for the default key prefix {@code redlock:}. */
    static final String RULE = "resetkeys ~redlock:* resetchannels &redlock:* -@all"
            + " +evalsha +eval +script|load +info +ping +subscribe +unsubscribe +publish"
            + " +get +set +del +exists +pexpire +pttl +time +hget +hmget +hset"
            + " +zadd +zcard +zrange +zrangebyscore +zrem +zremrangebyscore +zscore +scan";

    private static final String USER = "redlock-minimal";

    private static void setUser(String rule) {
        for (int i = 0; i < 5; i++) {
            try (Jedis admin = node(i).client()) {
                admin.aclDelUser(USER);
                List<String> args = new ArrayList<>(List.of("reset", "on", ">minimal-pw"));
                args.addAll(List.of(rule.split(" ")));
                admin.aclSetUser(USER, args.toArray(new String[0]));
            }
        }
    }

    @AfterEach
    void dropUser() {
        for (int i = 0; i < 5; i++) {
            try (Jedis admin = node(i).client()) {
                admin.aclDelUser(USER);
            }
        }
    }

    private static List<String> uris() {
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            uris.add(node(i).uri().replace("://", "://" + USER + ":minimal-pw@"));
        }
        return uris;
    }

    @Test
    void aUserWithTheDocumentedRuleLocksPassesTheCheckFencesAndIsWoken() throws Exception {
        setUser(RULE);
        RedlockClient holder = client(uris(), b -> b.restartQuarantine(true).leaseTime(Duration.ofSeconds(2)));
        RestartProtectionTest.awaitTrusted(holder);
        TopologyReport report = holder.check();
        assertTrue(report.failures().isEmpty(), report::toString);

        Lease fenced = holder.redLock("acl-fenced")
                .fenced()
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(2))
                .orElseThrow();
        assertTrue(fenced.fencingToken().isPresent(), fenced::toString);
        fenced.release();

        // Notifications, with clients that leave restart protection out (the nodes started moments ago).
        RedlockClient releaser = client(uris(), b -> {});
        RedlockClient waiter =
                client(uris(), b -> b.retryDelay(Duration.ofSeconds(30)).retryJitter(0));
        Lease held = releaser.redLock("acl-notify")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(60))
                .orElseThrow();
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return waiter.redLock("acl-notify").tryAcquire(Duration.ofSeconds(25), Duration.ofSeconds(10));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                runnable -> new Thread(runnable, "acl-waiter").start());
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (Jedis j = node(0).client()) {
                return !j.pubsubChannels(held.key() + "*").isEmpty();
            }
        });
        held.release();
        Optional<Lease> got = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(got.isPresent(), "woken by the release, not by a 30 s poll");
        got.get().release();
    }

    @Test
    void oneCommandFewerAndTheCheckNamesIt() {
        setUser(RULE.replace(" +pexpire", ""));
        RedlockClient c = client(uris(), b -> b.checkTopology(false));
        TopologyReport report = c.check();
        assertFalse(report.failures().isEmpty(), report::toString);
        assertTrue(report.failures().get(0).toLowerCase(java.util.Locale.ROOT).contains("pexpire"), report::toString);
    }
}
