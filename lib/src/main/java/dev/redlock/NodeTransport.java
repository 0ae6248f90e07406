/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.util.List;
import java.util.Objects;

/**
 * A connection to one Redis master that the application built and manages itself (a pooled client, a Sentinel-aware
 * client, a client of another library), given to {@link RedlockConfig.Builder#node(String, NodeTransport)}. The
 * {@code redlock-jedis} module adapts Jedis's {@code UnifiedJedis}; an adapter for another client implements this one
 * method.
 *
 * <p>The library calls {@link #pipeline} from one thread of its own per node, never from two threads at once for the
 * same node, and never from a lock caller's thread; a round never waits for it longer than the per-node timeout, so a
 * slow transport costs that node's vote only. Keep the client's own socket timeout close to the per-node timeout: a
 * stalled call blocks that node's thread until the client gives up. The library never closes the client behind it.
 *
 * <p>Worst case first: a command whose reply never came may have been applied, so when {@link #pipeline} throws, every
 * command of the call counts as possibly applied (a lock may be released on that node later).
 */
@FunctionalInterface
public interface NodeTransport {

    /**
     * Sends {@code commands} in order, pipelined on one connection of the client, and returns their replies in the
     * same order. The commands of one call must reach the same server in order: the library reads the server's
     * identity ({@code INFO}) at the head of a call and judges the votes behind it by it.
     *
     * <p>Replies, as RESP2 gives them: a bulk string as {@code byte[]}, a simple string as {@link String}, an integer
     * as {@link Long}, an array as a {@link List} of these, a nil as {@code null}, and an error reply (such as
     * {@code NOSCRIPT ...}) as a {@link ErrorReply} in that command's place, without failing the others.
     *
     * @param commands each command as its arguments, the name first ({@code ["EVALSHA", sha, "1", key, ...]})
     * @return one reply per command
     * @throws Exception if the connection failed or timed out: the library treats every command of the call as
     *     possibly applied
     */
    List<Object> pipeline(List<Command> commands) throws Exception;

    /**
     * One command: its arguments (the name first) and which of them are keys, so a cluster-aware client can route it.
     * Immutable.
     */
    final class Command {
        private final List<String> args;
        private final int firstKey;
        private final int keyCount;

        /**
         * Makes a command.
         *
         * @param args the arguments, the command's name first
         * @param firstKey the index in {@code args} of the first key
         * @param keyCount how many keys follow from there (0 for none)
         */
        public Command(List<String> args, int firstKey, int keyCount) {
            this.args = List.copyOf(args);
            if (keyCount < 0 || (keyCount > 0 && (firstKey < 1 || firstKey + keyCount > this.args.size()))) {
                throw new IllegalArgumentException("keys " + firstKey + ".." + (firstKey + keyCount) + " outside "
                        + this.args.size() + " arguments");
            }
            this.firstKey = firstKey;
            this.keyCount = keyCount;
        }

        /**
         * Returns the arguments.
         *
         * @return the command's name, then its arguments
         */
        public List<String> args() {
            return args;
        }

        /**
         * Tells whether argument {@code i} is a key.
         *
         * @param i an index into {@link #args()}
         * @return true if it is a key
         */
        public boolean isKey(int i) {
            return keyCount > 0 && i >= firstKey && i < firstKey + keyCount;
        }

        @Override
        public String toString() {
            return args.isEmpty() ? "Command[]" : "Command[" + args.get(0) + " ...]";
        }
    }

    /** An error reply from the server, in the place of the command it answers. Immutable. */
    final class ErrorReply {
        private final String message;

        /**
         * Makes an error reply.
         *
         * @param message the server's text, such as {@code NOSCRIPT No matching script}
         */
        public ErrorReply(String message) {
            this.message = Objects.requireNonNull(message, "message");
        }

        /**
         * Returns the server's text.
         *
         * @return the message, its error code first
         */
        public String message() {
            return message;
        }

        @Override
        public String toString() {
            return "ErrorReply[" + message + "]";
        }
    }
}
