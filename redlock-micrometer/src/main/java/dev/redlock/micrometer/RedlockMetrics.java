/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.micrometer;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.Lease;
import dev.redlock.LockKind;
import dev.redlock.LockLostException;
import dev.redlock.NodeOutcome;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockListener;
import dev.redlock.RoundOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Micrometer meters for a {@link RedlockClient}. Register it as the client's listener, then bind the gauges to the
 * client:
 *
 * <pre>{@code
 * RedlockMetrics metrics = new RedlockMetrics(registry);
 * RedlockClient client = RedlockClient.create(RedlockConfig.builder().nodes(uris).listener(metrics).build());
 * metrics.bindTo(client);
 * }</pre>
 *
 * <p>Meters (names in Micrometer's dotted form; each registry renders them its own way):
 * <ul>
 *   <li>{@value #ACQUIRE} (timer): every acquisition from call to result, tagged {@code kind} ({@link LockKind} in
 *       lower case: {@code redlock}, {@code multilock}, {@code fair}, {@code read}, {@code write},
 *       {@code multi_resource}) and {@code outcome} ({@code acquired}, or the {@link FailureReason} in lower case:
 *       {@code busy}, {@code not_enough_nodes}, ...).</li>
 *   <li>{@value #NODE_OUTCOMES} (counter): each node's answer in every acquire round, tagged {@code node} (the node's
 *       name, as {@link RedlockClient#nodeNames()} gives it, never with a password) and {@code status}
 *       ({@code granted}, {@code taken}, {@code timeout}, {@code error}, {@code circuit_open}, {@code quarantined},
 *       {@code pending}).</li>
 *   <li>{@value #ACTIVE} and {@value #WATCHED} (gauges, once bound): leases held, and leases the watchdog keeps.</li>
 *   <li>{@value #LOST} (counter, tagged {@code reason}) and {@value #EXTENSIONS_FAILED} (counter).</li>
 *   <li>{@value #RESTART_PROTECTED_NODES} (gauge, once bound): how many nodes restart protection keeps from voting
 *       now ({@link RedlockClient#restartProtection()}). While the configured nodes minus this are below a quorum, no
 *       lock can be had although every node answers.</li>
 *   <li>{@value #RESTART_PROTECTION_REMAINING} (gauge per node, once bound, in seconds, tagged {@code node}): about
 *       how many seconds are left until the node's votes count again, rounded up to a whole second; 0 when its votes
 *       count.</li>
 * </ul>
 *
 * <p>No meter is tagged with a lock's name: names are unbounded, and one meter per name would grow the registry
 * without limit. Every tag takes its values from a small fixed set, or from the configured nodes.
 *
 * <p>Thread-safe; its methods are called on the client's threads and only update meters.
 */
public final class RedlockMetrics implements RedlockListener {

    /** The acquisition timer's name. */
    public static final String ACQUIRE = "redlock.acquire";
    /** The per-node outcome counter's name. */
    public static final String NODE_OUTCOMES = "redlock.node.outcomes";
    /** The held-leases gauge's name. */
    public static final String ACTIVE = "redlock.leases.active";
    /** The watched-leases gauge's name. */
    public static final String WATCHED = "redlock.leases.watched";
    /** The lost-leases counter's name. */
    public static final String LOST = "redlock.leases.lost";
    /** The failed-extensions counter's name. */
    public static final String EXTENSIONS_FAILED = "redlock.extensions.failed";
    /** The name of the gauge of nodes kept from voting by restart protection. */
    public static final String RESTART_PROTECTED_NODES = "redlock.nodes.restart.protected";
    /** The name of the per-node gauge of seconds left under restart protection. */
    public static final String RESTART_PROTECTION_REMAINING = "redlock.node.restart.protection.remaining";

    /** How {@link RedlockClient#restartProtection()} states the time left: "... count again in about 12 s (...)". */
    private static final Pattern SECONDS_LEFT = Pattern.compile("\\bin about (\\d+) s\\b");

    private final MeterRegistry registry;
    private final Tags common;

    /**
     * Creates the meters' listener.
     *
     * @param registry where the meters go
     */
    public RedlockMetrics(MeterRegistry registry) {
        this(registry, Tags.empty());
    }

    /**
     * Creates the meters' listener with tags added to every meter (for example the client's name, when one
     * application runs several clients).
     *
     * @param registry where the meters go
     * @param tags tags on every meter
     */
    public RedlockMetrics(MeterRegistry registry, Iterable<io.micrometer.core.instrument.Tag> tags) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.common = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    /**
     * Registers the gauges of {@code client}: held and watched leases, the nodes under restart protection, and per
     * node the seconds left under it. The gauges read what the client already knows (no I/O) and hold the client
     * weakly, as Micrometer gauges do: a client that is gone reads as NaN.
     *
     * @param client the client whose listener this is
     * @return this
     */
    public RedlockMetrics bindTo(RedlockClient client) {
        Objects.requireNonNull(client, "client");
        Gauge.builder(ACTIVE, client, RedlockClient::activeLeases)
                .description("Leases this client holds: acquired, neither released nor lost, still valid")
                .tags(common)
                .register(registry);
        Gauge.builder(WATCHED, client, RedlockClient::autoExtendedLeases)
                .description("Leases the client's watchdog keeps extending")
                .tags(common)
                .register(registry);
        Gauge.builder(
                        RESTART_PROTECTED_NODES,
                        client,
                        c -> c.restartProtection().size())
                .description("Nodes whose votes do not count now: restart protection keeps out a node that started, "
                        + "restarted or lost its data less than the longest lease in use ago")
                .tags(common)
                .register(registry);
        for (String node : client.nodeNames()) {
            Gauge.builder(
                            RESTART_PROTECTION_REMAINING,
                            client,
                            c -> secondsLeft(c.restartProtection().get(node)))
                    .description("About how many seconds are left until the node's votes count again; 0 when they"
                            + " count")
                    .baseUnit("seconds")
                    .tags(common)
                    .tag("node", node)
                    .register(registry);
        }
        return this;
    }

    /**
     * The seconds left in one node's restart protection sentence, 0 for a node that votes, NaN when the sentence does
     * not say.
     */
    static double secondsLeft(String protection) {
        if (protection == null) {
            return 0;
        }
        Matcher m = SECONDS_LEFT.matcher(protection);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    @Override
    public void acquisitionEnded(LockKind kind, AcquireResult result, Duration elapsed) {
        String outcome = result.acquired() ? "acquired" : lower(result.reason().name());
        Timer.builder(ACQUIRE)
                .description("Acquisitions, from the call to the result, including the rounds and waits between them")
                .tags(common)
                .tag("kind", lower(kind.name()))
                .tag("outcome", outcome)
                .register(registry)
                .record(elapsed);
    }

    @Override
    public void acquireRound(LockKind kind, RoundOutcome round) {
        for (NodeOutcome node : round.nodes()) {
            Counter.builder(NODE_OUTCOMES)
                    .description("Each node's answer in the acquire rounds")
                    .tags(common)
                    .tag("node", node.node())
                    .tag("status", lower(node.status().name()))
                    .register(registry)
                    .increment();
        }
    }

    @Override
    public void extensionFailed(Lease lease, RoundOutcome round) {
        Counter.builder(EXTENSIONS_FAILED)
                .description("Extensions (the watchdog's or a caller's) that failed")
                .tags(common)
                .register(registry)
                .increment();
    }

    @Override
    public void leaseLost(Lease lease, LockLostException cause) {
        Counter.builder(LOST)
                .description("Leases lost while held")
                .tags(common)
                .tag("reason", lower(cause.reason().name()))
                .register(registry)
                .increment();
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
