/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.script;

import dev.redlock.QuorumPolicy;
import java.util.List;

/**
 * Identifies one lock: its name, its Redis key, the quorum policy it runs under, whether its leases carry fencing
 * tokens, and its {@link Shape} (a plain lock, or another kind of the lock family).
 */
public record LockRef(String name, String key, QuorumPolicy policy, boolean fenced, Shape shape) {

    /** The lock kinds; each is one set of script words (see {@code acquire.lua}). */
    public enum Kind {
        /**
         * A mutex on one key: RedLock, MultiLock, a semaphore's permit. With a {@link Shape#windowMillis()}, its
         * waiters queue for the hand-over (see {@link LockRef#handOver}).
         */
        PLAIN,
        /** Several resources at once, all or none: the key is the first of {@link Shape#resources()}. */
        MULTI,
        /** A read-write lock's reader: the key is the writer's key; readers are entries of a sorted set beside it. */
        READ,
        /** A read-write lock's writer: a mutex on the key that also waits for the readers to leave. */
        WRITE,
        /** A fair lock: a mutex on the key granted only to the head of a queue beside it. */
        FAIR
    }

    /**
     * What a lock of another kind than {@link Kind#PLAIN} needs besides its key.
     *
     * @param kind the kind
     * @param resources {@link Kind#MULTI}: every resource's key, in the order of the sorted names (the lock key is
     *     the first name's); empty otherwise
     * @param windowMillis {@link Kind#FAIR}, {@link Kind#PLAIN} with a hand-over queue: how long a waiter's place lasts
     *     without a new attempt (0: a plain lock without one);
     *     {@link Kind#WRITE}: how long a waiting writer keeps new readers out without a new attempt (0: no preference)
     * @param waiter {@link Kind#FAIR}, {@link Kind#WRITE}, {@link Kind#PLAIN} with a hand-over queue: the
     *     acquisition's waiter id, the same for all its rounds and kept by its lease ("" before {@link #begin}); "-"
     *     otherwise, and for a single attempt, which takes no place
     * @param order {@link Kind#FAIR}, {@link Kind#PLAIN} with a hand-over queue, {@link Kind#WRITE}: the acquisition's
     *     place in the queue, or in the writers' line (microseconds of the client's wall clock when it began; ties go by waiter id)
     * @param writerToken {@link Kind#READ}: the token of the write lease the acquiring thread holds, which lets its
     *     reader in; "-" if none
     * @param lineMillis {@link Kind#WRITE}, {@link Kind#READ}: how long a waiting writer's place in the writers' line
     *     lasts without a new attempt (see {@code acquire.lua}, kind 'w'; a release names the line's head, so that
     *     one writer is woken across all clients); 0 without a line (no notifications). A writer's single attempt
     *     keeps it but has order 0: it takes no place, and its lease's release still names the line's head
     * @param carried {@link Kind#FAIR}: the places this message takes for newer waiters of its client that took none
     *     yet, as words {@code <order> <waiter id>} (see {@link #carrying}); empty otherwise
     */
    public record Shape(
            Kind kind,
            List<String> resources,
            long windowMillis,
            String waiter,
            long order,
            String writerToken,
            long lineMillis,
            List<String> carried) {

        /** A plain lock's shape. */
        public static final Shape PLAIN = new Shape(Kind.PLAIN, List.of(), 0, "-", 0, "-", 0);

        public Shape {
            resources = List.copyOf(resources);
            carried = List.copyOf(carried);
        }

        /** A shape that carries no place for other waiters. */
        public Shape(
                Kind kind,
                List<String> resources,
                long windowMillis,
                String waiter,
                long order,
                String writerToken,
                long lineMillis) {
            this(kind, resources, windowMillis, waiter, order, writerToken, lineMillis, List.of());
        }
    }

    public LockRef(String name, String key, QuorumPolicy policy, boolean fenced) {
        this(name, key, policy, fenced, Shape.PLAIN);
    }

    public LockRef(String name, String key, QuorumPolicy policy) {
        this(name, key, policy, false);
    }

