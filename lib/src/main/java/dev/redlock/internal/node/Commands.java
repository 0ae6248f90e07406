/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's commands, one at a time and blocking, for the library's occasional work beside the lock rounds (the
 * topology check, the fencing counter repair): over a short-lived connection of the library's own
 * ({@link BlockingConnection}), a user's {@link NodeTransport}, or a simulated server.
 */
@FunctionalInterface
public interface Commands {

    /**
     * Sends one command and returns its reply: {@code byte[]} (bulk string), {@link String} (simple string),
     * {@link Long}, {@link List}, or null.
     *
     * @param args the command's name, then its arguments
     * @throws RedisErrorReply if the node answered with an error reply (its text is the message)
     * @throws java.io.UncheckedIOException or another runtime exception if the node could not be reached or answered
     *     nothing usable
     */
    Object call(String... args);

    /** A bulk or simple string reply as text; null for nil. */
    static String text(Object reply) {
        if (reply == null) {
            return null;
        }
        if (reply instanceof byte[]) {
            return new String((byte[]) reply, StandardCharsets.UTF_8);
        }
        return reply.toString();
    }

    /** An array reply as text, element by element (nil elements stay null). */
    static List<String> texts(Object reply) {
        if (!(reply instanceof List)) {
            throw new IllegalStateException("expected an array reply, got " + describe(reply));
        }
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) reply) {
            out.add(text(o));
        }
        return out;
    }

    /** A {@code CONFIG GET} reply (name, value, name, value...) as a map. */
    static Map<String, String> pairs(Object reply) {
        List<String> flat = texts(reply);
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put(flat.get(i), flat.get(i + 1));
        }
        return map;
    }

    private static String describe(Object reply) {
        return reply == null ? "nil" : reply.getClass().getSimpleName();
    }

    /** The commands of a user's transport: one command per call. */
    static Commands of(NodeTransport transport, String nodeName) {
        return args -> {
            List<Object> replies;
            try {
                replies = transport.pipeline(List.of(new NodeTransport.Command(List.of(args), 0, 0)));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(nodeName + ": " + e.getMessage(), e);
            }
            if (replies == null || replies.size() != 1) {
                throw new IllegalStateException(nodeName + ": the transport answered "
                        + (replies == null ? "nothing" : replies.size() + " replies") + " to one command");
            }
            Object reply = replies.get(0);
            if (reply instanceof NodeTransport.ErrorReply) {
                throw new RedisErrorReply(((NodeTransport.ErrorReply) reply).message());
            }
            return reply;
        };
    }
}
