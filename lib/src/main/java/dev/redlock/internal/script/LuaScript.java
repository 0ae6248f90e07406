/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script loaded once from a {@code .lua} resource, with its SHA-1 so nodes run it by {@code EVALSHA}. A node
 * whose script cache was flushed (restart, {@code SCRIPT FLUSH}) answers NOSCRIPT and the caller falls back to
 * {@code EVAL}, which also caches the script again.
 */
public final class LuaScript {

    /** Compare-and-delete: releases a key only while it holds the caller's token. */
    public static final LuaScript RELEASE = load("release.lua");
    /** Compare-and-expire: extends a key only while it holds the caller's token; never recreates it. */
    public static final LuaScript EXTEND = load("extend.lua");
    /** SET NX PX with the release tombstone, incarnation marker and fencing counter read around it. */
    public static final LuaScript ACQUIRE = load("acquire.lua");
    /** Raises the fencing counter to a candidate while the lock key still holds the caller's token. */
    public static final LuaScript FENCE = load("fence.lua");
    /** Compare-and-set maintenance of a node's incarnation marker: rotate, adopt a run_id, mark counters intact. */
    public static final LuaScript MARKER = load("marker.lua");

    /** Copies a fencing counter into a node whose counters are being repaired. */
    public static final LuaScript REPAIR = load("repair.lua");

    /** Reads who holds a lock key (a token prefix, and the holder's client entry) and its TTL, for inspection. */
    public static final LuaScript INSPECT = load("inspect.lua");
    /** Deletes a lock key still held by the holder an inspection saw (a forced unlock), and tells its waiters. */
    public static final LuaScript FORCE = load("force.lua");
    /** Replaces a client's entry: who it is and which of its leases are held for a while (read by inspections). */
    public static final LuaScript HOLDERS = load("holders.lua");
    /** Every script the lock path sends, in the order a new connection loads them. */
    public static final java.util.List<LuaScript> ALL =
            java.util.List.of(ACQUIRE, RELEASE, EXTEND, FENCE, MARKER, INSPECT, FORCE, HOLDERS);

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    static LuaScript load(String resource) {
        String path = "/dev/redlock/lua/" + resource;
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua resource " + path + " is missing from the classpath");
            }
            return new LuaScript(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua resource " + path, e);
        }
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }

    public String name() {
        return name;
    }

    public String source() {
        return source;
    }

    public String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return name + "@" + sha1.substring(0, 8);
    }
}