    /**
     * A lock of several resources at once, keyed by the first of {@code keys} (distinct, in the order of the sorted
     * names: waiters listen for the release of the lock key).
     */
    public static LockRef multi(String name, List<String> keys, QuorumPolicy policy) {
        return new LockRef(name, keys.get(0), policy, false, new Shape(Kind.MULTI, keys, 0, "-", 0, "-", 0));
    }

    /** A read-write lock's reader or writer; {@code windowMillis} > 0 makes waiting writers keep new readers out. */
    public static LockRef readWrite(String name, String key, QuorumPolicy policy, boolean writer, long windowMillis) {
        return new LockRef(
                name,
                key,
                policy,
                false,
                new Shape(
                        writer ? Kind.WRITE : Kind.READ,
                        List.of(),
                        writer ? windowMillis : 0,
                        writer ? "" : "-",
                        0,
                        "-",
                        0));
    }

    /**
     * This read-write lock's reader or writer with a writers' line whose places last {@code lineMillis} between a
     * writer's attempts (see {@link Shape#lineMillis()}); 0 for none. Other kinds are returned unchanged.
     */
    public LockRef lined(long lineMillis) {
        if (shape.kind() != Kind.READ && shape.kind() != Kind.WRITE) {
            return this;
        }
        return reshaped(shape.waiter(), shape.order(), shape.writerToken(), Math.max(0, lineMillis));
    }

    /** This lock with the same kind, resources and window, and these words (see {@link Shape}). */
    private LockRef reshaped(String waiter, long order, String writerToken, long lineMillis) {
        return new LockRef(
                name,
                key,
                policy,
                fenced,
                new Shape(
                        shape.kind(), shape.resources(), shape.windowMillis(), waiter, order, writerToken, lineMillis));
    }

    /** Whether this is a writer of a lock with a writers' line (see {@link Shape#lineMillis()}). */
    public boolean lined() {
        return shape.kind() == Kind.WRITE && shape.lineMillis() > 0;
    }

    /**
     * Whether this writer's acquisition takes a place in the writers' line when refused: one that waits (a single
     * attempt has order 0; nobody would wake it, but its lease's release still names the line's head).
     */
    private boolean linePlace() {
        return lined() && shape.order() != 0;
    }

    /** A writer's keys: the readers, the waiting writers, and with {@code line}, the writers' line. */
    private List<String> writerKeys(boolean line) {
        return line
                ? List.of(readersKey(), key + ":wq", key + ":wl", key + ":wle")
                : List.of(readersKey(), key + ":wq");
    }

    /**
     * How long a place of this acquisition on the nodes lasts without a new attempt (ms): its queue's window, or for
     * a writer the shorter of its entry's and its line place's.
     */
    public long placeMillis() {
        if (shape.kind() != Kind.WRITE || shape.lineMillis() == 0) {
            return shape.windowMillis();
        }
        return shape.windowMillis() == 0 ? shape.lineMillis() : Math.min(shape.windowMillis(), shape.lineMillis());
    }

    /** A fair lock whose waiters keep their place for {@code windowMillis} between attempts. */
    public static LockRef fair(String name, String key, QuorumPolicy policy, long windowMillis) {
        return new LockRef(name, key, policy, false, new Shape(Kind.FAIR, List.of(), windowMillis, "", 0, "-", 0));
    }

    public Kind kind() {
        return shape.kind();
    }

    /**
     * This fair waiter's round or leaving release, carrying the places of newer acquisitions of the same client and
     * lock that began behind one of its own standing in the queue and took no place yet: {@code words} are pairs
     * {@code <order> <waiter id>}. The nodes take each at its own order (see {@code acquire.lua}, kind 'f'), so that
     * it needs no round of its own to queue. Other kinds, and no words, return this lock unchanged.
     */
    public LockRef carrying(List<String> words) {
        if (shape.kind() != Kind.FAIR || words.isEmpty()) {
            return this;
        }
        return new LockRef(
                name,
                key,
                policy,
                fenced,
                new Shape(
                        shape.kind(),
                        shape.resources(),
                        shape.windowMillis(),
                        shape.waiter(),
                        shape.order(),
                        shape.writerToken(),
                        shape.lineMillis(),
                        words));
    }

