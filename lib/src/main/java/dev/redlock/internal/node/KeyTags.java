/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The keys of a Redis Cluster's slot node, on the library's short-lived connections (checks, fencing repair): every
 * key a command names gets the node's hash tag in front, and keys a {@code SCAN} returns lose it, so the code above
 * speaks of keys as for any other node. The lock rounds tag their scripts' keys themselves
 * ({@link NodeOp#encoded(String)}).
 */
final class KeyTags {

    /** Commands whose arguments after the name are all keys. */
    private static final Set<String> ALL_KEYS = Set.of("DEL", "UNLINK", "EXISTS");
    /** Commands whose first argument is a key. */
    private static final Set<String> FIRST_KEY =
            Set.of("GET", "SET", "HGET", "HMGET", "HSET", "HGETALL", "PTTL", "PEXPIRE", "TYPE", "ZRANGE", "ZSCORE");

    private KeyTags() {}

    /** {@code args} with {@code tag} before each key. */
    static String[] command(String[] args, String tag) {
        String verb = args[0].toUpperCase(Locale.ROOT);
        String[] out = args.clone();
        if (verb.equals("EVAL") || verb.equals("EVALSHA")) {
            return NodeOp.tagged(args, tag, false);
        }
        if (ALL_KEYS.contains(verb)) {
            for (int i = 1; i < out.length; i++) {
                out[i] = tag + out[i];
            }
        } else if (FIRST_KEY.contains(verb) && out.length > 1) {
            out[1] = tag + out[1];
        } else if (verb.equals("SCAN")) {
            boolean matched = false;
            for (int i = 2; i + 1 < out.length; i += 2) {
                if (out[i].equalsIgnoreCase("MATCH")) {
                    out[i + 1] = tag + out[i + 1]; // '{' and '}' are plain characters in a SCAN pattern
                    matched = true;
                }
            }
            if (!matched) {
                throw new IllegalArgumentException("SCAN on a cluster slot's node needs a MATCH pattern");
            }
        }
        return out;
    }

    /** The reply, with {@code tag} taken off the keys a {@code SCAN} returned. */
    static Object reply(String[] args, Object reply, String tag) {
        if (!args[0].equalsIgnoreCase("SCAN") || !(reply instanceof List) || ((List<?>) reply).size() != 2) {
            return reply;
        }
        List<?> page = (List<?>) reply;
        if (!(page.get(1) instanceof List)) {
            return reply;
        }
        List<Object> keys = new ArrayList<>();
        for (Object k : (List<?>) page.get(1)) {
            String key = Commands.text(k);
            keys.add(
                    key != null && key.startsWith(tag)
                            ? key.substring(tag.length()).getBytes(java.nio.charset.StandardCharsets.UTF_8)
                            : k);
        }
        return List.of(page.get(0), keys);
    }
}
