/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The simulated server against a real {@code redis-server} 7.0.15: the same seeded sequence of script calls (every
 * script the library ships, on a few keys and tokens, with counters, markers and tombstones; then every lock kind's
 * acquire, release and extension) goes to both, and every reply must match, as must the keys left behind. The sorted
 * set commands are also compared one by one, error texts included, on awkward inputs. Only what depends on the clock
 * is normalized: marker ages and birth times, remaining TTLs (compared as present or absent), and the scores that
 * are expiry times.
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

    private static final String[] SCRIPTS = {
        "acquire.lua", "release.lua", "extend.lua", "fence.lua", "marker.lua", "repair.lua"
    };

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
                        argv.addAll(List.of(
                                token, Long.toString(50_000 + r.nextInt(50_000)), Integer.toString(r.nextInt(4))));
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
                        argv.addAll(List.of(
                                action,
                                tokens[r.nextInt(tokens.length)],
                                "run" + r.nextInt(2),
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

    private static TreeSet<String> allKeys(SimRedis sim) {
        TreeSet<String> all = new TreeSet<>(sim.scan("*", "string"));
        all.addAll(sim.scan("*", "hash"));
        all.addAll(sim.scan("*", "zset"));
        return all;
    }

    // ------------------------------------------------------------------------------------------------ lock kinds

    private static final String[] RESOURCES = {"p:{x}", "p:{y}", "p:{z}"};
    private static final String[] TOKENS = {"token-aaaa", "token-bbbb", "token-cccc"};
    private static final String[] WAITERS = {"waiter-1", "waiter-2", "waiter-3"};
    /** Fair-lock places: ties (the same place for two waiters) are broken by the waiter id. */
    private static final String[] PLACES = {"1000", "2000", "2000", "1700000000000123"};

    private static final String[] KINDS = {"plain", "m", "r", "w", "f", "q"};

    /**
     * Every lock kind (multi-resource, reader, writer with and without preference, fair) through acquire, release
     * and extend, mixed with plain locks on the same keys, against the real server. Besides the calls, expired
     * entries are planted (scored 1, long past) so that the scripts' expiry paths run on both servers the same way.
     * The run must reach every kind's outcomes (granted and refused; released, absent and another owner's; extended,
     * absent and another owner's) and the kind-specific paths: a reader let in by its own writer's token, a reader
     * kept out by a waiting writer, a writer kept out by a reader, a fair waiter kept out by an earlier one.
     */
    @Test
    void everyLockKindAnswersAsARealServerDoes() throws Exception {
        long seed = 20261124L;
        System.out.println("LuaShimTest lock kinds seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        SimRedis sim = new SimRedis(new SimWorld(seed), "sim", 1.0, 0, false);
        String marker = "p:node-incarnation";
        TreeSet<String> seen = new TreeSet<>();
        try (Jedis jedis = real.client()) {
            jedis.flushAll();
            for (int i = 0; i < 4_000; i++) {
                String kind = KINDS[r.nextInt(KINDS.length)];
                String token = TOKENS[r.nextInt(TOKENS.length)];
                String waiter = WAITERS[r.nextInt(WAITERS.length)];
                List<String> set = resources(r);
                String key = key(r, kind, set);
                List<String> own = kindKeys(kind, key, set);
                int pick = r.nextInt(22);
                if (pick < 2) {
                    plant(r, jedis, sim, key, kind);
                    continue;
                }
                String script =
                        pick < 10 ? "acquire.lua" : pick < 15 ? "release.lua" : pick < 20 ? "extend.lua" : "fence.lua";
                Object holder = sim.command(List.of("GET", key));
                if (!script.equals("acquire.lua") && holder != null && r.nextInt(3) == 0) {
                    token = (String) holder; // the holder's own call, more often than chance would make it
                }
                List<String> keys = new ArrayList<>();
                List<String> argv = new ArrayList<>();
                String path = kind;
                switch (script) {
                    case "acquire.lua": {
                        boolean fenced = !kind.equals("m") && !kind.equals("r") && r.nextBoolean();
                        boolean watched = r.nextBoolean();
                        keys.addAll(List.of(key, key + ":t:" + token));
                        if (fenced) {
                            keys.add(key + ":fence");
                        }
                        keys.addAll(own);
                        if (watched) {
                            keys.add(marker);
                        }
                        String flag = fenced ? "1" : "0";
                        String spec;
                        switch (kind) {
                            case "m":
                                spec = flag + " m";
                                break;
                            case "r": {
                                // Sometimes the reader's own thread holds the write lease (a downgrade).
                                String writer = r.nextInt(3) != 0
                                        ? "-"
                                        : holder != null && r.nextBoolean()
                                                ? (String) holder
                                                : TOKENS[r.nextInt(TOKENS.length)];
                                spec = flag + " r " + writer;
                                if (!writer.equals("-") && writer.equals(holder)) {
                                    path = "r own writer";
                                } else if (holder == null
                                        && writer.equals("-")
                                        && (Long) sim.command(List.of("ZCARD", key + ":wq")) > 0) {
                                    path = "r waiting writer";
                                }
                                break;
                            }
                            case "w":
                                spec = flag + " w " + waiter + " " + (r.nextBoolean() ? "0" : "100000");
                                if ((Long) sim.command(List.of("ZCARD", key + ":r")) > 0) {
                                    path = "w readers";
                                }
                                break;
                            case "q":
                                // A plain lock's hand-over queue; '-': a single attempt, which ignores the queue.
                                spec = flag + " q " + PLACES[r.nextInt(PLACES.length)] + " "
                                        + (r.nextInt(4) == 0 ? "-" : waiter) + " 100000";
                                break;
                            case "f":
                                spec = flag + " f " + PLACES[r.nextInt(PLACES.length)] + " " + waiter + " 100000";
                                List<?> head = (List<?>) sim.command(List.of("ZRANGE", key + ":q", "0", "0"));
                                if (sim.command(List.of("GET", key)) == null
                                        && !head.isEmpty()
                                        && !head.get(0).equals(waiter)) {
                                    path = "f behind";
                                }
                                break;
                            default:
                                spec = flag;
                                break;
                        }
                        argv.addAll(List.of(token, "100000", spec));
                        if (watched) {
                            argv.add(r.nextBoolean() ? "" : TOKENS[r.nextInt(TOKENS.length)]);
                            argv.add(r.nextBoolean() ? "" : "run" + r.nextInt(2));
                        }
                        break;
                    }
                    case "release.lua": {
                        boolean tombstone = r.nextBoolean();
                        boolean leaving = r.nextInt(4) != 0;
                        keys.add(key);
                        String spec = null;
                        switch (kind) {
                            case "m":
                                keys.addAll(own);
                                spec = "m " + own.size();
                                break;
                            case "r":
                                keys.add(key + ":r");
                                spec = "r 1";
                                break;
                            case "w":
                                if (leaving) {
                                    keys.addAll(own);
                                    spec = "w 2 " + waiter;
                                }
                                break;
                            case "f":
                                keys.addAll(own);
                                spec = "f 3 " + (leaving ? waiter : "-");
                                // A waiter that gives up has no lease: its release carries no token of a key.
                                token = leaving && r.nextInt(4) == 0 ? "-" : token;
                                break;
                            case "q": {
                                keys.addAll(own);
                                // The client's place moves to its next waiter's order, leaves, stays at the back
                                // only while others queue, is taken where a failed round was granted, or leaves only
                                // if still where a release left it; '-' keeps it as it is.
                                String place = PLACES[r.nextInt(PLACES.length)];
                                String[] nexts = {place, "-", "~" + place, "+" + place, "=" + place};
                                spec = "q 3 "
                                        + (r.nextInt(5) == 0
                                                ? "- - 0"
                                                : waiter + " " + nexts[r.nextInt(5)] + " 100000");
                                token = r.nextInt(4) == 0 ? "t-leave-" + r.nextInt(1_000) : token;
                                break;
                            }
                            default:
                                break;
                        }
                        if (tombstone) {
                            keys.add(key + ":t:" + token);
                        }
                        argv.addAll(List.of(token, tombstone ? "100000" : "0"));
                        if (spec != null) {
                            argv.add(spec);
                        } else if (!tombstone) {
                            argv.remove(1);
                        }
                        break;
                    }
                    case "extend.lua": {
                        String ttl = Long.toString(50_000 + r.nextInt(50_000));
                        String seq = Integer.toString(r.nextInt(4));
                        switch (kind) {
                            case "m":
                                keys.addAll(List.of(key, key + ":x"));
                                keys.addAll(own);
                                argv.addAll(List.of(token, ttl, seq, "m"));
                                break;
                            case "r":
                                keys.addAll(List.of(key, key + ":x:" + token, key + ":r"));
                                argv.addAll(List.of(token, ttl, seq, "r"));
                                break;
                            default:
                                keys.addAll(List.of(key, key + ":x"));
                                argv.addAll(List.of(token, ttl, seq));
                                break;
                        }
                        break;
                    }
                    default:
                        keys.addAll(List.of(key, key + ":fence"));
                        if (r.nextBoolean()) {
                            keys.add(marker);
                        }
                        argv.addAll(List.of(token, Integer.toString(r.nextInt(20))));
                        break;
                }
                String src = source(script);
                Object want;
                try {
                    want = normalize(jedis.eval(src, keys, argv), script);
                } catch (JedisDataException e) {
                    want = "error: " + e.getMessage();
                }
                Object got;
                try {
                    got = normalize(sim.eval(script, src, keys, argv), script);
                } catch (SimRedis.ErrorReply e) {
                    got = "error: " + e.getMessage();
                }
                String call = "call " + i + ": " + script + " keys " + keys + " argv " + argv;
                assertEquals(want, got, call);
                seen.add(signature(script, path, got));
                assertSameKindKeys(jedis, sim, key, call);
            }
            assertSameKeys(jedis, sim);
        }
        System.out.println("LuaShimTest lock kinds reached: " + seen);
        List<String> required = new ArrayList<>();
        for (String kind : KINDS) {
            required.addAll(List.of(
                    "acquire.lua " + kind + " granted",
                    "acquire.lua " + kind + " refused",
                    "release.lua " + kind + " 1",
                    "release.lua " + kind + " 0"));
            if (!kind.equals("r")) {
                required.add("release.lua " + kind + " -1");
            }
            if (kind.equals("plain") || kind.equals("m") || kind.equals("r")) {
                required.addAll(List.of("extend.lua " + kind + " 1", "extend.lua " + kind + " 0"));
                if (!kind.equals("r")) {
                    required.add("extend.lua " + kind + " -1");
                }
            }
        }
        required.addAll(List.of(
                "acquire.lua r own writer granted",
                "acquire.lua r waiting writer refused",
                "acquire.lua w readers refused",
                "acquire.lua f behind refused",
                "fence.lua f 1",
                "fence.lua w 1"));
        List<String> missing = new ArrayList<>(required);
        missing.removeAll(seen);
        assertTrue(missing.isEmpty(), "paths never reached: " + missing);
    }

    /**
     * The lock key of a call: a multi-resource lock's first resource; a read-write or a fair lock mostly on a key of
     * its own (so that it is free often enough to be granted), sometimes on a resource other kinds use too.
     */
    private static String key(SplittableRandom r, String kind, List<String> set) {
        switch (kind) {
            case "m":
                return set.get(0);
            case "r":
            case "w":
                return r.nextInt(10) < 7 ? "p:{rw}" : RESOURCES[r.nextInt(RESOURCES.length)];
            case "f":
                return r.nextInt(10) < 7 ? "p:{f}" : RESOURCES[r.nextInt(RESOURCES.length)];
            case "q":
                return r.nextInt(10) < 7 ? "p:{q}" : RESOURCES[r.nextInt(RESOURCES.length)];
            default:
                return r.nextInt(10) < 8
                        ? RESOURCES[r.nextInt(RESOURCES.length)]
                        : r.nextBoolean() ? "p:{rw}" : "p:{f}";
        }
    }

    /** A random non-empty set of resources, sorted, as a multi-resource lock holds them. */
    private static List<String> resources(SplittableRandom r) {
        TreeSet<String> set = new TreeSet<>();
        int n = 1 + r.nextInt(RESOURCES.length);
        while (set.size() < n) {
            set.add(RESOURCES[r.nextInt(RESOURCES.length)]);
        }
        return new ArrayList<>(set);
    }

    /** The keys a kind keeps beside its lock key (see {@code LockRef}). */
    private static List<String> kindKeys(String kind, String key, List<String> set) {
        switch (kind) {
            case "m":
                return set.subList(1, set.size());
            case "r":
            case "w":
                return List.of(key + ":r", key + ":wq");
            case "f":
            case "q":
                return List.of(key + ":q", key + ":qe", key + ":qh");
            default:
                return List.of();
        }
    }

    /**
     * Puts an entry that expired long ago (scored 1) into one of the kind's sets, or lets a lock key expire now, on
     * both servers alike: time stands still for the simulated server, so this is how entries and keys run out.
     */
    private static void plant(SplittableRandom r, Jedis jedis, SimRedis sim, String key, String kind) {
        List<List<String>> commands = new ArrayList<>();
        String waiter = WAITERS[r.nextInt(WAITERS.length)];
        switch (r.nextBoolean() ? "expire" : kind) {
            case "expire": {
                String[] ends = {"", "", ":r", ":wq", ":q", ":qe", ":qh"};
                commands.add(List.of("PEXPIRE", key + ends[r.nextInt(ends.length)], "0"));
                break;
            }
            case "f":
            case "q":
                commands.add(List.of("ZADD", key + ":q", "NX", PLACES[r.nextInt(PLACES.length)], waiter));
                commands.add(List.of("ZADD", key + ":qe", "1", waiter));
                break;
            case "w":
                commands.add(List.of("ZADD", key + ":wq", "1", waiter));
                break;
            default:
                commands.add(List.of("ZADD", key + ":r", "1", TOKENS[r.nextInt(TOKENS.length)]));
                break;
        }
        for (List<String> c : commands) {
            assertEquals(
                    reply(() -> jedis.sendCommand(command(c.get(0)), rest(c))),
                    reply(() -> sim.command(c)),
                    "plant " + c);
        }
    }

    /** What an outcome means, per script and path: the coverage the test must reach. */
    private static String signature(String script, String path, Object reply) {
        String outcome;
        if (reply instanceof String && ((String) reply).startsWith("error")) {
            outcome = "error";
        } else if (script.equals("acquire.lua")) {
            Object first = reply instanceof List ? ((List<?>) reply).get(0) : reply;
            outcome = Long.valueOf(1).equals(first) ? "granted" : "refused";
        } else {
            outcome = String.valueOf(reply);
        }
        return script + " " + path + " " + outcome;
    }

    /** The kind keys beside {@code key} hold the same members on both servers (their scores are expiry times). */
    private static void assertSameKindKeys(Jedis jedis, SimRedis sim, String key, String call) {
        for (String k : List.of(key + ":r", key + ":wq", key + ":q", key + ":qe")) {
            assertEquals(members(jedis, k), members(sim, k), call + ": members of " + k);
        }
        List<String> places = new ArrayList<>(jedis.zrangeWithScores(key + ":q", 0, -1).stream()
                .map(t -> t.getElement() + "=" + RedisNumbers.g17(t.getScore()))
                .toList());
        List<?> got = (List<?>) sim.command(List.of("ZRANGE", key + ":q", "0", "-1", "WITHSCORES"));
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < got.size(); i += 2) {
            mine.add(got.get(i) + "=" + got.get(i + 1));
        }
        assertEquals(places, mine, call + ": places in " + key + ":q");
    }

    /**
     * A sorted set's members: in order where the scores are a fair lock's places, sorted by name where they are
     * expiry times (the two servers' clocks differ, so entries written at different moments may tie on one).
     */
    private static List<String> members(Jedis jedis, String key) {
        List<String> m = new ArrayList<>(jedis.zrange(key, 0, -1));
        if (!key.endsWith(":q")) {
            m.sort(null);
        }
        return m;
    }

    private static List<String> members(SimRedis sim, String key) {
        List<String> m = new ArrayList<>();
        for (Object o : (List<?>) sim.command(List.of("ZRANGE", key, "0", "-1"))) {
            m.add((String) o);
        }
        if (!key.endsWith(":q")) {
            m.sort(null);
        }
        return m;
    }

    /** Both servers hold the same keys, with the same values, members and TTL presence. */
    private static void assertSameKeys(Jedis jedis, SimRedis sim) {
        assertEquals(new TreeSet<>(jedis.keys("*")), allKeys(sim), "keys");
        for (String k : jedis.keys("*")) {
            String type = jedis.type(k);
            if (type.equals("string")) {
                assertEquals(jedis.get(k), sim.command(List.of("GET", k)), "value of " + k);
            } else if (type.equals("zset")) {
                assertEquals(members(jedis, k), members(sim, k), "members of " + k);
            } else {
                for (String f : List.of("v", "inc", "id", "run", "intact")) {
                    assertEquals(jedis.hget(k, f), sim.command(List.of("HGET", k, f)), k + " field " + f);
                }
            }
            assertEquals(
                    Long.signum(jedis.pttl(k)), Long.signum((Long) sim.command(List.of("PTTL", k))), "TTL of " + k);
        }
    }

    // ------------------------------------------------------------------------------------------------ commands

    private static final String[] ZKEYS = {"z:a", "z:b", "s:str", "h:hash", "z:none"};
    private static final String[] MEMBERS = {
        "a",
        "b",
        "c",
        "aa",
        "B",
        "é",
        "",
        "10",
        "9",
        "a-member-longer-than-sixty-four-bytes-so-the-set-is-no-listpack-anymore-x"
    };
    private static final String[] SCORES = {
        "1",
        "2",
        "-1",
        "0",
        "-0",
        "1.5",
        "+2",
        "1e2",
        "1E2",
        ".5",
        "5.",
        "inf",
        "-inf",
        "+inf",
        "Infinity",
        "-INF",
        "0x10",
        "0x1p3",
        "0x",
        "1e400",
        "-1e400",
        "1e-400",
        "4.9e-324",
        "nan",
        "",
        " 1",
        "1 ",
        "abc",
        "1e",
        "1e+",
        "3.0000000000000001",
        "123456789012345678",
        "1700000000000123",
        "0.1",
        "1e16",
        "1e17",
        "-0.0",
        "0.0001",
        "1e-5"
    };
    private static final String[] RANGE_ENDS = {
        "-inf", "+inf", "inf", "(-inf", "(+inf", "0", "(0", "1", "(1", "2", "(2", "1.5", "1e400", "", "(", " 1", "nan",
        "abc", "0x10", "(1e2", "100", "-1"
    };
    private static final String[] INDEXES = {
        "0",
        "1",
        "2",
        "-1",
        "-2",
        "-100",
        "100",
        "+1",
        "01",
        "-0",
        "x",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808"
    };

    /**
     * The sorted set commands the scripts use, called directly on both servers with awkward inputs: score texts C's
     * strtod reads or refuses, ranges with open ends and infinities, negative and malformed indexes, every option of
     * ZADD and ZRANGE, keys of the wrong type, sets emptied (and so deleted), expiry. Replies, error texts included,
     * must match; then the same commands once more through a script, where replies pass through Lua.
     */
    @Test
    void sortedSetCommandsAnswerAsARealServerDoes() {
        long seed = 20261125L;
        System.out.println("LuaShimTest sorted sets seed " + seed);
        SplittableRandom r = new SplittableRandom(seed);
        SimRedis sim = new SimRedis(new SimWorld(seed), "sim", 1.0, 0, false);
        String viaLua = "local u = unpack or table.unpack; return redis.call(u(ARGV))";
        TreeSet<String> errors = new TreeSet<>();
        try (Jedis jedis = real.client()) {
            for (boolean lua : new boolean[] {false, true}) {
                jedis.flushAll();
                sim.flushAll();
                for (List<String> c : List.of(List.of("SET", "s:str", "x"), List.of("HSET", "h:hash", "f", "v"))) {
                    jedis.sendCommand(command(c.get(0)), rest(c));
                    sim.command(c);
                }
                for (int i = 0; i < 4_000; i++) {
                    List<String> c = randomCommand(r);
                    Object want;
                    Object got;
                    if (lua) {
                        want = reply(() -> jedis.eval(viaLua, List.of(), c));
                        got = reply(() -> sim.eval("direct", viaLua, List.of(), c));
                        // An error raised inside a script carries the script's position: compare that it failed.
                        want = want instanceof String && ((String) want).startsWith("error: ") ? "error" : want;
                        got = got instanceof String && ((String) got).startsWith("error: ") ? "error" : got;
                    } else {
                        want = reply(() -> jedis.sendCommand(command(c.get(0)), rest(c)));
                        got = reply(() -> sim.command(c));
                    }
                    if (c.get(0).equals("PTTL") && want instanceof Long) {
                        want = Long.signum((Long) want);
                        got = got instanceof Long ? Long.signum((Long) got) : got;
                    }
                    assertEquals(want, got, (lua ? "through a script, " : "") + "command " + i + ": " + c);
                    if (!lua && got instanceof String && ((String) got).startsWith("error: ")) {
                        errors.add((String) got);
                    }
                }
                assertSameKeys(jedis, sim);
            }
            System.out.println("LuaShimTest sorted sets: errors compared: " + errors);
            for (String e : List.of(
                    "ERR value is not a valid float",
                    "ERR min or max is not a float",
                    "ERR value is not an integer or out of range",
                    "ERR syntax error",
                    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX",
                    "ERR XX and NX options at the same time are not compatible",
                    "ERR GT, LT, and/or NX options at the same time are not compatible",
                    "ERR INCR option supports a single increment-element pair",
                    "WRONGTYPE Operation against a key holding the wrong kind of value")) {
                assertTrue(errors.contains("error: " + e), "never compared: " + e);
            }
            // Lua numbers reach Redis as "%.17g" writes them.
            for (String n : List.of("0.1", "1e17", "1700000000123", "1.5", "123456789.125", "-2", "1e-7")) {
                String script = "redis.call('SET', KEYS[1], tonumber(ARGV[1])); return redis.call('GET', KEYS[1])";
                assertEquals(
                        reply(() -> jedis.eval(script, List.of("n"), List.of(n))),
                        reply(() -> sim.eval("direct", script, List.of("n"), List.of(n))),
                        "number " + n);
            }
        }
    }

    /**
     * {@code string.format} against Redis's Lua (C's sprintf): the scripts write scores and TTLs with
     * {@code '%.0f'}, and LuaJ's own format would write "100000.0".
     */
    @Test
    void stringFormatWritesAsRedisLuaDoes() {
        String[] formats = {
            "%.0f", "%f", "%.2f", "%5.1f", "%-8.3f|", "%+.1f", "%010.2f", "%#.0f", "%e", "%.3E", "%g", "%.14g", "%.17g",
            "%G", "%#g", "%.0g", "%d", "%5d", "%-5d|", "%05d", "%.3d", "%.0d", "%+d", "% d", "%i", "%x", "%#x", "%X",
            "%o", "%#o", "%s", "%10s", "%.2s", "%q", "[%%]%s"
        };
        String[] values = {
            "0",
            "1",
            "-1",
            "0.5",
            "1.5",
            "2.5",
            "-2.5",
            "1e5",
            "1700000000123",
            "1700000000123.5",
            "123456789.125",
            "1e300",
            "1e-5",
            "0.1",
            "3.14159",
            "255",
            "1e15",
            "1e16",
            "123456789012345678"
        };
        String script = "return string.format(ARGV[1], tonumber(ARGV[2]))";
        SimRedis sim = new SimRedis(new SimWorld(1), "sim", 1.0, 0, false);
        try (Jedis jedis = real.client()) {
            for (String f : formats) {
                for (String v : values) {
                    boolean integer = f.matches(".*%[-+ #0-9.]*[diuxXoc].*");
                    if (integer && (v.contains(".") || v.contains("e") || v.length() > 15)) {
                        continue; // C converts a non-integral double to an integer by truncation; not used here
                    }
                    assertEquals(
                            reply(() -> jedis.eval(script, List.of(), List.of(f, v))),
                            reply(() -> sim.eval("direct", script, List.of(), List.of(f, v))),
                            f + " of " + v);
                }
            }
        }
    }

    private static List<String> randomCommand(SplittableRandom r) {
        String key = ZKEYS[r.nextInt(ZKEYS.length)];
        List<String> c = new ArrayList<>();
        switch (r.nextInt(12)) {
            case 0:
            case 1:
            case 2: {
                c.addAll(List.of("ZADD", key));
                for (String o : new String[] {"NX", "XX", "GT", "LT", "CH", "INCR"}) {
                    if (r.nextInt(6) == 0) {
                        c.add(r.nextBoolean() ? o : o.toLowerCase(java.util.Locale.ROOT));
                    }
                }
                int pairs = r.nextInt(8) == 0 ? 0 : 1 + r.nextInt(3);
                for (int p = 0; p < pairs; p++) {
                    c.add(r.nextInt(3) == 0 ? SCORES[r.nextInt(SCORES.length)] : Integer.toString(r.nextInt(5)));
                    c.add(MEMBERS[r.nextInt(MEMBERS.length)]);
                }
                if (r.nextInt(10) == 0) {
                    c.add("1"); // a score without its member
                }
                break;
            }
            case 3:
                c.addAll(List.of("ZREM", key));
                for (int n = r.nextInt(3); n >= 0; n--) {
                    c.add(MEMBERS[r.nextInt(MEMBERS.length)]);
                }
                break;
            case 4:
                c.addAll(List.of("ZSCORE", key, MEMBERS[r.nextInt(MEMBERS.length)]));
                break;
            case 5:
                c.addAll(List.of("ZCARD", key));
                break;
            case 6:
            case 7: {
                boolean byScore = r.nextBoolean();
                c.addAll(List.of("ZRANGE", key));
                if (byScore) {
                    c.addAll(List.of(
                            RANGE_ENDS[r.nextInt(RANGE_ENDS.length)],
                            RANGE_ENDS[r.nextInt(RANGE_ENDS.length)],
                            "BYSCORE"));
                } else {
                    c.addAll(List.of(INDEXES[r.nextInt(INDEXES.length)], INDEXES[r.nextInt(INDEXES.length)]));
                }
                options(r, c, true);
                break;
            }
            case 8:
                c.addAll(List.of(
                        "ZRANGEBYSCORE",
                        key,
                        RANGE_ENDS[r.nextInt(RANGE_ENDS.length)],
                        RANGE_ENDS[r.nextInt(RANGE_ENDS.length)]));
                options(r, c, false);
                break;
            case 9:
                c.addAll(List.of(
                        "ZREMRANGEBYSCORE",
                        key,
                        RANGE_ENDS[r.nextInt(RANGE_ENDS.length)],
                        RANGE_ENDS[r.nextInt(RANGE_ENDS.length)]));
                if (r.nextInt(20) == 0) {
                    c.remove(c.size() - 1);
                }
                break;
            case 10:
                // Expiry: far off (the clocks of the two servers do not agree), or at once.
                c.addAll(List.of("PEXPIRE", key, r.nextInt(4) == 0 ? "0" : "100000"));
                break;
            default:
                c.addAll(List.of(new String[] {"PTTL", "EXISTS", "DEL"}[r.nextInt(3)], key));
                break;
        }
        return c;
    }

    /** Optional words of ZRANGE ({@code full}) or ZRANGEBYSCORE, sometimes repeated or misplaced. */
    private static void options(SplittableRandom r, List<String> c, boolean full) {
        List<String> words = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            words.add("WITHSCORES");
        }
        if (r.nextInt(3) == 0) {
            words.addAll(List.of("LIMIT", INDEXES[r.nextInt(INDEXES.length)], INDEXES[r.nextInt(INDEXES.length)]));
        }
        if (full && r.nextInt(3) == 0) {
            words.add("REV");
        }
        if (r.nextInt(15) == 0) {
            words.add(new String[] {"REV", "BYSCORE", "LIMIT", "WITHSCORES", "bogus"}[r.nextInt(5)]);
        }
        java.util.Collections.shuffle(words, new java.util.Random(r.nextLong()));
        c.addAll(words);
    }

    private static ProtocolCommand command(String name) {
        byte[] raw = name.getBytes(StandardCharsets.UTF_8);
        return () -> raw;
    }

    private static String[] rest(List<String> c) {
        return c.subList(1, c.size()).toArray(new String[0]);
    }

    /** A reply in one form for both servers: text for bulk and status replies, "error: text" for an error. */
    private static Object reply(java.util.concurrent.Callable<Object> call) {
        try {
            return plain(call.call());
        } catch (JedisDataException | SimRedis.ErrorReply e) {
            return "error: " + e.getMessage();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static Object plain(Object reply) {
        if (reply instanceof byte[]) {
            return new String((byte[]) reply, StandardCharsets.UTF_8);
        }
        if (reply instanceof SimRedis.Status) {
            return ((SimRedis.Status) reply).text();
        }
        if (reply instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object o : (List<?>) reply) {
                out.add(plain(o));
            }
            return out;
        }
        return reply;
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