    /** The carried places' words, each after a space (see {@link Shape#carried()}). */
    private String carriedWords() {
        return shape.carried().isEmpty() ? "" : " " + String.join(" ", shape.carried());
    }

    /**
     * Identifies the lock for holds through the {@code Lock} face: fenced and plain views share it (they are one
     * lock); readers, writers and fair waiters of one name each have their own.
     */
    public String holdId() {
        String base = policy + "|" + key;
        switch (shape.kind()) {
            case PLAIN:
                return base;
            case MULTI: {
                // Each key with its length: no two sets (nor a set and a name holding '|') share an id.
                StringBuilder id = new StringBuilder("MULTI|").append(policy);
                for (String k : shape.resources()) {
                    id.append('|').append(k.length()).append(':').append(k);
                }
                return id.toString();
            }
            default:
                return shape.kind() + "|" + base;
        }
    }

    /**
     * This plain lock with a hand-over queue whose places last {@code windowMillis} between attempts (see {@code
     * acquire.lua}, kind 'q'): its waiters take a place when refused, and a release names the queue's head, so it
     * hands over to one waiter that every node agrees on. Other kinds are returned unchanged.
     */
    public LockRef handOver(long windowMillis) {
        if (shape.kind() != Kind.PLAIN || windowMillis <= 0) {
            return this;
        }
        return withPlainShape(windowMillis, "", 0, "-");
    }

    /**
     * This plain lock's hand-over place for a release or a leaving acquisition: the client's place in the queue moves
     * to {@code nextPlace} (the place of its oldest waiter left), or leaves the queue if 0; if negative, it moves to
     * {@code -nextPlace} only while another client's place is queued (the client has no waiter left but is likely
     * to come back), else it leaves. Other kinds are returned unchanged.
     */
    public LockRef handingOver(long nextPlace) {
        if (!handsOver()) {
            return this;
        }
        return withPlainShape(shape.windowMillis(), shape.waiter(), nextPlace, "-");
    }

    /**
     * This plain lock's release that takes the client's place out of the hand-over queue only if it is still at
     * {@code order} (the back, where a release left it for an acquisition that did not come): a newer acquisition of
     * the client may have taken it since, and keeps it.
     */
    public LockRef leavingPlaceAt(long order) {
        return withPlainShape(shape.windowMillis(), shape.waiter(), 0, "=" + order);
    }

    /** This lock with a plain shape of these words (see {@link Shape}). */
    private LockRef withPlainShape(long windowMillis, String waiter, long order, String writerToken) {
        return new LockRef(
                name,
                key,
                policy,
                fenced,
                new Shape(Kind.PLAIN, List.of(), windowMillis, waiter, order, writerToken, 0));
    }

    /** Whether this is a plain lock with a hand-over queue. */
    public boolean handsOver() {
        return shape.kind() == Kind.PLAIN && shape.windowMillis() > 0;
    }

    /** The hold id of the other half of a read-write lock (the writer of a reader, the reader of a writer). */
    public String siblingHoldId() {
        Kind other = shape.kind() == Kind.READ ? Kind.WRITE : Kind.READ;
        return other + "|" + policy + "|" + key;
    }

    /** Whether the kind keeps a waiter's entry on the nodes between rounds, to be removed when it gives up. */
    public boolean queues() {
        return shape.kind() == Kind.FAIR
                || (shape.kind() == Kind.WRITE && (shape.windowMillis() > 0 || linePlace()))
                || (handsOver() && !shape.waiter().equals("-"));
    }

    /**
     * This lock for one acquisition: a fair lock, a writer or a plain lock with a hand-over queue gets its waiter id
     * ("-" for a plain lock's single attempt, which takes no place) and its place (taken from {@code orderMicros});
     * other kinds are returned unchanged.
     */
    public LockRef begin(String waiter, long orderMicros) {
        if (shape.kind() != Kind.FAIR && shape.kind() != Kind.WRITE && !handsOver()) {
            return this;
        }
        return reshaped(waiter, orderMicros, shape.writerToken(), shape.lineMillis());
    }

