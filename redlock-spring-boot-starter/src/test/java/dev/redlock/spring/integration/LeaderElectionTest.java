/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.redlock.RedlockClient;
import dev.redlock.spring.RedlockAutoConfiguration;
import dev.redlock.spring.TestNodes;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Leader election with Spring Integration's {@link LockRegistryLeaderInitiator} over the auto-configured
 * {@link RedlockLockRegistry}: three application contexts, each with its own client, registry and initiator for the
 * same role, over five real Redis masters. Every {@code onGranted} and {@code onRevoked} is recorded with its time,
 * and the history is checked for moments at which two candidates believed they were leader: none while a lease is
 * lost to a crash (the old leader steps down before its keys expire); on a shutdown only between the old leader's
 * release and its {@code onRevoked} (the initiator's order); after a forced unlock only until the old leader's next
 * heartbeat.
 */
class LeaderElectionTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    private static final String ROLE = "cluster-leader";
    private static final long HEART_BEAT_MILLIS = 200;
    private static final Duration LEASE_TIME = Duration.ofSeconds(2);
    private static final Duration PER_NODE_TIMEOUT = Duration.ofMillis(200);

    private final History history = new History();
    private final Map<String, ConfigurableApplicationContext> contexts = new LinkedHashMap<>();

    @AfterEach
    void closeContexts() {
        contexts.values().forEach(ConfigurableApplicationContext::close);
        System.out.println("leader history: " + history);
        assertThat(history.violations()).as("history %s", history).isEmpty();
    }

    private void start(String... ids) {
        for (String id : ids) {
            ConfigurableApplicationContext context = new SpringApplicationBuilder(LeaderApplication.class)
                    .web(WebApplicationType.NONE)
                    .bannerMode(Banner.Mode.OFF)
                    .logStartupInfo(false)
                    .initializers(c -> c.getBeanFactory().registerSingleton("leaderHistory", history))
                    .properties(TestNodes.properties(REDIS.uris()))
                    .properties(
                            "redlock.integration.lease-time=" + LEASE_TIME.toMillis() + "ms",
                            "redlock.per-node-timeout=" + PER_NODE_TIMEOUT.toMillis() + "ms",
                            "redlock.check-topology=false",
                            "candidate.id=" + id)
                    .run();
            contexts.put(id, context);
        }
    }

    /** Waits for exactly one leader and returns it. */
    private String oneLeader(Duration atMost) {
        return await().atMost(atMost)
                .pollInterval(Duration.ofMillis(10))
                .until(history::leaders, leaders -> leaders.size() == 1)
                .iterator()
                .next();
    }

    /** Samples the candidates for a while: {@code leader} stays the one and only leader all along. */
    private void staysSoleLeader(String leader, Duration during) {
        await().during(during)
                .atMost(during.plusSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> history.leaders().equals(Set.of(leader)));
    }

    @Test
    void oneLeaderAtATimeThroughACrashAndAShutdown() {
        start("a", "b", "c");
        String first = oneLeader(Duration.ofSeconds(10));
        staysSoleLeader(first, Duration.ofSeconds(1));

        // The leader's client dies without releasing: its lease stays on the nodes until its TTL runs out.
        long crash = System.nanoTime();
        contexts.get(first).getBean(RedlockClient.class).close();
        String second = await().atMost(LEASE_TIME.plusSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(history::leaders, leaders -> leaders.size() == 1 && !leaders.contains(first))
                .iterator()
                .next();
        long revokedAfter = history.first(first, false, crash).orElseThrow() - crash;
        long grantedAfter = history.first(second, true, crash).orElseThrow() - crash;
        assertThat(Duration.ofNanos(revokedAfter))
                .as("the crashed leader learns it at its next heartbeat")
                .isLessThan(Duration.ofMillis(HEART_BEAT_MILLIS)
                        .plus(PER_NODE_TIMEOUT)
                        .plusMillis(500));
        assertThat(Duration.ofNanos(grantedAfter))
                .as("a new leader once the lease's TTL has run out")
                .isGreaterThan(Duration.ofNanos(revokedAfter))
                .isLessThan(LEASE_TIME.plusSeconds(2));
        staysSoleLeader(second, Duration.ofSeconds(1));
        assertThat(history.overlaps())
                .as("moments with two leaders in %s", history)
                .isEmpty();

        // The new leader's application shuts down: it releases, and the last candidate takes over at once.
        long shutdown = System.nanoTime();
        contexts.remove(second).close();
        // stop() cancels the selector without waiting for it: its unlock and onRevoked may come after close()
        // returns, so wait for the leader that is not the one shutting down.
        String third = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(history::leaders, leaders -> leaders.size() == 1 && !leaders.contains(second))
                .iterator()
                .next();
        assertThat(third).isNotIn(first, second);
        staysSoleLeader(third, Duration.ofMillis(500));
        long secondRevoked = history.first(second, false, shutdown).orElseThrow();
        // LockRegistryLeaderInitiator unlocks before it calls onRevoked, so on a shutdown (or a yield) the next
        // candidate may be granted between the two: an overlap is possible only within that window.
        assertThat(history.overlaps())
                .as("moments with two leaders in %s", history)
                .allSatisfy(w -> assertThat(w[0]).isGreaterThanOrEqualTo(shutdown))
                .allSatisfy(w -> assertThat(w[1]).isLessThanOrEqualTo(secondRevoked));
    }

    @Test
    void aForceUnlockedLeaderStepsDownAtItsNextHeartbeat() {
        start("a", "b", "c");
        String leader = oneLeader(Duration.ofSeconds(10));
        staysSoleLeader(leader, Duration.ofMillis(500));

        long forced;
        long forcedDone;
        try (RedlockClient admin = TestNodes.client(REDIS.uris())) {
            forced = System.nanoTime();
            admin.forceUnlock(ROLE);
            forcedDone = System.nanoTime(); // up to two per-node timeouts later on a loaded machine
        }
        long revoked = await().atMost(Duration.ofSeconds(3))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> history.first(leader, false, forced), OptionalLong::isPresent)
                .getAsLong();
        assertThat(Duration.ofNanos(revoked - forcedDone))
                .as("the old leader learns it at its next heartbeat")
                .isLessThan(Duration.ofMillis(HEART_BEAT_MILLIS)
                        .plus(PER_NODE_TIMEOUT)
                        .plusMillis(500));
        String next = oneLeader(Duration.ofSeconds(5));
        staysSoleLeader(next, Duration.ofSeconds(1));

        // forceUnlock deletes a live holder's keys, so a waiting candidate may be granted before the old leader's
        // heartbeat finds out: two leaders are possible only in that window, never outside it.
        assertThat(history.overlaps())
                .as("moments with two leaders in %s", history)
                .allSatisfy(w -> assertThat(w[0]).isGreaterThanOrEqualTo(forced))
                .allSatisfy(w -> assertThat(w[1]).isLessThanOrEqualTo(revoked));
    }

    /** One candidate's {@code onGranted} ({@code granted}) or {@code onRevoked}, at {@code nanos}. */
    record Event(String candidate, boolean granted, long nanos) {}

    /** Every candidate's grants and revocations, in the order they happened. */
    static final class History {

        private final List<Event> events = new ArrayList<>();
        private final Set<String> leaders = new LinkedHashSet<>();
        private final List<Event> violations = new ArrayList<>();

        /** Called on the initiators' threads, so it records inconsistencies instead of throwing. */
        synchronized void record(String candidate, boolean granted) {
            Event event = new Event(candidate, granted, System.nanoTime());
            events.add(event);
            if (granted ? !leaders.add(candidate) : !leaders.remove(candidate)) {
                violations.add(event);
            }
        }

        /** Grants of a candidate that was leader already, revocations of one that was not. */
        synchronized List<Event> violations() {
            return List.copyOf(violations);
        }

        synchronized Set<String> leaders() {
            return Set.copyOf(leaders);
        }

        synchronized List<Event> events() {
            return List.copyOf(events);
        }

        /** When {@code candidate} was first granted (or revoked) after {@code since}. */
        synchronized OptionalLong first(String candidate, boolean granted, long since) {
            return events.stream()
                    .filter(e -> e.candidate().equals(candidate) && e.granted() == granted && e.nanos() - since >= 0)
                    .mapToLong(Event::nanos)
                    .findFirst();
        }

        @Override
        public synchronized String toString() {
            if (events.isEmpty()) {
                return "[]";
            }
            long t0 = events.get(0).nanos();
            StringBuilder s = new StringBuilder("[");
            for (Event e : events) {
                s.append(s.length() > 1 ? ", " : "")
                        .append(e.candidate())
                        .append(e.granted() ? " granted" : " revoked")
                        .append(" +")
                        .append((e.nanos() - t0) / 1_000_000)
                        .append("ms");
            }
            return s.append(']').toString();
        }

        /** The [start, end] times at which two or more candidates were leader at once. */
        synchronized List<long[]> overlaps() {
            List<long[]> windows = new ArrayList<>();
            Set<String> current = new LinkedHashSet<>();
            long start = 0;
            for (Event e : events) {
                boolean wasOverlap = current.size() > 1;
                if (e.granted()) {
                    current.add(e.candidate());
                } else {
                    current.remove(e.candidate());
                }
                if (!wasOverlap && current.size() > 1) {
                    start = e.nanos();
                } else if (wasOverlap && current.size() <= 1) {
                    windows.add(new long[] {start, e.nanos()});
                }
            }
            if (current.size() > 1) {
                windows.add(new long[] {start, Long.MAX_VALUE});
            }
            return windows;
        }
    }

    /** A candidate that records its grants and revocations. */
    static final class RecordingCandidate extends AbstractCandidate {

        private final History history;

        RecordingCandidate(String id, String role, History history) {
            super(id, role);
            this.history = history;
        }

        @Override
        public void onGranted(Context ctx) {
            history.record(getId(), true);
        }

        @Override
        public void onRevoked(Context ctx) {
            history.record(getId(), false);
        }
    }

    /** One application instance: the auto-configured client and registry, and an initiator for {@link #ROLE}. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @ImportAutoConfiguration({RedlockAutoConfiguration.class, RedlockIntegrationAutoConfiguration.class})
    static class LeaderApplication {

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(
                LockRegistry lockRegistry, History leaderHistory, @Value("${candidate.id}") String id) {
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(lockRegistry, new RecordingCandidate(id, ROLE, leaderHistory));
            initiator.setHeartBeatMillis(HEART_BEAT_MILLIS);
            initiator.setBusyWaitMillis(50);
            return initiator;
        }
    }
}
