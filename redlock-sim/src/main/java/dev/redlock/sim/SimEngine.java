/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import dev.redlock.RedlockConfig;
import dev.redlock.internal.engine.DefaultLease;
import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.node.Commands;
import dev.redlock.internal.node.FencingRepair;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.node.RedisErrorReply;
import dev.redlock.internal.script.LockRef;
import dev.redlock.internal.script.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * Builds the real {@link QuorumEngine} for a simulated client: seeded randomness (tokens, jitter, incarnation ids),
 * the simulation's scheduler, and a fencing counter repair whose passes run as events of the simulated clock against
 * the simulated servers (each pass at one instant: its reads and copies are not interleaved with other events).
 */
public final class SimEngine {

    private SimEngine() {}

    /** A quarantine whose new incarnation ids come from {@code random}. */
    public static Quarantine quarantine(RedlockConfig config, RandomGenerator random) {
        return new Quarantine(config, random);
    }

    /**
     * The real engine over simulated nodes, with the seeded random source and a repair that reaches them.
     *
     * @param reachable for each server, whether the client reaches it now (up, not stopped, not cut off)
     */
    public static QuorumEngine engine(
            RedlockConfig config,
            List<? extends NodeClient> nodes,
            ScheduledExecutorService scheduler,
            Quarantine quarantine,
            RandomGenerator random,
            SimProcess client,
            List<SimRedis> servers,
            List<BooleanSupplier> reachable) {
        FencingRepair repair = new FencingRepair(config, quarantine, new FencingRepair.Transport() {
            private boolean closed;

            @Override
            public void runAfter(long delayNanos, Runnable pass) {
                if (closed) {
                    throw new RejectedExecutionException("closed");
                }
                client.afterClock(delayNanos, () -> {
                    if (!closed) {
                        pass.run();
                    }
                });
            }

            @Override
            public List<Commands> connect(List<AutoCloseable> opened) {
                List<Commands> out = new ArrayList<>();
                for (int i = 0; i < servers.size(); i++) {
                    out.add(reachable.get(i).getAsBoolean() ? commands(servers.get(i), reachable.get(i)) : null);
                }
                return out;
            }

            @Override
            public void close() {
                closed = true;
            }
        });
        return new QuorumEngine(config, nodes, scheduler, quarantine, random, repair);
    }

    /** The lock a lease holds, as its acquisition began it (a fair lock's or a writer's waiter id and place). */
    public static LockRef ref(dev.redlock.Lease lease) {
        return ((DefaultLease) lease).ref();
    }

    /** Ticker time at which the round that won {@code lease} started. */
    public static long startNanos(dev.redlock.Lease lease) {
        return ((DefaultLease) lease).startNanos();
    }

    /** The few commands a repair pass uses, answered by a simulated server while it is reachable. */
    private static Commands commands(SimRedis server, BooleanSupplier reachable) {
        return args -> {
            if (!reachable.getAsBoolean()) {
                throw new java.io.UncheckedIOException(new java.io.IOException(server.name() + " is not reachable"));
            }
            // A repair pass connects anew: a cluster slot that is migrating answers ASK.
            SimRedis.ErrorReply redirect = server.redirect(server.incarnation());
            if (redirect != null) {
                throw new RedisErrorReply(redirect.getMessage());
            }
            try {
                switch (args[0]) {
                    case "HMGET":
                    case "HGET":
                        return server.command(List.of(args));
                    case "SCAN": {
                        // SCAN cursor MATCH pattern COUNT n TYPE type: one page holds every match.
                        return List.of("0", server.scan(args[3], args[7]));
                    }
                    case "EVALSHA":
                    case "EVAL": {
                        LuaScript script = SimNodeClient.script(args[1]);
                        int n = Integer.parseInt(args[2]);
                        List<String> keys = List.of(args).subList(3, 3 + n);
                        List<String> argv = List.of(args).subList(3 + n, args.length);
                        Object reply = server.eval(script.name(), script.source(), keys, argv);
                        server.world()
                                .trace(server.name() + " runs a repair pass's " + script.name() + " " + keys + " "
                                        + argv + " = " + reply);
                        return reply;
                    }
                    default:
                        throw new UnsupportedOperationException(args[0] + " in a simulated repair");
                }
            } catch (SimRedis.ErrorReply e) {
                throw new RedisErrorReply(e.getMessage());
            }
        };
    }
}
