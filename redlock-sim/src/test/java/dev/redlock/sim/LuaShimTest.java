package dev.redlock.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.redlock.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The simulated server against a real {@code redis-server} 7.0.15: the same seeded sequence of script calls (every
 * script the library ships, on a few keys and tokens, with counters, markers and tombstones) goes to both, and every
 * reply must match, as must the keys left behind. Only what depends on the clock is normalized: marker ages and
 * birth times, and remaining TTLs (compared as present or absent).
 */
class LuaShimTest {

    private static RedisServer real;

    @BeforeAll
    static void start() {
        real = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        real.close();
    }

    private static final String[] SCRIPTS = {"acquire.lua", "release.lua", "extend.lua", "fence.lua", "marker.lua",
        "repair.lua"};

    private static String source(String name) throws Exception {
        try (var in = LuaShimTest.class.getResourceAsStream("/dev/redlock/lua/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void everyScriptAnswersAsARealServerDoes() throws Exception {
        long seed = 20261123L;
        System.out.println("LuaShimTest seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        SimWorld world = new SimWorld(seed);
        SimRedis sim = new SimRedis(world, "sim", 1.0, 0, false);
        String[] tokens = {"token-aaaa", "token-bbbb", "token-cccc"};
        String[] locks = {"p:{x}", "p:{y}"};
        String marker = "p:node-incarnation";
        try (Jedis jedis = real.client()) {
            jedis.flushAll();
            for (int i = 0; i < 3_000; i++) {
                String script = SCRIPTS[r.nextInt(SCRIPTS.length)];
                String key = locks[r.nextInt(locks.length)];
                String token = tokens[r.nextInt(tokens.length)];
                List<String> keys = new ArrayList<>();
                List<String> argv = new ArrayList<>();
                switch (script) {
                    case "acquire.lua": {
                        boolean fenced = r.nextBoolean();
                        boolean watched = r.nextBoolean();
                        keys.add(key);
                        keys.add(key + ":t:" + token);
                        if (fenced) {
                            keys.add(key + ":fence");
                        }
                        if (watched) {
                            keys.add(marker);
                        }
                        argv.addAll(List.of(token, "100000", fenced ? "1" : "0"));
                        if (watched) {
                            argv.add(r.nextBoolean() ? "" : tokens[r.nextInt(tokens.length)]);
                            argv.add(r.nextBoolean() ? "" : "run" + r.nextInt(2));
                        }
                        break;
                    }
                    case "release.lua":
                        keys.add(key);
                        argv.add(token);
                        if (r.nextBoolean()) {
                            keys.add(key + ":t:" + token);
                            argv.add("100000");
                        }
                        break;
                    case "extend.lua":
                        keys.addAll(List.of(key, key + ":x"));
                        argv.addAll(List.of(token, Long.toString(50_000 + r.nextInt(50_000)),
                                Integer.toString(r.nextInt(4))));
                        break;
                    case "fence.lua":
                        keys.addAll(List.of(key, key + ":fence"));
                        if (r.nextBoolean()) {
                            keys.add(marker);
                        }
                        argv.addAll(List.of(token, Integer.toString(r.nextInt(20))));
                        break;
                    case "marker.lua": {
                        keys.add(marker);
                        String action = new String[] {"rotate", "adopt", "intact"}[r.nextInt(3)];
                        argv.addAll(List.of(action, tokens[r.nextInt(tokens.length)], "run" + r.nextInt(2),
                                tokens[r.nextInt(tokens.length)]));
                        break;
                    }
                    default:
                        keys.addAll(List.of(key + ":fence", marker));
                        argv.addAll(List.of(Integer.toString(r.nextInt(20)), tokens[r.nextInt(tokens.length)]));
                        break;
                }
                String src = source(script);
                Object want;
                try {
                    want = normalize(jedis.eval(src, keys, argv), script);
                } catch (JedisDataException e) {
                    want = "error";
                }
                Object got;
                try {
                    got = normalize(sim.eval(script, src, keys, argv), script);
                } catch (SimRedis.ErrorReply e) {
                    got = "error";
                }
                assertEquals(want, got, "call " + i + ": " + script + " keys " + keys + " argv " + argv);
            }
            // What is left behind: the same keys with the same values (hash fields other than birth times).
            assertEquals(new java.util.TreeSet<>(jedis.keys("*")), allKeys(sim), "keys");
            for (String k : jedis.keys("*")) {
                if (jedis.type(k).equals("string")) {
                    assertEquals(jedis.get(k), sim.command(List.of("GET", k)), "value of " + k);
                } else {
                    for (String f : List.of("v", "inc", "id", "run", "intact")) {
                        assertEquals(jedis.hget(k, f), sim.command(List.of("HGET", k, f)), k + " field " + f);
                    }
                }
            }
        }
    }

    private static java.util.TreeSet<String> allKeys(SimRedis sim) {
        java.util.TreeSet<String> all = new java.util.TreeSet<>(sim.scan("*", "string"));
        all.addAll(sim.scan("*", "hash"));
        return all;
    }

    /**
     * Replies with clock-dependent parts made comparable: a marker's age (the 7th element of an acquire's long reply)
     * and a refusing holder's remaining TTL (an acquire reply's last element, when positive).
     */
    private static Object normalize(Object reply, String script) {
        if (reply instanceof byte[]) {
            return new String((byte[]) reply, StandardCharsets.UTF_8);
        }
        if (reply instanceof List) {
            List<Object> out = new ArrayList<>();
            List<?> in = (List<?>) reply;
            for (int i = 0; i < in.size(); i++) {
                boolean acquire = script.equals("acquire.lua");
                Object v = in.get(i);
                if (acquire && i == 6 && in.size() == 8) {
                    out.add("age");
                } else if (acquire && i == in.size() - 1 && v instanceof Long && (Long) v > 0) {
                    out.add("ttl");
                } else {
                    out.add(normalize(v, script));
                }
            }
            return out;
        }
        return reply;
    }
}
