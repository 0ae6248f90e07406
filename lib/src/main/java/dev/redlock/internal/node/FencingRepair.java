/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockConfig;
import dev.redlock.internal.script.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node-level repair of fencing counters. A node whose incarnation marker says its counters are not intact (it lost
 * its data since the cluster's counters started, or is new) counts in a fencing read only for locks whose counter
 * was validated since; this repairs all of them at once, so fenced locks stay available with a minority down.
 *
 * <p>One pass: read every node's marker; take as sources a quorum of intact nodes or, failing that, every node (a
 * new cluster, or one where every node lost data since its counters started); copy, for every counter any source
 * has, the largest source value into each node that is not intact ({@code repair.lua}, tagged with its incarnation,
 * skipped if it lost data again meanwhile); check that no source changed incarnation during the copy; then mark the
 * repaired nodes intact. A quorum of intact sources overlaps the confirming quorum of every token issued, so the copy
 * is at least every token; from every node it is so as long as fewer than a quorum lost data since the last token.
 *
 * <p>It runs on its own thread, started on the first request, one pass at a time, over short-lived connections
 * (or the user's own clients). Requests while a pass runs, or within a second of a failed one, are dropped: the next
 * fenced read asks again. Thread-safe.
 */
public final class FencingRepair implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FencingRepair.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int SCAN_COUNT = 500;

    /**
     * Where a pass runs and how it reaches the nodes. The real one runs passes on the repair thread over short-lived
     * connections; a deterministic simulation runs them as events of its own clock against its simulated nodes.
     */
    public interface Transport extends AutoCloseable {
        /**
         * Runs {@code pass} in the background once {@code delayNanos} have passed.
         *
         * @throws RejectedExecutionException if the transport is closed
         */
        void runAfter(long delayNanos, Runnable pass);

        /** One node's commands per node (null where it cannot be reached), in configuration order; adds what it opened. */
        List<Commands> connect(List<AutoCloseable> opened);

        /** Stops running passes; a pass in progress stops between pages. */
        @Override
        void close();
    }

    private final RedlockConfig config;
    private final String markerKey;
    private final Transport transport;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile long notBefore;
    private volatile boolean closed;
    /**
     * Which nodes each lock uses (configuration indices, by lock key), when each uses some of them: a counter is
     * copied only to the nodes of its lock, so the other masters never hold its keys. Null: every node.
     */
    private volatile java.util.function.Function<String, int[]> placement;

    public FencingRepair(RedlockConfig config, Quarantine quarantine, String threadName) {
        this(config, quarantine, new Connections(config, threadName));
    }

    /** A repair whose passes run and reach the nodes through {@code transport} (a simulation's, in tests). */
    public FencingRepair(RedlockConfig config, Quarantine quarantine, Transport transport) {
        this.config = config;
        this.markerKey = quarantine.markerKey();
        this.transport = transport;
        this.notBefore = config.ticker().nanoTime();
    }

    /** Asks for a pass in the background: a fenced read saw a node whose counters are not intact. */
    public void request() {
        if (markerKey == null
                || closed
                || config.ticker().nanoTime() - notBefore < 0
                || !running.compareAndSet(false, true)) {
            return;
        }
        try {
            // A fencing round that a target confirmed before it lost its data may still be landing on the sources:
            // every such round decides within one per-node timeout of its start, so wait two before reading them.
            transport.runAfter(
                    TimeUnit.MILLISECONDS.toNanos(
                            2 * Math.max(1, config.perNodeTimeout().toMillis())),
                    this::pass);
        } catch (RejectedExecutionException e) {
            running.set(false);
        }
    }

    private void pass() {
        boolean done = false;
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            done = repair(transport.connect(opened));
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            LOG.debug("fencing counter repair failed; the next fenced read asks again", e);
        } finally {
            for (AutoCloseable j : opened) {
                try {
                    j.close();
                } catch (Exception e) {
                    LOG.debug("closing a repair connection failed", e);
                }
            }
            if (!done) {
                notBefore = config.ticker().nanoTime() + RETRY_NANOS;
            }
            running.set(false);
        }
    }

    /**
     * Copies each counter only to the nodes of its lock ({@code nodesOf} gives them, by lock key, as configuration
     * indices); call before the first request.
     */
    public void placement(java.util.function.Function<String, int[]> nodesOf) {
        this.placement = nodesOf;
    }

    /** Returns true when every node's counters are intact at the end. */
    private boolean repair(List<Commands> nodes) {
        int n = nodes.size();
        String[] ids = new String[n];
        boolean[] intact = new boolean[n];
        List<Integer> targets = new ArrayList<>();
        List<Integer> intactNodes = new ArrayList<>();
        int reachable = 0;
        for (int i = 0; i < n; i++) {
            List<String> m = marker(nodes.get(i));
            if (m == null || m.get(0) == null) {
                continue; // unreachable, or never asked to acquire: it gets a marker (and a repair) later
            }
            reachable++;
            ids[i] = m.get(0);
            intact[i] = "1".equals(m.get(1));
            (intact[i] ? intactNodes : targets).add(i);
        }
        if (targets.isEmpty()) {
            return true;
        }
        List<Integer> sources;
        // Sources must meet every token's confirming quorum: a majority of the nodes, and when each lock uses p of
        // the n nodes, all but fewer than p/2 + 1 of them (any p/2 + 1 nodes may be some lock's quorum).
        int needed = Math.max(QuorumPolicy.MAJORITY.required(n), n - config.nodesPerLock(n) / 2);
        if (intactNodes.size() >= needed) {
            sources = intactNodes;
        } else if (reachable == n) {
            sources = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sources.add(i);
            }
        } else {
            LOG.debug(
                    "repair: {} intact node(s) and {} of {} reachable: no source covers every token yet",
                    intactNodes.size(),
                    reachable,
                    n);
            return false;
        }
        int copied = copy(nodes, sources, targets, ids);
        if (copied < 0) {
            return false; // cut short (the client closed): the targets are not complete, so never mark them intact
        }
        // A source that lost its data during the copy may have missed counters: start over later.
        for (int s : sources) {
            List<String> m = marker(nodes.get(s));
            if (m == null || !ids[s].equals(m.get(0)) || intact[s] != "1".equals(m.get(1))) {
                LOG.debug("repair: source {} changed during the copy; starting over later", name(s));
                return false;
            }
        }
        List<String> repaired = new ArrayList<>();
        for (int t : targets) {
            Object r = script(nodes.get(t), LuaScript.MARKER, List.of(markerKey), List.of("intact", ids[t], "", ""));
            if (Long.valueOf(1).equals(r) || Long.valueOf(0).equals(r)) {
                repaired.add(name(t));
            }
        }
        List<String> from = new ArrayList<>();
        for (int s : sources) {
            from.add(name(s));
        }
        LOG.info("fencing counters of {} repaired from {} ({} counters)", repaired, from, copied);
        return repaired.size() == targets.size();
    }

    /**
     * Copies the largest source value of every counter any source has into every target; returns how many, or -1 if
     * the copy was cut short.
     */
    private int copy(List<Commands> nodes, List<Integer> sources, List<Integer> targets, String[] ids) {
        String pattern = globEscaped(config.keyPrefix()) + "*:fence";
        Map<String, Long> done = new HashMap<>();
        for (int s : sources) {
            String cursor = "0";
            do {
                Object reply = nodes.get(s)
                        .call("SCAN", cursor, "MATCH", pattern, "COUNT", Integer.toString(SCAN_COUNT), "TYPE", "hash");
                if (!(reply instanceof List) || ((List<?>) reply).size() != 2) {
                    throw new IllegalStateException("SCAN answered " + reply);
                }
                List<?> page = (List<?>) reply;
                for (String key : Commands.texts(page.get(1))) {
                    if (done.containsKey(key)) {
                        continue;
                    }
                    long max = 0;
                    for (int other : sources) {
                        String v = Commands.text(nodes.get(other).call("HGET", key, "v"));
                        if (v != null) {
                            max = Math.max(max, Long.parseLong(v));
                        }
                    }
                    done.put(key, max);
                    java.util.function.Function<String, int[]> nodesOf = placement;
                    int[] of =
                            nodesOf == null ? null : nodesOf.apply(key.substring(0, key.length() - ":fence".length()));
                    for (int t : targets) {
                        if (of != null && java.util.Arrays.binarySearch(of, t) < 0) {
                            continue; // not one of this lock's nodes
                        }
                        script(
                                nodes.get(t),
                                LuaScript.REPAIR,
                                List.of(key, markerKey),
                                List.of(Long.toString(max), ids[t]));
                    }
                }
                cursor = Commands.text(page.get(0));
                if (closed) {
                    return -1;
                }
            } while (!"0".equals(cursor));
        }
        return done.size();
    }

    /** The key prefix as a SCAN pattern that matches it literally (a prefix may contain {@code * ? [ ] \}). */
    static String globEscaped(String prefix) {
        StringBuilder b = new StringBuilder(prefix.length() + 8);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    private List<String> marker(Commands node) {
        if (node == null) {
            return null;
        }
        try {
            return Commands.texts(node.call("HMGET", markerKey, "id", "intact"));
        } catch (RuntimeException e) {
            LOG.debug("repair: reading a marker failed: {}", e.toString());
            return null;
        }
    }

    /** Runs a script by SHA, or by source when the node has not cached it. */
    private static Object script(Commands node, LuaScript script, List<String> keys, List<String> args) {
        try {
            return node.call(evalArgs("EVALSHA", script.sha1(), keys, args));
        } catch (RedisErrorReply e) {
            if (!String.valueOf(e.getMessage()).startsWith("NOSCRIPT")) {
                throw e;
            }
            return node.call(evalArgs("EVAL", script.source(), keys, args));
        }
    }

    private static String[] evalArgs(String verb, String script, List<String> keys, List<String> args) {
        List<String> all = new ArrayList<>(List.of(verb, script, Integer.toString(keys.size())));
        all.addAll(keys);
        all.addAll(args);
        return all.toArray(new String[0]);
    }

    private String name(int i) {
        return config.nodeSpecs().get(i).name();
    }

    /** Stops the repair; a pass in progress stops between pages. */
    @Override
    public void close() {
        closed = true;
        transport.close();
    }

    /** The real transport: passes on a daemon thread of their own, over short-lived connections. */
    private static final class Connections implements Transport {
        private final RedlockConfig config;
        private final String threadName;
        private ScheduledExecutorService executor;
        private boolean closed;

        Connections(RedlockConfig config, String threadName) {
            this.config = config;
            this.threadName = threadName;
        }

        @Override
        public synchronized void runAfter(long delayNanos, Runnable pass) {
            if (closed) {
                throw new RejectedExecutionException("closed");
            }
            if (executor == null) {
                executor = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, threadName);
                    t.setDaemon(true);
                    return t;
                });
            }
            java.util.concurrent.ScheduledFuture<?> unused = executor.schedule(pass, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public List<Commands> connect(List<AutoCloseable> opened) {
            List<Commands> nodes = new ArrayList<>();
            Duration socket = Duration.ofMillis(Math.max(config.perNodeTimeout().toMillis(), 1_000));
            for (NodeSpec spec : config.nodeSpecs()) {
                if (spec.transport() != null) {
                    nodes.add(Commands.of(spec.transport(), spec.name()));
                    continue;
                }
                try {
                    BlockingConnection j = BlockingConnection.open(spec, config, socket);
                    opened.add(j);
                    nodes.add(j);
                } catch (RuntimeException e) {
                    LOG.debug("repair: node {} not reachable: {}", spec.name(), e.toString());
                    nodes.add(null);
                }
            }
            return nodes;
        }

        @Override
        public void close() {
            ScheduledExecutorService e;
            synchronized (this) {
                closed = true;
                e = executor;
            }
            if (e != null) {
                e.shutdownNow();
                try {
                    if (!e.awaitTermination(5, TimeUnit.SECONDS)) {
                        LOG.warn("fencing counter repair did not stop within 5 s");
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
