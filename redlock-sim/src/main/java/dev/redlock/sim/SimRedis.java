package dev.redlock.sim;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A simulated Redis server: an in-memory keyspace whose TTLs run on the server's own (drifting) clock, the handful of
 * commands the library's scripts call, and {@code EVAL} of the library's real script files through {@link LuaShim}.
 * A crash loses everything not persisted; a restart gets a new run_id, as a real {@code redis-server} does.
 *
 * <p>Only what the library uses is implemented, with Redis's semantics for it (checked against a real server by
 * {@code LuaShimTest}); anything else is an error reply, so a script that starts using a new command fails loudly.
 */
public final class SimRedis extends SimProcess {

    /** An error reply ({@code -ERR ...}); scripts propagate it as Redis does. */
    public static final class ErrorReply extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ErrorReply(String message) {
            super(message, null, false, false);
        }
    }

    /** A status reply such as {@code +OK}. */
    public record Status(String text) {
    }

    private static final long EPOCH_MILLIS = 1_700_000_000_000L;

    private final String name;
    private final Map<String, Object> data = new HashMap<>();
    private final Map<String, Long> expires = new HashMap<>();
    private final boolean persistent;
    private String runId;
    private long bootWorldNanos;
    private boolean down;
    private int incarnation;
    /** Tokens a release script ran for, keyed by the lock key (for the orphan checker). */
    private final Map<String, Long> releasedAt = new HashMap<>();
    /** Keys an acquire set after a release of the same token had run here, until a later release removes them. */
    private final Map<String, String> orphans = new LinkedHashMap<>();

    /**
     * @param persistent whether every write is persisted before it is acknowledged ({@code appendfsync always}):
     *        a crash then loses nothing
     */
    public SimRedis(SimWorld world, String name, double rate, long offset, boolean persistent) {
        super(world, name, rate, offset);
        this.name = name;
        this.persistent = persistent;
        this.runId = newRunId();
    }

    public String name() {
        return name;
    }

    public boolean persistent() {
        return persistent;
    }

    public boolean down() {
        return down;
    }

    public String runId() {
        return runId;
    }

    /** Bumped on every restart: replies and requests of an older incarnation's connections are dropped. */
    public int incarnation() {
        return incarnation;
    }

    private String newRunId() {
        StringBuilder b = new StringBuilder(40);
        for (int i = 0; i < 40; i++) {
            b.append(Character.forDigit(world().random().nextInt(16), 16));
        }
        return b.toString();
    }

    private final List<Runnable> crashListeners = new ArrayList<>();

    /** Runs {@code listener} whenever the process dies (its clients' connections break). */
    public void onCrash(Runnable listener) {
        crashListeners.add(listener);
    }

    /** The process dies; what a non-persistent server held is gone. */
    public void crash(boolean loseData) {
        world().trace(name + " crashes" + (loseData && !persistent ? ", losing its data" : ""));
        down = true;
        incarnation++;
        for (Runnable r : crashListeners) {
            r.run();
        }
        if (loseData && !persistent) {
            flushAll();
        }
    }

    /** The process starts again: a new run_id, uptime from zero. */
    public void restart() {
        world().trace(name + " restarts");
        down = false;
        incarnation++;
        runId = newRunId();
        bootWorldNanos = world().now();
    }

    /** Somebody ran {@code FLUSHALL}: every key is gone, the process and its run_id stay. */
    public void flushAll() {
        world().trace(name + " FLUSHALL");
        data.clear();
        expires.clear();
        orphans.clear();
    }

    /** The server's {@code INFO} text, as far as the library reads it. */
    public String info() {
        long uptime = (long) ((world().now() - bootWorldNanos) * rate()) / 1_000_000_000L;
        return "# Server\r\nrun_id:" + runId + "\r\nuptime_in_seconds:" + uptime + "\r\n# Persistence\r\naof_enabled:"
                + (persistent ? 1 : 0) + "\r\n";
    }

    /** The server's wall clock in milliseconds (for {@code TIME}), on its own drifting clock. */
    long wallMillis() {
        return EPOCH_MILLIS + clockNanos() / 1_000_000L;
    }

    private long nowMillis() {
        return clockNanos() / 1_000_000L;
    }

    // ------------------------------------------------------------------------------------------------ keyspace

    private Object lookup(String key) {
        Long at = expires.get(key);
        if (at != null && at <= nowMillis()) {
            data.remove(key);
            expires.remove(key);
            return null;
        }
        return data.get(key);
    }

    /** The lock keys present now, with their values (for the checkers). */
    public Map<String, String> stringKeys() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String k : new ArrayList<>(data.keySet())) {
            Object v = lookup(k);
            if (v instanceof String) {
                out.put(k, (String) v);
            }
        }
        return out;
    }

    /**
     * Orphans: lock keys an acquire set with a token after a release of that token had already run here, and that no
     * later release removed. Nobody will delete such a key: it stays for its whole TTL.
     */
    public List<String> orphans() {
        return new ArrayList<>(orphans.values());
    }

    private String string(String key) {
        Object v = lookup(key);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    }

    @SuppressWarnings("unchecked")
    private Map<String, String> hash(String key, boolean create) {
        Object v = lookup(key);
        if (v == null) {
            if (!create) {
                return null;
            }
            Map<String, String> h = new LinkedHashMap<>();
            data.put(key, h);
            return h;
        }
        if (v instanceof Map) {
            return (Map<String, String>) v;
        }
        throw new ErrorReply("WRONGTYPE Operation against a key holding the wrong kind of value");
    }

    /**
     * Runs one command and returns its reply: {@code Long}, {@code String} (bulk), {@code null} (nil), {@link Status},
     * {@code List} (array); an error reply is thrown as {@link ErrorReply}.
     */
    public Object command(List<String> args) {
        String cmd = args.get(0).toUpperCase(java.util.Locale.ROOT);
        switch (cmd) {
            case "EXISTS":
                return lookup(args.get(1)) == null ? 0L : 1L;
            case "GET":
                return string(args.get(1));
            case "SET":
                return set(args);
            case "PEXPIRE": {
                if (lookup(args.get(1)) == null) {
                    return 0L;
                }
                expires.put(args.get(1), nowMillis() + Long.parseLong(args.get(2)));
                return 1L;
            }
            case "PTTL": {
                if (lookup(args.get(1)) == null) {
                    return -2L;
                }
                Long at = expires.get(args.get(1));
                return at == null ? -1L : at - nowMillis();
            }
            case "PUBLISH":
                return 0L; // nobody subscribes in a simulation: waiters poll, as they do while a subscription is down
            case "DEL": {
                long n = 0;
                for (int i = 1; i < args.size(); i++) {
                    if (lookup(args.get(i)) != null) {
                        data.remove(args.get(i));
                        expires.remove(args.get(i));
                        n++;
                    }
                }
                return n;
            }
            case "HGET": {
                Map<String, String> h = hash(args.get(1), false);
                return h == null ? null : h.get(args.get(2));
            }
            case "HMGET": {
                Map<String, String> h = hash(args.get(1), false);
                List<Object> out = new ArrayList<>();
                for (int i = 2; i < args.size(); i++) {
                    out.add(h == null ? null : h.get(args.get(i)));
                }
                return out;
            }
            case "HSET": {
                if (args.size() < 4 || args.size() % 2 != 0) {
                    throw new ErrorReply("ERR wrong number of arguments for 'hset' command");
                }
                Map<String, String> h = hash(args.get(1), true);
                long added = 0;
                for (int i = 2; i < args.size(); i += 2) {
                    if (h.put(args.get(i), args.get(i + 1)) == null) {
                        added++;
                    }
                }
                return added;
            }
            case "TIME": {
                long micros = (EPOCH_MILLIS * 1000L) + clockNanos() / 1000L;
                return List.of(Long.toString(micros / 1_000_000L), Long.toString(micros % 1_000_000L));
            }
            default:
                throw new ErrorReply("ERR unknown command '" + args.get(0) + "' in this simulation");
        }
    }

    private Object set(List<String> args) {
        String key = args.get(1);
        boolean nx = false;
        long px = -1;
        for (int i = 3; i < args.size(); i++) {
            String o = args.get(i).toUpperCase(java.util.Locale.ROOT);
            if (o.equals("NX")) {
                nx = true;
            } else if (o.equals("PX") && i + 1 < args.size()) {
                px = Long.parseLong(args.get(++i));
                if (px <= 0) {
                    throw new ErrorReply("ERR invalid expire time in 'set' command");
                }
            } else {
                throw new ErrorReply("ERR syntax error");
            }
        }
        if (nx && lookup(key) != null) {
            return null;
        }
        data.put(key, args.get(2));
        if (px > 0) {
            expires.put(key, nowMillis() + px);
        } else {
            expires.remove(key);
        }
        return new Status("OK");
    }

    /**
     * Runs {@code EVAL source numkeys key... arg...} through the Lua interpreter. Also records, for the orphan
     * checker, when a release ran for a token and when an acquire later set that very token again.
     */
    public Object eval(String scriptName, String source, List<String> keys, List<String> argv) {
        Object reply = LuaShim.forThread().run(this, source, keys, argv);
        String lease = keys.get(0) + " " + argv.get(0);
        if (scriptName.equals("release.lua")) {
            releasedAt.put(lease, world().now());
            orphans.remove(lease);
        } else if (scriptName.equals("acquire.lua") && granted(reply)) {
            Long released = releasedAt.get(lease);
            if (released != null) {
                orphans.put(lease, "node " + name + ": key " + keys.get(0) + " set to token "
                        + argv.get(0).substring(0, Math.min(8, argv.get(0).length())) + "… at " + world().now() / 1_000_000
                        + " ms, after a release of that token ran here at " + released / 1_000_000 + " ms");
            }
        }
        return reply;
    }

    private static boolean granted(Object reply) {
        Object first = reply instanceof List ? ((List<?>) reply).get(0) : reply;
        return Long.valueOf(1).equals(first);
    }

    /** The keys matching a SCAN {@code MATCH} pattern ({@code *}, {@code ?} and backslash escapes) of one type. */
    public List<String> scan(String glob, String type) {
        Pattern p = Pattern.compile(globToRegex(glob), Pattern.DOTALL);
        List<String> out = new ArrayList<>();
        for (String k : new ArrayList<>(data.keySet())) {
            Object v = lookup(k);
            boolean typed = v != null && ("hash".equals(type) ? v instanceof Map : v instanceof String);
            if (typed && p.matcher(k).matches()) {
                out.add(k);
            }
        }
        out.sort(null);
        return out;
    }

    private static String globToRegex(String glob) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\' && i + 1 < glob.length()) {
                b.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
            } else if (c == '*') {
                b.append(".*");
            } else if (c == '?') {
                b.append('.');
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return b.toString();
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
