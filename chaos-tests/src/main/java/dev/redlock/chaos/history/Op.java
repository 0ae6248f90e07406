/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * One lock operation attempt by a workload client, as recorded in a chaos run's {@link History}.
 *
 * <p>All timestamps are {@link System#nanoTime()} readings taken in the one JVM that runs every
 * client, so they are directly comparable. {@link #NONE} ({@link Long#MIN_VALUE}) marks a moment
 * that never happened or a value that is absent.
 *
 * <p>An {@link Outcome#OK OK} op's <em>holding window</em> is {@code [windowStart(),
 * windowEnd())}: from the moment acquire returned until the earliest of the lease's deadline, the
 * start of its release and the moment the library reported it lost. Non-OK ops have an empty
 * window.
 *
 * <p>The last four components describe locks of the lock family; an op of a plain lock leaves
 * them at their defaults ({@link Kind#LOCK}, no resources, {@link #NONE}), and the JSON form then
 * omits them, so histories written before they existed still read back.
 *
 * @param client the workload client that made the attempt
 * @param lock the lock's name
 * @param invokeNanos when the client called acquire
 * @param completeNanos when acquire returned or failed
 * @param outcome how the attempt ended
 * @param failure why it was not acquired ({@code "BUSY"}, {@code "NOT_ENOUGH_NODES"}, exception
 *     text), or null
 * @param token the lease's token, or null
 * @param deadlineNanos the lease's validity deadline as last known (for auto-extended leases the
 *     final deadline when the holder stopped), or {@link #NONE}
 * @param releaseNanos when the holder started its release, or {@link #NONE} if it never did
 * @param lostNanos when the library reported the lease lost, or {@link #NONE} if it never did
 * @param actNanos when the holder last acted on the protected resource (right after its last
 *     successful validity check before the write), or {@link #NONE} if it never acted
 * @param wrote whether the holder completed its write to the shared register
 * @param fencingToken the lease's fencing token, or {@link #NONE}
 * @param kind which kind of lock was asked for ({@link Kind#LOCK} for a plain one)
 * @param resources for a {@link Kind#MULTI} op, the names of every resource the lease holds
 *     (each also a plain lock's name); empty otherwise, meaning just {@link #lock()}
 * @param queuedNanos when the acquisition took its place in the lock's queue (for a fair lock:
 *     when the library read the client's wall clock for it), or {@link #NONE}
 * @param roundNanos when the acquisition's last round began (for an OK op, the round that
 *     granted it), or {@link #NONE}
 */
public record Op(
        int client,
        String lock,
        long invokeNanos,
        long completeNanos,
        Outcome outcome,
        String failure,
        String token,
        long deadlineNanos,
        long releaseNanos,
        long lostNanos,
        long actNanos,
        boolean wrote,
        long fencingToken,
        Kind kind,
        List<String> resources,
        long queuedNanos,
        long roundNanos) {

    /** Sentinel for an absent timestamp or fencing token: {@link Long#MIN_VALUE}. */
    public static final long NONE = Long.MIN_VALUE;

    /** How an acquire attempt ended. */
    public enum Outcome {
        /** The lock was acquired. */
        OK,
        /** The lock was definitely not acquired (busy, or not enough nodes answered). */
        FAIL,
        /** Acquire threw something unexpected; whether the lock was taken is not known. */
        UNKNOWN
    }

    /** Which kind of lock an op asked for. */
    public enum Kind {
        /** A plain lock (RedLock or MultiLock), or a semaphore's permit: one holder at a time. */
        LOCK,
        /** A read-write lock's read lock: shared with other readers, excluded by a writer. */
        READ,
        /** A read-write lock's write lock: excludes readers and other writers. */
        WRITE,
        /** A fair lock: one holder at a time, granted in the order acquisitions began. */
        FAIR,
        /** A multi-resource lock: holds every name in {@link Op#resources()} at once, or none. */
        MULTI
    }

    /**
     * An op of a plain lock: the family components at their defaults ({@link Kind#LOCK}, no
     * resources, no queue place, no round time).
     *
     * @param client the workload client
     * @param lock the lock's name
     * @param invokeNanos when acquire was called
     * @param completeNanos when acquire returned or failed
     * @param outcome how the attempt ended
     * @param failure why it was not acquired, or null
     * @param token the lease's token, or null
     * @param deadlineNanos the lease's last known deadline, or {@link #NONE}
     * @param releaseNanos when the release started, or {@link #NONE}
     * @param lostNanos when the loss was reported, or {@link #NONE}
     * @param actNanos when the holder last acted, or {@link #NONE}
     * @param wrote whether the holder completed its write
     * @param fencingToken the fencing token, or {@link #NONE}
     * @throws NullPointerException if {@code lock} or {@code outcome} is null
     * @throws IllegalArgumentException if {@code completeNanos} precedes {@code invokeNanos}
     */
    public Op(
            int client,
            String lock,
            long invokeNanos,
            long completeNanos,
            Outcome outcome,
            String failure,
            String token,
            long deadlineNanos,
            long releaseNanos,
            long lostNanos,
            long actNanos,
            boolean wrote,
            long fencingToken) {
        this(
                client,
                lock,
                invokeNanos,
                completeNanos,
                outcome,
                failure,
                token,
                deadlineNanos,
                releaseNanos,
                lostNanos,
                actNanos,
                wrote,
                fencingToken,
                Kind.LOCK,
                List.of(),
                NONE,
                NONE);
    }

    /**
     * Checks the fields that every op needs.
     *
     * @param client the workload client
     * @param lock the lock's name
     * @param invokeNanos when acquire was called
     * @param completeNanos when acquire returned or failed
     * @param outcome how the attempt ended
     * @param failure why it was not acquired, or null
     * @param token the lease's token, or null
     * @param deadlineNanos the lease's last known deadline, or {@link #NONE}
     * @param releaseNanos when the release started, or {@link #NONE}
     * @param lostNanos when the loss was reported, or {@link #NONE}
     * @param actNanos when the holder last acted, or {@link #NONE}
     * @param wrote whether the holder completed its write
     * @param fencingToken the fencing token, or {@link #NONE}
     * @param kind which kind of lock was asked for
     * @param resources the resources a {@link Kind#MULTI} op holds, else empty (copied)
     * @param queuedNanos when the acquisition took its queue place, or {@link #NONE}
     * @param roundNanos when its last round began, or {@link #NONE}
     * @throws NullPointerException if {@code lock}, {@code outcome}, {@code kind} or {@code
     *     resources} is null, or a resource name is
     * @throws IllegalArgumentException if {@code completeNanos} precedes {@code invokeNanos}
     */
    public Op {
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(kind, "kind");
        resources = List.copyOf(resources);
        // One monotonic clock: an op cannot finish before it started; if it seems to, the workload
        // recorded the wrong moment and every checker would reason about garbage.
        if (completeNanos < invokeNanos) {
            throw new IllegalArgumentException(
                    "completeNanos " + completeNanos + " precedes invokeNanos " + invokeNanos);
        }
    }

    /**
     * Starts an empty builder: every timestamp and the fencing token {@link #NONE}, outcome
     * {@link Outcome#UNKNOWN}, nothing written.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a builder holding this op's values, for deriving a changed copy.
     *
     * @return a new builder initialised from this op
     */
    public Builder toBuilder() {
        return new Builder()
                .client(client)
                .lock(lock)
                .invokeNanos(invokeNanos)
                .completeNanos(completeNanos)
                .outcome(outcome)
                .failure(failure)
                .token(token)
                .deadlineNanos(deadlineNanos)
                .releaseNanos(releaseNanos)
                .lostNanos(lostNanos)
                .actNanos(actNanos)
                .wrote(wrote)
                .fencingToken(fencingToken)
                .kind(kind)
                .resources(resources)
                .queuedNanos(queuedNanos)
                .roundNanos(roundNanos);
    }

    /**
     * The resources this op's lease holds for its whole holding window: {@link #resources()} when
     * there are any, else just {@link #lock()}.
     *
     * @return the names held, never empty
     */
    public List<String> resourcesHeld() {
        return resources.isEmpty() ? List.of(lock) : resources;
    }

    /**
     * The start of the holding window: when acquire returned.
     *
     * @return {@link #completeNanos()}
     */
    public long windowStart() {
        return completeNanos;
    }

    /**
     * The end (exclusive) of the holding window: the earliest of the deadline, the release start and
     * the loss report, ignoring those that are {@link #NONE}.
     *
     * <p>For a non-OK op this is {@link #windowStart()} (the window is empty). For an OK op with none
     * of the three recorded it is {@link Long#MAX_VALUE}: nothing says the holder ever stopped
     * believing it held the lock, so a safety checker must assume it held it for good.
     *
     * @return the window's exclusive end
     */
    public long windowEnd() {
        if (outcome != Outcome.OK) {
            return completeNanos;
        }
        long end = Long.MAX_VALUE;
        if (deadlineNanos != NONE) {
            end = Math.min(end, deadlineNanos);
        }
        if (releaseNanos != NONE) {
            end = Math.min(end, releaseNanos);
        }
        if (lostNanos != NONE) {
            end = Math.min(end, lostNanos);
        }
        return end;
    }

    /**
     * Whether the holding window is empty ({@code windowEnd() <= windowStart()}).
     *
     * @return true when this op never held the lock for any time
     */
    public boolean windowEmpty() {
        return windowEnd() <= windowStart();
    }

    /**
     * How long acquire took.
     *
     * @return {@code completeNanos - invokeNanos}
     */
    public long latencyNanos() {
        return completeNanos - invokeNanos;
    }

    /**
     * Encodes this op as one line of JSON (no line break), with {@code "type":"op"} first and
     * {@link #NONE} values written as {@code null}. The members {@code "kind"}, {@code
     * "resources"}, {@code "queuedNanos"} and {@code "roundNanos"} are written only when they differ
     * from a plain lock's defaults.
     *
     * @return the JSON text
     */
    public String toJson() {
        return JsonLines.write(JsonLines.OpLine.of(this));
    }

    /**
     * Parses the format written by {@link #toJson()}. The {@code "type"} member may be absent but,
     * if present, must be {@code "op"}; the lock family's members ({@code "kind"}, {@code
     * "resources"}, {@code "queuedNanos"}, {@code "roundNanos"}) may be absent, and then take a plain
     * lock's defaults; every other member is required and no others are allowed.
     *
     * @param json one JSON object
     * @return the op it describes
     * @throws IllegalArgumentException if the text is not in that format
     */
    public static Op fromJson(String json) {
        return JsonLines.read(json, JsonLines.OpLine.class).toOp();
    }

    /**
     * Describes the op in full, showing {@link #NONE} values as {@code -} so the absent ones stand
     * out in a violation report; the lock family's components are shown only when set.
     *
     * @return a one-line description naming every field
     */
    @Override
    public String toString() {
        return "Op{client="
                + client
                + ", lock="
                + quoted(lock)
                + ", outcome="
                + outcome
                + ", invoke="
                + nanos(invokeNanos)
                + ", complete="
                + nanos(completeNanos)
                + ", failure="
                + quoted(failure)
                + ", token="
                + quoted(token)
                + ", deadline="
                + nanos(deadlineNanos)
                + ", release="
                + nanos(releaseNanos)
                + ", lost="
                + nanos(lostNanos)
                + ", act="
                + nanos(actNanos)
                + ", wrote="
                + wrote
                + ", fencing="
                + nanos(fencingToken)
                + family()
                + "}";
    }

    private String family() {
        StringBuilder out = new StringBuilder();
        if (kind != Kind.LOCK) {
            out.append(", kind=").append(kind);
        }
        if (!resources.isEmpty()) {
            out.append(", resources=").append(resources);
        }
        if (queuedNanos != NONE) {
            out.append(", queued=").append(queuedNanos);
        }
        if (roundNanos != NONE) {
            out.append(", round=").append(roundNanos);
        }
        return out.toString();
    }

    private static String nanos(long v) {
        return v == NONE ? "-" : Long.toString(v);
    }

    private static String quoted(String s) {
        if (s == null) {
            return "null";
        }
        return JsonLines.quote(s); // keeps a multi-line exception text on one report line
    }

    /**
     * Fills in an {@link Op} step by step as a workload client learns each value; not thread-safe
     * (one client owns it).
     */
    public static final class Builder {
        private int client;
        private String lock;
        private long invokeNanos = NONE;
        private long completeNanos = NONE;
        private Outcome outcome = Outcome.UNKNOWN;
        private String failure;
        private String token;
        private long deadlineNanos = NONE;
        private long releaseNanos = NONE;
        private long lostNanos = NONE;
        private long actNanos = NONE;
        private boolean wrote;
        private long fencingToken = NONE;
        private Kind kind = Kind.LOCK;
        private List<String> resources = List.of();
        private long queuedNanos = NONE;
        private long roundNanos = NONE;

        private Builder() {}

        /**
         * Sets the client.
         *
         * @param client the workload client's number
         * @return this builder
         */
        public Builder client(int client) {
            this.client = client;
            return this;
        }

        /**
         * Sets the lock name.
         *
         * @param lock the lock's name
         * @return this builder
         */
        public Builder lock(String lock) {
            this.lock = lock;
            return this;
        }

        /**
         * Sets when acquire was called.
         *
         * @param invokeNanos a {@link System#nanoTime()} reading
         * @return this builder
         */
        public Builder invokeNanos(long invokeNanos) {
            this.invokeNanos = invokeNanos;
            return this;
        }

        /**
         * Sets when acquire returned or failed.
         *
         * @param completeNanos a {@link System#nanoTime()} reading
         * @return this builder
         */
        public Builder completeNanos(long completeNanos) {
            this.completeNanos = completeNanos;
            return this;
        }

        /**
         * Sets the outcome (default {@link Outcome#UNKNOWN}).
         *
         * @param outcome how the attempt ended
         * @return this builder
         */
        public Builder outcome(Outcome outcome) {
            this.outcome = outcome;
            return this;
        }

        /**
         * Sets the failure reason.
         *
         * @param failure e.g. {@code "BUSY"}, {@code "NOT_ENOUGH_NODES"} or exception text; may be null
         * @return this builder
         */
        public Builder failure(String failure) {
            this.failure = failure;
            return this;
        }

        /**
         * Sets the lease token.
         *
         * @param token the token; may be null
         * @return this builder
         */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /**
         * Sets the lease's validity deadline as last known; call again after each extension.
         *
         * @param deadlineNanos a {@link System#nanoTime()} instant, or {@link Op#NONE}
         * @return this builder
         */
        public Builder deadlineNanos(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
            return this;
        }

        /**
         * Sets when the holder started its release.
         *
         * @param releaseNanos a {@link System#nanoTime()} reading, or {@link Op#NONE}
         * @return this builder
         */
        public Builder releaseNanos(long releaseNanos) {
            this.releaseNanos = releaseNanos;
            return this;
        }

        /**
         * Sets when the library reported the lease lost.
         *
         * @param lostNanos a {@link System#nanoTime()} reading, or {@link Op#NONE}
         * @return this builder
         */
        public Builder lostNanos(long lostNanos) {
            this.lostNanos = lostNanos;
            return this;
        }

        /**
         * Sets when the holder last acted on the protected resource.
         *
         * @param actNanos a {@link System#nanoTime()} reading, or {@link Op#NONE}
         * @return this builder
         */
        public Builder actNanos(long actNanos) {
            this.actNanos = actNanos;
            return this;
        }

        /**
         * Sets whether the holder completed its write to the shared register.
         *
         * @param wrote true once the write completed
         * @return this builder
         */
        public Builder wrote(boolean wrote) {
            this.wrote = wrote;
            return this;
        }

        /**
         * Sets the lease's fencing token.
         *
         * @param fencingToken the token, or {@link Op#NONE}
         * @return this builder
         */
        public Builder fencingToken(long fencingToken) {
            this.fencingToken = fencingToken;
            return this;
        }

        /**
         * Sets which kind of lock was asked for (default {@link Kind#LOCK}).
         *
         * @param kind the lock's kind
         * @return this builder
         */
        public Builder kind(Kind kind) {
            this.kind = kind;
            return this;
        }

        /**
         * Sets the resources a {@link Kind#MULTI} op's lease holds (default none).
         *
         * @param resources every resource's name (copied)
         * @return this builder
         */
        public Builder resources(Collection<String> resources) {
            this.resources = List.copyOf(resources);
            return this;
        }

        /**
         * Sets when the acquisition took its place in the lock's queue.
         *
         * @param queuedNanos a {@link System#nanoTime()} reading, or {@link Op#NONE}
         * @return this builder
         */
        public Builder queuedNanos(long queuedNanos) {
            this.queuedNanos = queuedNanos;
            return this;
        }

        /**
         * Sets when the acquisition's last round began.
         *
         * @param roundNanos a {@link System#nanoTime()} reading, or {@link Op#NONE}
         * @return this builder
         */
        public Builder roundNanos(long roundNanos) {
            this.roundNanos = roundNanos;
            return this;
        }

        /**
         * Builds the op.
         *
         * @return the immutable op
         * @throws NullPointerException if no lock name was set
         * @throws IllegalStateException if {@code invokeNanos} or {@code completeNanos} was never set
         * @throws IllegalArgumentException if {@code completeNanos} precedes {@code invokeNanos}
         */
        public Op build() {
            // The two moments every op has; without them nothing can be ordered.
            if (invokeNanos == NONE || completeNanos == NONE) {
                throw new IllegalStateException("invokeNanos and completeNanos must both be set");
            }
            return new Op(
                    client,
                    lock,
                    invokeNanos,
                    completeNanos,
                    outcome,
                    failure,
                    token,
                    deadlineNanos,
                    releaseNanos,
                    lostNanos,
                    actNanos,
                    wrote,
                    fencingToken,
                    kind,
                    resources,
                    queuedNanos,
                    roundNanos);
        }
    }
}
