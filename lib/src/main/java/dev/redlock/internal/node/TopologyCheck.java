/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.TopologyReport;
import dev.redlock.internal.Tokens;
import dev.redlock.internal.script.LockRef;
import dev.redlock.internal.script.LuaScript;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Inspects a configuration's nodes for setups under which Redlock's guarantees do not hold, and returns what it found
 * as a {@link TopologyReport}. Nothing here fails or throws because of what it finds; the caller decides (see
 * {@link dev.redlock.RedlockClient#check()}).
 *
 * <p>Checks, each warning naming the node(s) or numbers involved:
 * <ul>
 *   <li>configuration only, no I/O: an even N or N below 3; a lease time whose validity after a worst-case round
 *       ({@code leaseTime - drift - perNodeTimeout}) is below {@value #LEASE_MARGIN} per-node timeouts;</li>
 *   <li>two configured nodes that are the same server (same {@code run_id} in {@code INFO server}), e.g. one server
 *       under two host names: one failure takes several votes;</li>
 *   <li>a node that is a replica ({@code role:slave}) or has replicas ({@code connected_slaves > 0}): Redlock
 *       assumes independent masters, and replication is asynchronous, so a promoted replica may lack a lock key its
 *       master granted (replicas of a Sentinel-managed node are expected while restart protection is on: a failover
 *       keeps the node's votes out for a lease);</li>
 *   <li>a {@code maxmemory-policy} that may evict lock keys: {@code allkeys-*} (any key) and {@code volatile-*} (lock
 *       keys have a TTL, so they are candidates too); only {@code noeviction} is quiet.</li>
 * </ul>
 *
 * <p>A node that cannot be reached, or refuses a command ({@code CONFIG} is often renamed or disabled on managed
 * Redis), yields a "cannot check" warning, reported in {@link TopologyReport#unchecked()}: it is informational only
 * and never makes strict mode fail, because nodes may be down when a client starts.
 *
 * <p>Cost: nodes are checked one after another, each over one short-lived connection (or the user's own client) with
 * three commands: {@code INFO server}, {@code INFO replication} and {@code CONFIG GET maxmemory*}. A URI node is
 * bounded by the connect timeout plus {@code max(perNodeTimeout, 1 s)} per command, and a node whose connection fails
 * is given up at once. Thread-safe: no shared state.
 */
public final class TopologyCheck {

    /** The validity left after a worst-case round should be at least this many per-node timeouts. */
    public static final int LEASE_MARGIN = 10;

    /** The phrase in every warning about something that could not be checked, after the node's name. */
    public static final String CANNOT_CHECK = "cannot check";

    private static final Logger LOG = LoggerFactory.getLogger(TopologyCheck.class);

    private static final long MIN_SOCKET_TIMEOUT_MS = 1_000;

    private TopologyCheck() {}

    /**
     * Runs every check, synchronously.
     *
     * @param config the configuration whose nodes to inspect
     * @return the warnings found; never throws for what a node reports or for an unreachable node
     */
    public static TopologyReport run(RedlockConfig config) {
        return run(config, name -> null);
    }

    /**
     * Runs every check, synchronously, with what the client knows of restart protection.
     *
     * @param config the configuration whose nodes to inspect
     * @param quarantined for a node name, why its votes do not count now and for how long (null when they count)
     * @return the warnings found; never throws for what a node reports or for an unreachable node
     */
    public static TopologyReport run(RedlockConfig config, java.util.function.Function<String, String> quarantined) {
        List<String> problems = new ArrayList<>(configurationWarnings(config));
        List<String> unchecked = new ArrayList<>();
        List<NodeFacts> facts = new ArrayList<>();
        for (NodeSpec spec : config.nodeSpecs()) {
            facts.add(inspectSafely(spec, config, unchecked));
        }
        problems.addAll(duplicates(facts));
        List<String> failures = new ArrayList<>();
        for (NodeFacts f : facts) {
            failures.addAll(f.failures);
        }
        problems.addAll(failures);
        for (NodeFacts f : facts) {
            problems.addAll(f.problems);
        }
        List<String> standingOut = new ArrayList<>();
        for (NodeFacts f : facts) {
            String q = f.down == null && f.failures.isEmpty() ? quarantined.apply(f.name) : null;
            if (q != null) {
                f.down = q;
                standingOut.add("node " + f.name + ": " + q);
            }
        }
        return TopologyReport.of(
                problems, unchecked, failures, standingOut, noQuorum(facts, config.nodesPerLock(facts.size())));
    }

    /**
     * A sentence when fewer nodes than a RedLock's majority can take part now (not reached, authentication refused, or
     * unable to vote or release), naming each and why; null when a majority can.
     */
    private static String noQuorum(List<NodeFacts> facts, int perLock) {
        int n = facts.size();
        // With each lock on perLock of the n nodes, no lock has a quorum once fewer than a quorum of perLock remain.
        int need = QuorumPolicy.MAJORITY.required(perLock);
        List<String> out = new ArrayList<>();
        for (NodeFacts f : facts) {
            if (f.down != null) {
                out.add(f.name + " (" + f.down + ")");
            } else if (!f.failures.isEmpty()) {
                out.add(f.name + " (cannot do its part: see its failure)");
            }
        }
        int usable = n - out.size();
        if (usable >= need) {
            return null;
        }
        return "no lock can be acquired now: " + usable + " of " + n + " nodes can take part, and a RedLock needs "
                + need
                + (perLock < n ? " of its " + perLock : "")
                + " (a MultiLock all " + perLock + "); not available: " + String.join(", ", out)
                + ". Start or reach the nodes, fix their credentials, or wait out restart protection, until at least "
                + need + " can";
    }

    /** Whether a failure is the server refusing the client's credentials (Redis' WRONGPASS, NOAUTH and kin). */
    static boolean isAuthenticationFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null
                    && (m.contains("WRONGPASS")
                            || m.contains("NOAUTH")
                            || m.contains("invalid password")
                            || m.contains("invalid username-password"))) {
                return true;
            }
        }
        return false;
    }

    private static String describeDown(Throwable e) {
        if (isAuthenticationFailure(e)) {
            return "authentication failed";
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException
                    || String.valueOf(t.getMessage()).contains("TLS handshake")) {
                return "TLS handshake failed";
            }
        }
        return "not reachable";
    }

    /** The checks that need no I/O: the number of nodes and the lease time against the per-node timeout. */
    static List<String> configurationWarnings(RedlockConfig config) {
        List<String> out = new ArrayList<>();
        int all = config.nodeSpecs().size();
        // With each lock on some of the nodes, a lock's quorum is of its own n: that is the count that matters.
        int n = config.nodesPerLock(all);
        String counted = n < all ? "nodesPerLock " + n + " of " + all + " nodes" : n + " nodes configured";
        if (n < 3) {
            out.add(n + " node(s) configured: Redlock needs at least 3 independent masters to survive the failure of "
                    + "one");
        } else if (n % 2 == 0) {
            out.add(counted + ": an even N tolerates no more failures than N-1 (" + QuorumPolicy.MAJORITY.tolerated(n)
                    + "); prefer an odd N");
        }
        long ttl = config.leaseTime().toNanos();
        long drift = config.driftNanos(ttl);
        long perNode = config.perNodeTimeout().toNanos();
        long left = ttl - drift - perNode;
        if (left < LEASE_MARGIN * perNode) {
            out.add("leaseTime " + ms(ttl) + " ms leaves " + ms(left) + " ms of validity after a worst-case round "
                    + "(drift " + ms(drift) + " ms, perNodeTimeout " + ms(perNode) + " ms), less than " + LEASE_MARGIN
                    + " x perNodeTimeout (" + ms(LEASE_MARGIN * perNode) + " ms): leases may expire soon after they "
                    + "are granted; raise leaseTime or lower perNodeTimeout");
        }
        return out;
    }

    /** Groups the nodes that reported the same run_id: they are one server. */
    private static List<String> duplicates(List<NodeFacts> facts) {
        Map<String, List<String>> byRunId = new LinkedHashMap<>();
        for (NodeFacts f : facts) {
            if (f.runId != null && !f.runId.isEmpty()) {
                byRunId.computeIfAbsent(f.runId, k -> new ArrayList<>()).add(f.name);
            }
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : byRunId.entrySet()) {
            List<String> names = e.getValue();
            if (names.size() > 1) {
                out.add("nodes " + String.join(" and ", names) + " are the same Redis server (run_id "
                        + e.getKey() + "): one failure or restart takes " + names.size() + " votes, so the quorum is "
                        + "weaker than it looks; configure each server once");
            }
        }
        return out;
    }

    /** What one node reported, and the problems found on it alone. */
    private static final class NodeFacts {
        final String name;
        String runId;
        final List<String> problems = new ArrayList<>();
        /** Problems that keep the node from doing its part: it cannot release, or cannot vote. */
        final List<String> failures = new ArrayList<>();
        /** Why no lock can be had on this node now (not reached, authentication refused), or null. */
        String down;

        NodeFacts(String name) {
            this.name = name;
        }
    }

    /** The commands the check sends, over a short-lived connection of the library's own or the user's transport. */
    private record Probe(Commands node) {

        String info(String section) {
            return Commands.text(node.call("INFO", section));
        }

        Map<String, String> configGet(String pattern) {
            return Commands.pairs(node.call("CONFIG", "GET", pattern));
        }

        String scriptLoad(String source) {
            return Commands.text(node.call("SCRIPT", "LOAD", source));
        }

        Object evalsha(String sha, List<String> keyList, List<String> args) {
            return node.call(script("EVALSHA", sha, keyList, args));
        }

        Object eval(String source, List<String> keyList, List<String> args) {
            return node.call(script("EVAL", source, keyList, args));
        }

        long del(String key) {
            Object n = node.call("DEL", key);
            return n instanceof Long ? (Long) n : 0;
        }

        private static String[] script(String verb, String script, List<String> keyList, List<String> args) {
            List<String> all = new ArrayList<>(List.of(verb, script, Integer.toString(keyList.size())));
            all.addAll(keyList);
            all.addAll(args);
            return all.toArray(new String[0]);
        }
    }

    /**
     * Inspects one node, whatever it sends back: a hostile reply can make a user's client throw an Error (a huge
     * length it tries to allocate, deep nesting), which must fail this node's check, not the caller.
     */
    private static NodeFacts inspectSafely(NodeSpec spec, RedlockConfig config, List<String> unchecked) {
        try {
            return inspect(spec, config, unchecked);
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            NodeFacts facts = new NodeFacts(spec.name());
            facts.failures.add("node " + spec.name() + " answered with something that is not a Redis reply the library "
                    + "can use (" + describe(e) + "); its commands will fail");
            facts.down = "not a Redis reply the library can use";
            return facts;
        }
    }

    private static NodeFacts inspect(NodeSpec spec, RedlockConfig config, List<String> unchecked) {
        NodeFacts facts = new NodeFacts(spec.name());
        if (spec.transport() != null) {
            probe(spec, config, new Probe(Commands.of(spec.transport(), spec.name())), facts, unchecked);
            return facts;
        }
        BlockingConnection connection;
        try {
            // At least a second per reply: INFO is slower than a SET, and this is not a lock round.
            long socketMs = Math.max(config.perNodeTimeout().toMillis(), MIN_SOCKET_TIMEOUT_MS);
            connection = BlockingConnection.open(spec, config, java.time.Duration.ofMillis(socketMs));
        } catch (RuntimeException e) {
            facts.down = describeDown(e);
            unchecked.add(unreachable(spec.name(), e));
            return facts;
        }
        try {
            probe(spec, config, new Probe(connection), facts, unchecked);
        } finally {
            connection.close();
        }
        return facts;
    }

    /**
     * Sends the commands and records what they show. A refused command (error reply) skips that check only; any
     * other failure (connection refused, timeout) gives the node up, since more commands would only wait longer.
     */
    private static void probe(
            NodeSpec spec, RedlockConfig config, Probe probe, NodeFacts facts, List<String> unchecked) {
        String name = spec.name();
        try {
            boolean identityOptional = config.unverifiedIdentityNodes().contains(name);
            try {
                Map<String, String> server = parseInfo(probe.info("server"));
                facts.runId = server.get("run_id");
                if (facts.runId == null) {
                    unchecked.add("node " + name + ": " + CANNOT_CHECK + " whether it duplicates another node: "
                            + "INFO server reports no run_id");
                }
            } catch (RedisErrorReply e) {
                if (config.restartQuarantine() && !identityOptional) {
                    facts.failures.add("node " + name + ": its identity cannot be read (INFO refused: "
                            + e.getMessage() + "), so with restartQuarantine on its votes never count; grant INFO "
                            + "to the client's user, or opt the node out with unverifiedIdentity(\"" + name + "\")");
                } else {
                    unchecked.add(cannotCheck(name, "whether it duplicates another node (INFO server refused)", e));
                }
            }
            if (config.restartQuarantine() && config.trustPersistentNodes()) {
                try {
                    probe.configGet("appendfsync");
                } catch (RedisErrorReply e) {
                    unchecked.add("node " + name + ": trustPersistentNodes is on but its persistence cannot be read "
                            + "(CONFIG GET refused: " + e.getMessage() + "); it is treated as not persistent, so its "
                            + "restarts are quarantined");
                }
            }
            boolean replica = false;
            try {
                replica = replication(
                        name,
                        parseInfo(probe.info("replication")),
                        facts,
                        spec.isFollowed() && config.restartQuarantine());
            } catch (RedisErrorReply e) {
                unchecked.add(
                        cannotCheck(name, "whether it is a replica or has replicas (INFO replication refused)", e));
            }
            try {
                eviction(name, probe.configGet("maxmemory*"), facts, unchecked);
            } catch (RedisErrorReply e) {
                unchecked.add(cannotCheck(
                        name,
                        "maxmemory-policy (CONFIG GET refused, as managed Redis often does; "
                                + "make sure it is noeviction)",
                        e));
            }
            if (!replica) { // a replica refuses writes; that it is one is the problem already reported
                capabilities(name, config, probe, identity(spec, probe, facts.runId), facts, unchecked);
            }
        } catch (RuntimeException e) {
            facts.down = describeDown(e);
            unchecked.add(unreachable(name, e));
        }
    }

    /**
     * The server's identity as the client's restart protection names it in a node's incarnation marker: the
     * {@code run_id}, and for a node whose server others choose (Sentinel, a cluster) the replication id after it, so
     * that a marker this check writes first is one the client recognizes, not "another server".
     */
    private static String identity(NodeSpec spec, Probe probe, String runId) {
        if (runId == null || !spec.isFollowed()) {
            return runId;
        }
        try {
            String replid = parseInfo(probe.info("replication")).get("master_replid");
            return replid == null || replid.isEmpty() ? runId : runId + "/" + replid;
        } catch (RedisErrorReply e) {
            return runId;
        }
    }

    /**
     * Runs every script the library sends, as the client would, on keys of its own (they expire within a second):
     * acquire, extend, fence, release, and a release that leaves a tombstone. A node that refuses one of them (an
     * ACL, a renamed command) is reported naming the command, since acquiring there may leave keys that no release
     * can remove before their TTL.
     */
    private static void capabilities(
            String name, RedlockConfig config, Probe probe, String runId, NodeFacts facts, List<String> unchecked) {
        String refusedLoad = null;
        for (LuaScript script : LuaScript.ALL) {
            try {
                probe.scriptLoad(script.source());
            } catch (RedisErrorReply e) {
                refusedLoad = e.getMessage();
            }
        }
        if (refusedLoad != null) {
            unchecked.add("node " + name + ": SCRIPT LOAD refused (" + refusedLoad + "): scripts are loaded by their "
                    + "first EVAL instead");
        }
        String token = Tokens.next();
        String key = LockRef.keyOf(config.keyPrefix(), "redlock-check:" + token.substring(0, 12));
        Quarantine quarantine = new Quarantine(config);
        NodeOp acquire = new NodeOp(NodeOp.Kind.ACQUIRE_FENCED, key, token, 1_000, 0, null, 0, key + ":fence", 0);
        acquire.markerKey = quarantine.markerKey();
        acquire.encodedRunId = runId == null ? "" : runId;
        NodeOp extend = new NodeOp(NodeOp.Kind.EXTEND, key, token, 1_000, 0, null, 0, null, 0);
        NodeOp fence = new NodeOp(NodeOp.Kind.FENCE, key, token, 0, 0, null, 0, key + ":fence", 1);
        fence.markerKey = quarantine.markerKey();
        NodeOp release = new NodeOp(NodeOp.Kind.RELEASE, key, token, 1_000, 0, null, 0, null, 0);
        NodeOp tombstone = new NodeOp(NodeOp.Kind.RELEASE, key, token, 1_000, 0, null, 0, null, 0);
        tombstone.tombstone = true;
        String failed = null;
        for (NodeOp op : List.of(acquire, extend, fence, release, tombstone)) {
            String refused = run(probe, op);
            if (refused != null) {
                failed = (op.kind == NodeOp.Kind.RELEASE
                                ? "release"
                                : op.kind.name().toLowerCase(Locale.ROOT).replace("_fenced", ""))
                        + " failed: " + refused;
                break;
            }
        }
        try {
            probe.del(key + ":fence");
        } catch (RuntimeException e) {
            LOG.debug("node {}: could not remove the check's counter key", name, e);
        }
        if (failed != null) {
            facts.failures.add("node " + name + " cannot do what the library needs: " + failed + "; it may grant "
                    + "locks that cannot be released before their TTL: allow the command for the client's user");
        }
    }

    /** Runs one op's script by SHA (by source if the node has not cached it); returns why it failed, or null. */
    private static String run(Probe probe, NodeOp op) {
        String[] args = op.arguments();
        int keys = Integer.parseInt(args[2]);
        List<String> keyList = List.of(args).subList(3, 3 + keys);
        List<String> argList = List.of(args).subList(3 + keys, args.length);
        LuaScript script = scriptOf(op);
        try {
            try {
                op.statusOf(probe.evalsha(script.sha1(), keyList, argList));
                return null;
            } catch (RedisErrorReply e) {
                if (!String.valueOf(e.getMessage()).startsWith("NOSCRIPT")) {
                    String bySha = describeRefusal(e, "EVALSHA", script);
                    try {
                        op.statusOf(probe.eval(script.source(), keyList, argList));
                        return bySha + " (EVAL works, but every call would then carry the script)";
                    } catch (RedisErrorReply e2) {
                        return bySha + "; " + describeRefusal(e2, "EVAL", script);
                    }
                }
                op.statusOf(probe.eval(script.source(), keyList, argList));
                return null;
            }
        } catch (RedisErrorReply e) {
            return describeRefusal(e, "EVAL", script);
        } catch (IllegalStateException e) {
            return script.name() + " answered " + e.getMessage();
        }
    }

    private static LuaScript scriptOf(NodeOp op) {
        switch (op.kind) {
            case ACQUIRE:
            case ACQUIRE_FENCED:
                return LuaScript.ACQUIRE;
            case EXTEND:
                return LuaScript.EXTEND;
            case FENCE:
                return LuaScript.FENCE;
            case RELEASE:
                return LuaScript.RELEASE;
            default:
                return LuaScript.MARKER;
        }
    }

    private static final java.util.regex.Pattern COMMAND_NAME =
            java.util.regex.Pattern.compile("(?:command|permissions to run the) '([A-Za-z|_-]+)'");

    private static final java.util.regex.Pattern SCRIPT_LINE = java.util.regex.Pattern.compile("@user_script:(\\d+)");
    private static final java.util.regex.Pattern CALL = java.util.regex.Pattern.compile("redis\\.call\\('([A-Za-z]+)'");

    /**
     * "DEL refused (...)": the command the error names, or, for an error inside a script that names none (Redis 7.0
     * says only "can't run this command"), the command called on the script line it points at; else the fallback.
     */
    private static String describeRefusal(RedisErrorReply e, String fallback, LuaScript script) {
        String msg = String.valueOf(e.getMessage());
        java.util.regex.Matcher m = COMMAND_NAME.matcher(msg);
        String command = null;
        if (m.find()) {
            command = m.group(1);
        } else {
            java.util.regex.Matcher line = SCRIPT_LINE.matcher(msg);
            if (line.find()) {
                String[] lines = script.source().split("\n", -1);
                int n = Integer.parseInt(line.group(1));
                if (n >= 1 && n <= lines.length) {
                    java.util.regex.Matcher call = CALL.matcher(lines[n - 1]);
                    if (call.find()) {
                        command = call.group(1);
                    }
                }
            }
        }
        return (command == null ? fallback : command.toUpperCase(Locale.ROOT)) + " refused (" + msg + ")";
    }

    /**
     * Reports replication around a node; returns whether it is a replica.
     *
     * @param failoverSafe a Sentinel-managed node with restart protection on: its replicas are expected, and a
     *     failover keeps its votes out for a lease like any other data loss
     */
    private static boolean replication(String name, Map<String, String> info, NodeFacts facts, boolean failoverSafe) {
        String role = info.get("role");
        boolean replica = "slave".equals(role) || "replica".equals(role);
        if (replica) {
            String master = info.get("master_host") + ":" + info.get("master_port");
            facts.problems.add("node " + name + " is a replica (of " + master + "): Redlock needs independent "
                    + "masters; a replica's copy of a lock key arrives asynchronously, and a replica promoted by a "
                    + "failover may lack a key its master granted");
        }
        int replicas = parseInt(info.get("connected_slaves"));
        if (replicas > 0 && !failoverSafe) {
            facts.problems.add("node " + name + " has " + replicas + " connected replica(s): replication is "
                    + "asynchronous, so a replica promoted after a failover may lack a lock key this node granted, "
                    + "and the lock can be granted twice; Redlock needs independent masters without failover");
        }
        return replica;
    }

    private static void eviction(String name, Map<String, String> config, NodeFacts facts, List<String> unchecked) {
        String policy = config.get("maxmemory-policy");
        if (policy == null) {
            unchecked.add("node " + name + ": " + CANNOT_CHECK + " maxmemory-policy: CONFIG GET returned no value; "
                    + "make sure it is noeviction");
            return;
        }
        policy = policy.toLowerCase(Locale.ROOT);
        if (policy.equals("noeviction")) {
            return;
        }
        String limit = "0".equals(config.get("maxmemory"))
                ? " (maxmemory is 0 now, so nothing is evicted until a limit is set)"
                : "";
        if (policy.startsWith("volatile-")) {
            facts.problems.add("node " + name + ": maxmemory-policy " + policy + " may evict lock keys under memory "
                    + "pressure, since they have a TTL" + limit + "; an evicted lock key can be granted again; "
                    + "prefer noeviction");
        } else {
            facts.problems.add("node " + name + ": maxmemory-policy " + policy + " can evict any key, lock keys "
                    + "included, under memory pressure" + limit + ": an evicted lock key is granted again to "
                    + "another client; use noeviction");
        }
    }

    private static String unreachable(String name, Throwable e) {
        if (isAuthenticationFailure(e)) {
            return "node " + name + ": " + CANNOT_CHECK + ", authentication failed (" + describe(e) + "): check the "
                    + "user name and password of its URI (or its user's ACL); it takes no part in any lock until then";
        }
        return "node " + name + ": " + CANNOT_CHECK + ", not reachable (" + describe(e) + "); informational only: "
                + "nodes may be down when a client starts";
    }

    private static String cannotCheck(String name, String what, Throwable e) {
        return "node " + name + ": " + CANNOT_CHECK + " " + what + ": " + describe(e);
    }

    private static String describe(Throwable e) {
        String msg = e.getMessage();
        return e.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }

    /** Parses {@code key:value} lines of an INFO reply; section headers and blank lines are skipped. */
    static Map<String, String> parseInfo(String info) {
        Map<String, String> out = new HashMap<>();
        if (info == null) {
            return out;
        }
        for (String line : info.split("\r?\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                out.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return out;
    }

    private static int parseInt(String s) {
        if (s == null) {
            return 0;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
