/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeTransport;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A user's transport as the library's tests need one: one Jedis connection, commands sent one after another, an error
 * reply in its command's place, and a connection that failed (a timeout among them) dropped and never reused.
 * Synchronized: the library calls it from one thread per node, tests may from theirs.
 */
public final class TestTransport implements NodeTransport, AutoCloseable {

    private final String host;
    private final int port;
    private final int timeoutMillis;
    private Jedis jedis;

    public TestTransport(String host, int port, int timeoutMillis) {
        this.host = host;
        this.port = port;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public synchronized List<Object> pipeline(List<Command> commands) {
        if (jedis == null) {
            jedis = new Jedis(
                    host,
                    port,
                    DefaultJedisClientConfig.builder()
                            .connectionTimeoutMillis(timeoutMillis)
                            .socketTimeoutMillis(timeoutMillis)
                            .autoNegotiateProtocol(false)
                            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                            .build());
        }
        List<Object> replies = new ArrayList<>();
        try {
            for (Command c : commands) {
                List<String> args = c.args();
                ProtocolCommand name = () -> args.get(0).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                try {
                    replies.add(
                            jedis.sendCommand(name, args.subList(1, args.size()).toArray(new String[0])));
                } catch (JedisDataException e) {
                    replies.add(new ErrorReply(e.getMessage()));
                }
            }
        } catch (JedisConnectionException e) {
            close();
            throw e;
        }
        return replies;
    }

    @Override
    public synchronized void close() {
        if (jedis != null) {
            try {
                jedis.getConnection().forceDisconnect();
            } catch (java.io.IOException | RuntimeException e) {
                // gone either way
            }
            jedis = null;
        }
    }
}