    /** A reader that the write lease {@code token} (held by the same thread) lets in. */
    public LockRef withWriterToken(String token) {
        return reshaped(shape.waiter(), shape.order(), token, shape.lineMillis());
    }

    /** The kind's keys on a node, for an acquire (see {@code acquire.lua}). */
    public List<String> acquireKeys() {
        switch (shape.kind()) {
            case MULTI:
                return shape.resources().subList(1, shape.resources().size());
            case READ:
                return List.of(readersKey(), key + ":wq");
            case WRITE:
                return writerKeys(linePlace());
            case FAIR:
                return queueKeys();
            default:
                return queuedAttempt() ? queueKeys() : List.of();
        }
    }

    /**
     * Whether a plain lock's acquire goes through its hand-over queue. A single attempt (waiter "-") ignores the queue
     * and takes no place, which is exactly what the plain acquire does: it is sent as one, without the queue's three
     * keys and words, which made each node's script run a third longer on the uncontended path.
     */
    private boolean queuedAttempt() {
        return handsOver() && !shape.waiter().equals("-");
    }

    /** A queue's keys: the places by order, their expiry, and the place of the waiter granted (see acquire.lua). */
    private List<String> queueKeys() {
        return List.of(key + ":q", key + ":qe", key + ":qh");
    }

    /** The keys a forced unlock of {@code key} gives the script, whatever the lock's kind: a queue's, if it has one. */
    public static List<String> forceKeys(String key) {
        return List.of(key, key + ":q", key + ":qe", key + ":qh");
    }

    /** The acquire script's ARGV[3]: the fenced flag, then the kind and its words. */
    public String acquireSpec(boolean fencedRound) {
        String flag = fencedRound ? "1" : "0";
        switch (shape.kind()) {
            case MULTI:
                return flag + " m";
            case READ:
                return flag + " r " + shape.writerToken();
            case WRITE:
                return flag + " w " + shape.waiter() + " " + shape.windowMillis()
                        + (linePlace() ? " " + shape.order() + " " + shape.lineMillis() : "");
            case FAIR:
                return flag + " f " + shape.order() + " " + shape.waiter() + " " + shape.windowMillis()
                        + carriedWords();
            default:
                return queuedAttempt()
                        ? flag + " q " + shape.order() + " " + shape.waiter() + " " + shape.windowMillis()
                        : flag;
        }
    }

    /**
     * The kind's keys for a release; {@code leaving}: the lease (or the acquisition) ends, so a fair waiter or a
     * writer also leaves its queue. A failed round's release keeps the place. A queue's release always has its keys:
     * it names the queue's head to the waiters.
     */
    public List<String> releaseKeys(boolean leaving) {
        switch (shape.kind()) {
            case MULTI:
                return acquireKeys();
            case READ:
                // With a writers' line, the last reader's release names its head.
                return shape.lineMillis() > 0
                        ? List.of(readersKey(), key + ":wl", key + ":wle")
                        : List.of(readersKey());
            case WRITE:
                // A lease's release names the head of the writers' line, even a single attempt's.
                return leaving && (queues() || lined()) ? writerKeys(lined()) : List.of();
            case FAIR:
                return queueKeys();
            default:
                return handsOver() ? queueKeys() : List.of();
        }
    }

