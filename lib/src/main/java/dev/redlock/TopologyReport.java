/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a topology check found: returned by {@link RedlockClient#check()} and computed when a client is created with
 * {@link RedlockConfig#checkTopology()} on.
 *
 * <p>Each warning is a sentence that names the node(s) or the settings it is about. Warnings come in two kinds:
 * {@linkplain #problems() problems} (two nodes that are one server, replicas, an eviction policy that can drop lock
 * keys, an even or too small N, a lease time that leaves little validity), on which
 * {@link RedlockConfig#strictTopology()} fails; and {@linkplain #unchecked() things that could not be checked} (a node
 * that cannot be reached, a setting the node would not report), which are logged but never fail strict mode, since
 * nodes may legitimately be down when a client starts.
 *
 * <p>Immutable and thread-safe.
 */
public final class TopologyReport {

    private final List<String> problems;
    private final List<String> unchecked;
    private final List<String> failures;
    private final List<String> warnings;
    private final List<String> quarantined;
    private final String noQuorum;

    private TopologyReport(
            List<String> problems,
            List<String> unchecked,
            List<String> failures,
            List<String> quarantined,
            String noQuorum) {
        this.quarantined = List.copyOf(quarantined);
        this.noQuorum = noQuorum;
        this.problems = List.copyOf(problems);
        this.unchecked = List.copyOf(unchecked);
        this.failures = List.copyOf(failures);
        List<String> all = new ArrayList<>(this.problems);
        all.addAll(this.unchecked);
        this.warnings = List.copyOf(all);
    }

    /**
     * Creates a report. For the library's own use and for tests.
     *
     * @param problems warnings that {@link RedlockConfig#strictTopology()} fails on
     * @param unchecked warnings about what could not be checked (unreachable node, unreadable setting)
     * @return the report
     */
    public static TopologyReport of(List<String> problems, List<String> unchecked) {
        return new TopologyReport(problems, unchecked, List.of(), List.of(), null);
    }

    /**
     * Creates a report with failed nodes. For the library's own use and for tests.
     *
     * @param problems warnings that {@link RedlockConfig#strictTopology()} fails on; should include the failures
     * @param unchecked warnings about what could not be checked
     * @param failures nodes that cannot do their part (cannot release, or cannot vote), each naming the node and why
     * @return the report
     */
    public static TopologyReport of(List<String> problems, List<String> unchecked, List<String> failures) {
        return new TopologyReport(problems, unchecked, failures, List.of(), null);
    }

    /**
     * Creates a report with failed nodes and, if fewer nodes than a majority can take part, why. For the library's own
     * use and for tests.
     *
     * @param problems warnings that {@link RedlockConfig#strictTopology()} fails on; should include the failures
     * @param unchecked warnings about what could not be checked
     * @param failures nodes that cannot do their part, each naming the node and why
     * @param quarantined nodes whose votes do not count now under restart protection, each naming the node, why, and
     *     for about how long
     * @param noQuorum the sentence {@link #noQuorum()} returns, or null when a majority of the nodes can take part
     * @return the report
     */
    public static TopologyReport of(
            List<String> problems,
            List<String> unchecked,
            List<String> failures,
            List<String> quarantined,
            String noQuorum) {
        return new TopologyReport(problems, unchecked, failures, quarantined, noQuorum);
    }

    /**
     * Returns the nodes whose votes do not count now under restart protection (a node that started, restarted or
     * lost its data less than the longest lease plus drift ago, see {@link RedlockConfig#restartQuarantine()}), each
     * naming the node, why, and about how many seconds are left. Empty for a report made without a client's knowledge
     * of the nodes, and until the client has read a node's {@code INFO}. Not warnings: this is how restart protection
     * keeps locks safe, and it ends by itself.
     *
     * @return an unmodifiable list
     */
    public List<String> quarantined() {
        return quarantined;
    }

    /**
     * Returns why no lock can be acquired now, if fewer nodes than a RedLock's majority can take part: a sentence that
     * names each node that cannot, and why (not reachable, authentication failed, a TLS handshake failed, unable to
     * vote or release, or restart protection with the seconds left), and what to do. Nodes may legitimately be down when a client starts, so this never fails
     * {@link RedlockConfig#strictTopology()}; {@code redlock check} exits with status 69 on it.
     *
     * @return the sentence, or empty when a majority of the nodes can take part
     */
    public Optional<String> noQuorum() {
        return Optional.ofNullable(noQuorum);
    }

    /**
     * Returns the nodes that cannot do their part, each naming the node and why: a node that refuses a command the
     * library needs (such as {@code EVALSHA} or, inside a script, {@code DEL}) may grant locks that no release can
     * remove before their TTL; a node whose identity cannot be read (INFO refused) never votes while restart
     * quarantine is on. These are {@linkplain #problems() problems} too, so strict mode fails on them.
     *
     * @return an unmodifiable list, empty if every node can do its part
     */
    public List<String> failures() {
        return failures;
    }

    /**
     * Returns every warning: the {@linkplain #problems() problems} first, then what could not be
     * {@linkplain #unchecked() checked}.
     *
     * @return an unmodifiable list, empty if the check found nothing
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * Returns the warnings that {@link RedlockConfig#strictTopology()} turns into failures: everything except what
     * could not be checked.
     *
     * @return an unmodifiable list
     */
    public List<String> problems() {
        return problems;
    }

    /**
     * Returns the warnings about what could not be checked: a node that could not be reached ("cannot check"), or
     * a setting it would not report. These never fail strict mode.
     *
     * @return an unmodifiable list
     */
    public List<String> unchecked() {
        return unchecked;
    }

    /**
     * Returns whether the check found nothing at all to warn about.
     *
     * @return true if there are no warnings
     */
    public boolean isClean() {
        return warnings.isEmpty();
    }

    @Override
    public String toString() {
        if (noQuorum != null) {
            return "TopologyReport{" + noQuorum + "; " + warnings.size() + " warning(s): " + String.join("; ", warnings)
                    + "}";
        }
        if (isClean()) {
            return "TopologyReport{clean}";
        }
        return "TopologyReport{" + warnings.size() + " warning(s): " + String.join("; ", warnings) + "}";
    }
}
