/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.nio.charset.StandardCharsets;
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
     * The Lua strings of recent Java strings, and back: keys, tokens, replies and the scripts' own constants repeat
     * across calls, and converting each one (UTF-8 both ways) is a good part of a call's cost. Two direct-mapped
     * caches, a slot per hash: a Java string by its hash (then equality), a Lua string by its identity (its hash is
     * computed when it is made); a newer string takes the slot of an older one.
     */
    private static final int CACHE = 4_096;

    private final String[] javaKeys = new String[CACHE];
    private final LuaString[] javaValues = new LuaString[CACHE];
    private final LuaString[] luaKeys = new LuaString[CACHE];
    private final String[] luaValues = new String[CACHE];

    private SimRedis server;

    private static final LuaString KEYS = LuaString.valueOf("KEYS");
    private static final LuaString ARGV = LuaString.valueOf("ARGV");
    private static final LuaString WORDS = LuaString.valueOf("%S+");

    /**
     * What {@code string.gmatch(s, '%S+')} returns: an iterator over the runs of characters that are not white space
     * (C's {@code isspace}, as Lua's {@code %s}).
     */
    private static final class Words extends VarArgFunction {
        private final LuaString src;
        private int at;

        Words(LuaString src) {
            this.src = src;
        }

        @Override
        public Varargs invoke(Varargs args) {
            byte[] b = src.m_bytes;
            int end = src.m_offset + src.m_length;
            int i = src.m_offset + at;
            while (i < end && space(b[i])) {
                i++;
            }
            if (i >= end) {
                at = src.m_length;
                return NIL;
            }
            int start = i;
            while (i < end && !space(b[i])) {
                i++;
            }
            at = i - src.m_offset;
            return src.substring(start - src.m_offset, i - src.m_offset);
        }

        private static boolean space(byte c) {
            return c == ' ' || (c >= '\t' && c <= '\r');
        }
    }

    private LuaShim() {
        globals.load(new JseBaseLib());
        globals.load(new PackageLib());
        globals.load(new StringLib());
        globals.load(new TableLib());
        globals.load(new JseMathLib());
        LoadState.install(globals);
        LuaC.install(globals);
        // The string table is also the strings' metatable index, so ("%d"):format(...) gets this one too.
        LuaValue string = globals.get("string");
        string.set("format", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaFormat.format(args);
            }
        });
        // The scripts split their kind words with gmatch(s, '%S+'): that pattern is read here directly, every other
        // one by LuaJ's matcher.
        LuaValue gmatch = string.get("gmatch");
        string.set("gmatch", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                LuaString src = args.checkstring(1);
                LuaString pattern = args.checkstring(2);
                return pattern.raweq(WORDS) ? new Words(src) : gmatch.invoke(args);
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
        int slot = s.hashCode() & (CACHE - 1);
        String k = javaKeys[slot];
        if (k == s || s.equals(k)) {
            return javaValues[slot];
        }
        byte[] ascii = s.getBytes(StandardCharsets.UTF_8);
        // ASCII (every key, token and number the library sends) is copied as it is; anything else goes through LuaJ.
        LuaString v = ascii.length == s.length() ? LuaString.valueUsing(ascii) : LuaString.valueOf(s);
        javaKeys[slot] = s;
        javaValues[slot] = v;
        int back = v.hashCode() & (CACHE - 1);
        luaKeys[back] = v;
        luaValues[back] = s;
        return v;
    }

    /**
     * The Java string of a Lua string. Strings the script holds as constants (command names, options, field names)
     * are the same objects on every call: remembered, they cost one look at a slot, and hand the server the same Java
     * string each time (its hash already computed).
     */
    private String java(LuaValue v) {
        if (!(v instanceof LuaString)) {
            return v.tojstring();
        }
        int slot = v.hashCode() & (CACHE - 1);
        if (luaKeys[slot] == v) {
            return luaValues[slot];
        }
        String s = ascii((LuaString) v) ? asciiString((LuaString) v) : v.tojstring();
        luaKeys[slot] = (LuaString) v;
        luaValues[slot] = s;
        return s;
    }

    private static boolean ascii(LuaString v) {
        byte[] b = v.m_bytes;
        for (int i = v.m_offset, end = v.m_offset + v.m_length; i < end; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private static String asciiString(LuaString v) {
        return new String(v.m_bytes, v.m_offset, v.m_length, StandardCharsets.ISO_8859_1);
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
        globals.rawset(KEYS, table(keys));
        globals.rawset(ARGV, table(argv));
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