    /** The release script's ARGV[3], or null for a plain release of the key. */
    public String releaseSpec(boolean leaving) {
        switch (shape.kind()) {
            case MULTI:
                return "m " + acquireKeys().size();
            case READ:
                return "r " + releaseKeys(leaving).size();
            case WRITE:
                // A failed round's release is silent: waiters in every client would race for what it gives back.
                return leaving && (queues() || lined())
                        ? "w " + releaseKeys(true).size() + " " + shape.waiter()
                        : leaving ? null : "s 0";
            case FAIR:
                if (leaving && !shape.carried().isEmpty()) {
                    return "f 3 " + shape.waiter() + " " + shape.windowMillis() + carriedWords();
                }
                return "f 3 " + (leaving ? shape.waiter() : "-");
            default:
                if (!handsOver()) {
                    return null;
                }
                if (!leaving) {
                    // A failed round's release: the client waits on, so it takes its place where the round was
                    // granted (the refusing nodes gave it one), and every node queues it the same way.
                    return shape.waiter().equals("-")
                            ? "q 3 - - 0"
                            : "q 3 " + shape.waiter() + " +" + shape.order() + " " + shape.windowMillis();
                }
                // The client's place moves to its next waiter's, or leaves (if still where a release left it).
                return "q 3 " + shape.waiter() + " "
                        + (shape.writerToken().startsWith("=")
                                ? shape.writerToken()
                                : shape.order() > 0
                                        ? Long.toString(shape.order())
                                        : shape.order() < 0 ? "~" + -shape.order() : "-")
                        + " " + shape.windowMillis();
        }
    }

    /** The kind's keys for an extension. */
    public List<String> extendKeys() {
        switch (shape.kind()) {
            case MULTI:
                return acquireKeys();
            case READ:
                return List.of(readersKey());
            default:
                return List.of();
        }
    }

    /** The extension script's ARGV[4], or null. */
    public String extendSpec() {
        return shape.kind() == Kind.MULTI ? "m" : shape.kind() == Kind.READ ? "r" : null;
    }

    /** The key where a lease's newest extension round is remembered: readers share the lock key, so each has one. */
    public String extensionKey(String token) {
        return shape.kind() == Kind.READ ? key + ":x:" + token : key + ":x";
    }

    private String readersKey() {
        return key + ":r";
    }

    /** The key of lock {@code name}: the braces make the name a Redis Cluster hash tag. */
    public static String keyOf(String prefix, String name) {
        return prefix + "{" + name + "}";
    }

    /**
     * Checks that {@code text} goes to Redis unchanged and within {@code maxBytes}: keys travel as UTF-8, and an
     * unpaired surrogate has no UTF-8 form (it would be sent as '?', so two texts could share one key).
     *
     * @param field the name to report
     * @param what what the text is, for the message ("a lock name")
     * @param text the text to check
     * @param maxBytes the largest allowed UTF-8 length, in bytes
     * @return the UTF-8 length of {@code text}, in bytes
     * @throws IllegalArgumentException naming the field and the index of an unpaired surrogate, or the limit and
     *         the actual UTF-8 length
     */
    public static int checkUtf8(String field, String what, String text, int maxBytes) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                throw new IllegalArgumentException(field + ": " + what + " must be valid Unicode, but has an unpaired "
                        + "surrogate U+" + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT) + " at index " + i
                        + " (it has no UTF-8 form: it would reach Redis as '?', so two different values could share "
                        + "one key)");
            }
        }
        if (bytes > maxBytes) {
            throw new IllegalArgumentException(field + ": " + what + " must be at most " + maxBytes
                    + " UTF-8 bytes, got " + bytes + " bytes (" + text.length() + " chars)");
        }
        return (int) bytes;
    }

    /** The lock's fencing counter: same hash tag as the lock key, so both live in one slot on a cluster. */
    public String counterKey() {
        return key + ":fence";
    }

    /** The same lock, with or without fencing. */
    public LockRef withFencing(boolean on) {
        return new LockRef(name, key, policy, on, shape);
    }

    /** The kind of this lock, as listeners and meters name it. */
    public dev.redlock.LockKind lockKind() {
        switch (kind()) {
            case MULTI:
                return dev.redlock.LockKind.MULTI_RESOURCE;
            case READ:
                return dev.redlock.LockKind.READ;
            case WRITE:
                return dev.redlock.LockKind.WRITE;
            case FAIR:
                return dev.redlock.LockKind.FAIR;
            default:
                return policy() == dev.redlock.QuorumPolicy.ALL
                        ? dev.redlock.LockKind.MULTILOCK
                        : dev.redlock.LockKind.REDLOCK;
        }
    }
}
