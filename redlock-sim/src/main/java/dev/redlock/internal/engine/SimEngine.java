package dev.redlock.internal.engine;

import dev.redlock.RedlockConfig;
import dev.redlock.internal.node.FencingRepair;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.Quarantine;
import dev.redlock.internal.node.SimNodeClient;
import dev.redlock.internal.script.LockRef;
import dev.redlock.internal.script.LuaScript;
import dev.redlock.sim.SimProcess;
import dev.redlock.sim.SimRedis;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.JedisCommands;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

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
            public List<JedisCommands> connect(List<Jedis> opened) {
                List<JedisCommands> out = new ArrayList<>();
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
    private static JedisCommands commands(SimRedis server, BooleanSupplier reachable) {
        return (JedisCommands) Proxy.newProxyInstance(
                SimEngine.class.getClassLoader(), new Class<?>[] {JedisCommands.class}, (proxy, method, args) -> {
                    if (!reachable.getAsBoolean()) {
                        throw new JedisConnectionException(server.name() + " is not reachable");
                    }
                    try {
                        switch (method.getName()) {
                            case "hmget": {
                                List<String> cmd = new ArrayList<>(List.of("HMGET", (String) args[0]));
                                cmd.addAll(List.of((String[]) args[1]));
                                return server.command(cmd);
                            }
                            case "hget":
                                return server.command(List.of("HGET", (String) args[0], (String) args[1]));
                            case "scan":
                                return new ScanResult<>(
                                        ScanParams.SCAN_POINTER_START,
                                        server.scan(((ScanParams) args[1]).match(), (String) args[2]));
                            case "evalsha":
                            case "eval": {
                                LuaScript script = SimNodeClient.script((String) args[0]);
                                @SuppressWarnings("unchecked")
                                List<String> keys = (List<String>) args[1];
                                @SuppressWarnings("unchecked")
                                List<String> argv = (List<String>) args[2];
                                Object reply = server.eval(script.name(), script.source(), keys, argv);
                                server.world()
                                        .trace(server.name() + " runs a repair pass's " + script.name() + " " + keys
                                                + " " + argv + " = " + reply);
                                return reply;
                            }
                            default:
                                throw new UnsupportedOperationException(method.getName() + " in a simulated repair");
                        }
                    } catch (SimRedis.ErrorReply e) {
                        throw new redis.clients.jedis.exceptions.JedisDataException(e.getMessage());
                    }
                });
    }
}
