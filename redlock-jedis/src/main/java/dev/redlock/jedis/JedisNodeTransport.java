/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.jedis;

import dev.redlock.NodeTransport;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A node of a Redlock client reached through the application's own Jedis client: a pooled {@code JedisPooled} or
 * {@code RedisClient}, a Sentinel-aware {@code JedisSentineled}, any {@link UnifiedJedis}. Each call of the library
 * is one pipeline of the client, so it runs on one connection of its pool, in order.
 *
 * <pre>{@code
 * JedisPooled redis1 = new JedisPooled(poolConfig, "10.0.0.1", 6379, 50, password);
 * RedlockConfig config = RedlockConfig.builder()
 *         .node("redis-1", JedisNodeTransport.of(redis1))
 *         // ... one per independent master
 *         .build();
 * }</pre>
 *
 * <p>Works with Jedis 6 (as Spring Boot 3.5 manages it) through 8. The client is the application's: the library never
 * closes it. Keep its socket timeout close to the client's per-node timeout. Thread-safe as the client is.
 */
public final class JedisNodeTransport implements NodeTransport {

    /**
     * {@code UnifiedJedis.pipelined()}, found by name: Jedis 6 declares it to return {@code PipelineBase}, Jedis 7 and
     * 8 {@code AbstractPipeline}, so a direct call compiled against one does not link with the other. Both return an
     * {@link AbstractPipeline}.
     */
    private static final Method PIPELINED;

    static {
        try {
            PIPELINED = UnifiedJedis.class.getMethod("pipelined");
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError("this Jedis has no UnifiedJedis.pipelined(): use Jedis 6 or later");
        }
    }

    private final UnifiedJedis jedis;

    private JedisNodeTransport(UnifiedJedis jedis) {
        this.jedis = Objects.requireNonNull(jedis, "jedis");
    }

    /**
     * Adapts a client. The client must reach one independent Redis master (for Redis Cluster, see the documentation on
     * deployments).
     *
     * @param jedis the application's client; not closed by the library
     * @return the transport, for {@code RedlockConfig.Builder.node(name, transport)}
     * @throws NullPointerException if {@code jedis} is null
     */
    public static JedisNodeTransport of(UnifiedJedis jedis) {
        return new JedisNodeTransport(jedis);
    }

    @Override
    public List<Object> pipeline(List<Command> commands) throws Exception {
        AbstractPipeline pipeline = pipeline();
        try {
            List<Response<Object>> responses = new ArrayList<>(commands.size());
            for (Command command : commands) {
                responses.add(pipeline.sendCommand(arguments(command)));
            }
            pipeline.sync();
            List<Object> replies = new ArrayList<>(responses.size());
            for (Response<Object> response : responses) {
                try {
                    replies.add(response.get());
                } catch (JedisDataException e) {
                    // An error reply (NOSCRIPT, WRONGPASS, an ACL refusal): that command's answer, not the call's.
                    replies.add(new ErrorReply(String.valueOf(e.getMessage())));
                }
            }
            return replies;
        } finally {
            pipeline.close();
        }
    }

    private AbstractPipeline pipeline() throws Exception {
        try {
            return (AbstractPipeline) PIPELINED.invoke(jedis);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw e;
        }
    }

    /** The command with its keys marked as keys, so a cluster-aware client sends it to their slot. */
    private static CommandArguments arguments(Command command) {
        List<String> args = command.args();
        CommandArguments c = new CommandArguments(new Name(args.get(0)));
        for (int i = 1; i < args.size(); i++) {
            if (command.isKey(i)) {
                c.key(args.get(i));
            } else {
                c.add(args.get(i));
            }
        }
        return c;
    }

    /** A command's name as Jedis sends it. */
    private static final class Name implements ProtocolCommand {
        private final byte[] raw;

        Name(String name) {
            this.raw = name.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public byte[] getRaw() {
            return raw.clone();
        }
    }

    @Override
    public String toString() {
        return "JedisNodeTransport{" + jedis.getClass().getSimpleName() + "}";
    }
}
