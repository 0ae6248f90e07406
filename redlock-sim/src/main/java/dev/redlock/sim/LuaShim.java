/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaInteger;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseBaseLib;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * Runs the library's Lua scripts on a {@link SimRedis} under LuaJ, with a {@code redis.call} that maps to the
 * simulated server's commands and Redis's conversions between Lua and replies: a number argument is written as
 * {@code "%.17g"} formats it, a nil reply is {@code false}, a status is {@code {ok=...}}, an array is a table; a
 * returned number is truncated to an integer, a table becomes an array up to its first nil, {@code false} becomes a
 * nil reply. {@code string.format} is C's (see {@link LuaFormat}), not LuaJ's.
 *
 * <p>One interpreter per thread (building one costs milliseconds), with every script compiled once. Not thread-safe:
 * use {@link #forThread()}.
 */
final class LuaShim {

    private static final ThreadLocal<LuaShim> PER_THREAD = ThreadLocal.withInitial(LuaShim::new);

    private final Globals globals = new Globals();
    private final Map<String, LuaValue> compiled = new HashMap<>();
    /**
     * The Lua strings of recent Java strings, and back: keys, tokens and replies repeat across calls, and converting
     * each one (UTF-8 both ways) is a good part of a call's cost. Cleared when it grows, so a long run stays small.
     */
    private final Map<String, LuaString> toLuaStrings = new HashMap<>();

    @SuppressWarnings("IdentityHashMapUsage") // keyed by LuaJ's interned strings themselves, on purpose
    private final Map<LuaString, String> fromLuaStrings = new java.util.IdentityHashMap<>();

    private SimRedis server;

    private LuaShim() {
        globals.load(new JseBaseLib());
        globals.load(new PackageLib());
        globals.load(new StringLib());
        globals.load(new TableLib());
        globals.load(new JseMathLib());
        LoadState.install(globals);
        LuaC.install(globals);
        // The string table is also the strings' metatable index, so ("%d"):format(...) gets this one too.
        globals.get("string").set("format", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaFormat.format(args);
            }
        });
        LuaTable redis = new LuaTable();
        redis.set("call", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                try {
                    return toLua(server.command(command(args)));
                } catch (SimRedis.ErrorReply e) {
                    throw new LuaError(e.getMessage());
                }
            }
        });
        // As in Redis: the error comes back as a table {err = text} instead of ending the script.
        redis.set("pcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                try {
                    return toLua(server.command(command(args)));
                } catch (SimRedis.ErrorReply e) {
                    LuaTable t = new LuaTable();
                    t.set("err", e.getMessage());
                    return t;
                }
            }
        });
        globals.set("redis", redis);
    }

    private LuaString lua(String s) {
        LuaString v = toLuaStrings.get(s);
        if (v == null) {
            if (toLuaStrings.size() >= 4_096) {
                toLuaStrings.clear();
                fromLuaStrings.clear();
            }
            v = LuaString.valueOf(s);
            toLuaStrings.put(s, v);
            fromLuaStrings.put(v, s);
        }
        return v;
    }

    private String java(LuaValue v) {
        String s = v instanceof LuaString ? fromLuaStrings.get(v) : null;
        return s != null ? s : v.tojstring();
    }

    private List<String> command(Varargs args) {
        List<String> command = new ArrayList<>(args.narg());
        for (int i = 1; i <= args.narg(); i++) {
            LuaValue a = args.arg(i);
            if (a.type() == LuaValue.TNUMBER) {
                // Redis 7.0 writes a number argument with "%.17g", not as Lua's tostring would.
                command.add(RedisNumbers.g17(a.todouble()));
                continue;
            }
            if (!a.isstring()) {
                throw new LuaError("ERR Lua redis lib command arguments must be strings or integers");
            }
            command.add(java(a));
        }
        return command;
    }

    static LuaShim forThread() {
        return PER_THREAD.get();
    }

    /**
     * Runs {@code source} with {@code KEYS} and {@code ARGV} on {@code on}; returns the reply as
     * {@link SimRedis#command} does, or throws {@link SimRedis.ErrorReply} for an error.
     */
    Object run(SimRedis on, String source, List<String> keys, List<String> argv) {
        LuaValue chunk = compiled.computeIfAbsent(source, s -> globals.load(s, "@user_script"));
        globals.set("KEYS", table(keys));
        globals.set("ARGV", table(argv));
        server = on;
        try {
            return fromLua(chunk.call());
        } catch (LuaError e) {
            String m = String.valueOf(e.getMessage());
            throw new SimRedis.ErrorReply(
                    m.startsWith("ERR") || m.contains(" ERR ") || m.contains("WRONGTYPE")
                            ? m
                            : "ERR Error running script: " + m);
        } finally {
            server = null;
        }
    }

    private LuaTable table(List<String> values) {
        LuaTable t = new LuaTable(values.size(), 0);
        for (int i = 0; i < values.size(); i++) {
            t.set(i + 1, lua(values.get(i)));
        }
        return t;
    }

    private LuaValue toLua(Object reply) {
        if (reply == null) {
            return LuaValue.FALSE;
        }
        if (reply instanceof Long) {
            return LuaInteger.valueOf((Long) reply);
        }
        if (reply instanceof String) {
            return lua((String) reply);
        }
        if (reply instanceof SimRedis.Status) {
            LuaTable t = new LuaTable();
            t.set("ok", ((SimRedis.Status) reply).text());
            return t;
        }
        if (reply instanceof List) {
            List<?> list = (List<?>) reply;
            LuaTable t = new LuaTable(list.size(), 0);
            for (int i = 0; i < list.size(); i++) {
                t.set(i + 1, toLua(list.get(i)));
            }
            return t;
        }
        throw new IllegalStateException("no Lua form for " + reply);
    }

    @SuppressWarnings("ReferenceEquality") // LuaJ's TRUE and FALSE are singletons
    private Object fromLua(LuaValue v) {
        if (v.isnil() || v == LuaValue.FALSE) {
            return null;
        }
        if (v == LuaValue.TRUE) {
            return 1L;
        }
        if (v.type() == LuaValue.TNUMBER) {
            return (long) v.todouble();
        }
        if (v instanceof LuaString) {
            return java(v);
        }
        if (v.istable()) {
            LuaValue err = v.get("err");
            if (!err.isnil()) {
                throw new SimRedis.ErrorReply(err.tojstring());
            }
            LuaValue ok = v.get("ok");
            if (!ok.isnil()) {
                return new SimRedis.Status(ok.tojstring());
            }
            List<Object> out = new ArrayList<>();
            for (int i = 1; ; i++) {
                LuaValue e = v.get(i);
                if (e.isnil()) {
                    break;
                }
                out.add(fromLua(e));
            }
            return out;
        }
        throw new SimRedis.ErrorReply("ERR unsupported Lua return type " + v.typename());
    }
}
