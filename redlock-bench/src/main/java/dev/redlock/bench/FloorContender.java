/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;

/**
 * The floor: what a lock costs on one node with nothing but a raw Jedis connection per thread. Acquire is
 * {@code SET key token NX PX ttl}, release a compare-and-delete Lua script by {@code EVALSHA}.
 */
final class FloorContender implements Contender {

    static final String RELEASE_LUA =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    private final RedisServer server;
    private final long leaseMillis;
    private final long retryDelayNanos;
    private final double retryJitter;

    /**
     * @param retryDelay delay between attempts while waiting for a busy lock; the same schedule as our library's
     *        default so that the contended phase compares protocols, not back-off policies
     */
    FloorContender(RedisServer server, Duration lease, Duration retryDelay, double retryJitter) {
        this.server = server;
        this.leaseMillis = lease.toMillis();
        this.retryDelayNanos = retryDelay.toNanos();
        this.retryJitter = retryJitter;
    }

    @Override
    public String id() {
        return "floor";
    }

    @Override
    public String label() {
        return "floor: Jedis SET NX PX + EVALSHA (1 node)";
    }

    @Override
    public String settings() {
        return "one Jedis connection per thread (RESP2, 2 s socket timeout) to node 1; token = 128 random bits from"
                + " ThreadLocalRandom; PX " + leaseMillis + "; while waiting, retry after uniform ["
                + ms(retryDelayNanos * (1 - retryJitter)) + ", " + ms(retryDelayNanos * (1 + retryJitter))
                + "] ms (our default retry schedule)";
    }

    private static String ms(double nanos) {
        return Long.toString(Math.round(nanos / 1e6));
    }

    @Override
    public Handle open(String lockName) {
        return new FloorHandle(server.client(Duration.ofSeconds(2)), "floor:" + lockName);
    }

    @Override
    public void close() {
        // Connections belong to the handles and are closed with them.
    }

    private final class FloorHandle implements Handle {
        private final Jedis jedis;
        private final String key;
        private String sha;
        private String token;

        FloorHandle(Jedis jedis, String key) {
            this.jedis = jedis;
            this.key = key;
            this.sha = jedis.scriptLoad(RELEASE_LUA);
        }

        @Override
        public boolean acquire(long waitMillis) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
            SetParams params = SetParams.setParams().nx().px(leaseMillis);
            while (true) {
                String candidate = newToken();
                if ("OK".equals(jedis.set(key, candidate, params))) {
                    token = candidate;
                    return true;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                double factor =
                        1 + retryJitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
                LockSupport.parkNanos(Math.min(remaining, (long) (retryDelayNanos * factor)));
            }
        }

        @Override
        public void release() {
            List<String> keys = List.of(key);
            List<String> args = List.of(token);
            try {
                jedis.evalsha(sha, keys, args);
            } catch (JedisNoScriptException e) {
                // Script cache flushed (restart, SCRIPT FLUSH): load it again, as any real client must.
                sha = jedis.scriptLoad(RELEASE_LUA);
                jedis.evalsha(sha, keys, args);
            }
            token = null;
        }

        @Override
        public void close() {
            jedis.close();
        }

        private String newToken() {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            return Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
        }
    }
}
