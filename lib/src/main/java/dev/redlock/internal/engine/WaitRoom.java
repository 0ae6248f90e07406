/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.internal.node.Subscriptions;
import dev.redlock.internal.script.LockRef;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acquisitions of one client that wait for a lock, per lock key, oldest first; and the signals that a key was
 * released, from this client's own releases and from the nodes' release notifications.
 *
 * <p>A signal wakes <em>one</em> waiter of that key: the oldest that holds no signal yet. So a release costs one
 * retry round per client, whatever the number of waiters, and the oldest waiter goes first. A signal that arrives
 * while its waiter is in a round is not lost: the waiter retries at once after the round. A waiter that leaves with a
 * signal it did not use (it gave up) passes it on. One release is signalled several times (by the releasing client,
 * and by each node that deleted the key, possibly after later releases); signals carry the released token's prefix,
 * and repeats of the key's last few releases are dropped.
 *
 * <p>A lock with a queue on the nodes (a fair lock, a plain lock's hand-over queue) grants only the head of that
 * queue, and a node's release names the head: a signal then wakes the named waiter (a fair waiter, by its id) or this
 * client's oldest waiter (the head is this client's place in the hand-over queue), and nobody when the head is another
 * client's, so one release wakes one waiter across all clients instead of one per client.
 *
 * <p>A client that got a lock its waiters queued for keeps the key's queue here for a while after its last waiter got
 * in ({@link #lingers}): if it comes back for the lock soon (a loop, a busy service),
 * the release leaves the client's place in the nodes' queue, at the back, and the new acquisition takes it without a
 * round of its own. If a release names the place while this client has no waiter, or nobody came back within the
 * place's window, the place leaves the nodes' queues at once.
 *
 * <p>Signals only make waiting shorter. The oldest waiter still retries after its retry delay, so a lost or late
 * notification costs it one delay; the others retry later by their place in line (see the engine), so that waiters
 * polling do not overtake the one a release woke. Thread-safe.
 */
final class WaitRoom {

    /** One waiting acquisition, by its wake-up (which must not block: it runs on the signaller). */
    static final class Waiter {
        final String key;
        private final Runnable wake;
        /** A read-write lock's reader: readers share, so one that gets in wakes the others. */
        private final boolean reader;
        /**
         * A read-write lock's writer that keeps no reader out (no writer preference): a new reader of this client need
         * not queue behind it, since a reader is admitted whenever no writer holds the lock.
         */
        private final boolean letsReadersPass;
        /** A queued acquisition's place on the nodes (fair lock, preferred writer, hand-over); 0 when it has none. */
        final long place;
        /** A fair waiter's id on the nodes, which a release may name as the next to go; null for others. */
        private final String id;

        /** A fair waiter (see {@link #joinFair}). */
        private boolean fair;
        /**
         * A fair waiter whose place is still to be carried by another message of this client (guarded by the key's
         * queue; see {@link #joinFair}).
         */
        private boolean uncarried;
        /**
         * A fair waiter whose round is on its way (guarded by the key's queue): nobody is deferred behind it, since
         * that round, sent before, carries nobody's place, and it may win (its place then lasts only as long as its
         * key, and its next message may be long in coming).
         */
        private boolean inRound;

        /** Whether this waiter's place on the nodes is its client's (a plain lock's hand-over queue). */
        private boolean handsOver() {
            return id == null && place != 0;
        }
        /** Set by a signal, cleared when the waiter retries because of it (guarded by the key's queue). */
        private boolean signalled;
        /** Sleeping without polling until it moves up to the pollers ({@link #park}; guarded by the key's queue). */
        private boolean parked;
        /**
         * Told when it moves up to the pollers while parked, or when its key's subscriptions went below a majority
         * (then it polls from now on); null: it is woken.
         */
        volatile Runnable movedUp;

        private Waiter(String key, Runnable wake, boolean reader, boolean letsReadersPass, long place, String id) {
            this.key = key;
            this.wake = wake;
            this.reader = reader;
            this.letsReadersPass = letsReadersPass;
            this.place = place;
            this.id = id;
        }

        private void wake() {
            wake.run();
        }
    }

    /** How many recent releases of a key are remembered: a node's notification may come after later releases. */
    private static final int RECENT_RELEASES = 16;

    /** The waiters of one key, oldest first, and the releases signalled lately (guarded by the map's bin lock). */
    private static final class Queue {
        final ArrayList<Waiter> waiters = new ArrayList<>();
        final String[] recent = new String[RECENT_RELEASES];
        /** How many nodes reported each of the recent releases, and whether it woke a waiter already. */
        final int[] reports = new int[RECENT_RELEASES];

        final boolean[] used = new boolean[RECENT_RELEASES];
        int next;
        /**
         * Another client queues for the key: the last release heard named another client as the head of the nodes'
         * queue, or this client with other clients' places behind it.
         */
        boolean othersFirst;
        /** Kept with no waiter after the last one got in, while others queue (see {@link #lingers}). */
        boolean lingering;
        /** While lingering: the lock whose release left this client's place on the nodes, if one did. */
        LockRef leftPlace;
        /** Counts the lingering spells, so that a timer of an earlier one does nothing. */
        int spell;
        /** A release of the key was heard since the queue began: its subscriptions work. */
        boolean heard;
        /** A majority of nodes confirmed the key's subscriptions since the queue began (its check round is due). */
        boolean confirmed;
        /**
         * Confirmed as a waiter joined, from confirmations counted then: they may belong to subscriptions of a queue
         * just gone whose UNSUBSCRIBE is on its way, so the next confirmation runs the check once more.
         */
        boolean recheck;
        /** A release of this client's made while it had no waiter: its reports that name no head wake nobody. */
        String quietRelease;
        /**
         * The place that release takes out of the queue, as a node reports it where the key was free by then (the
         * lease missed that node): the same release, so it wakes nobody either.
         */
        String quietPlace;
        /** The outcome of this client's last refused round for the key, if one was. */
        dev.redlock.RoundOutcome lastRefusal;
        /** A writer named by a release that yielded it to an older reader of this client, until that reader's round. */
        Waiter yieldedBy;
        /** Fair waiters whose place is still to be carried (see {@link #joinFair}), oldest first. */
        final ArrayList<Waiter> uncarried = new ArrayList<>();

        /** Remembers a release; false if it was signalled already. */
        boolean firstReport(String release) {
            return use(release, 1);
        }

        /** Where {@code release} is remembered, or -1. */
        int find(String release) {
            for (int i = 0; i < recent.length; i++) {
                if (release.equals(recent[i])) {
                    return i;
                }
            }
            return -1;
        }

        /**
         * Counts one more report of a release; true once, when it has been reported {@code enough} times (or it is
         * the first report and {@code enough} is at most 1): then it wakes a waiter.
         */
        boolean use(String release, int enough) {
            int at = find(release);
            if (at < 0) {
                at = next;
                recent[at] = release;
                reports[at] = 0;
                used[at] = false;
                next = (next + 1) % recent.length;
            }
            reports[at]++;
            if (used[at] || reports[at] < enough) {
                return false;
            }
            used[at] = true;
            return true;
        }
    }

    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();
    private final Subscriptions subscriptions;
    /** This client's place in a hand-over queue on the nodes, as a release names it (16 hex digits). */
    final String clientId;

    private final Hooks hooks;
    /** Numbers the lingering spells across keys: a timer of an earlier spell (even of a queue since gone) does nothing. */
    private final java.util.concurrent.atomic.AtomicInteger spells = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * How many nodes must report a release that names a waiter of this client before it wakes it: a majority of the
     * nodes. Woken by the first report, it would ask the nodes that have not run the release yet, and be refused
     * there; woken by the reports of a failed round's partial release, it would be refused by the holder's majority.
     */
    private final int quorum;

    /** What the room asks of its engine: a timer, and taking a place out of the nodes' hand-over queue. */
    interface Hooks {
        /** Runs {@code task} after {@code delayNanos}, on a thread that may not block; false if shut down. */
        boolean later(Runnable task, long delayNanos);

        /**
         * Takes this client's place out of the nodes' hand-over queue of {@code ref}'s key if it is still where the
         * release {@code ref} left it, at the back (fire-and-forget; must not block, nor call back into the room).
         */
        void leave(LockRef ref);

        /** Takes this client's place, wherever it is, out of the nodes' hand-over queue of {@code key}. */
        void leaveAny(String key);

        /** How long a place in a hand-over queue lasts without a new attempt, in nanoseconds. */
        long windowNanos();

        /**
         * The names of the nodes {@code key} lives on, where its releases are published: null for every node (the
         * default), a set when each lock uses some of the nodes.
         */
        default java.util.Set<String> nodesOf(String key) {
            return null;
        }
    }

    /** Hooks that never linger: for rooms of tests that need no engine. */
    static final Hooks NO_HOOKS = new Hooks() {
        @Override
        public boolean later(Runnable task, long delayNanos) {
            return false;
        }

        @Override
        public void leave(LockRef ref) {}

        @Override
        public void leaveAny(String key) {}

        @Override
        public long windowNanos() {
            return 0;
        }
    };

    WaitRoom(Subscriptions subscriptions, String clientId) {
        this(subscriptions, clientId, 1, NO_HOOKS);
    }

    WaitRoom(Subscriptions subscriptions, String clientId, int quorum, Hooks hooks) {
        this.subscriptions = subscriptions;
        this.clientId = clientId;
        this.quorum = quorum;
        this.hooks = hooks;
    }

    /**
     * Listens for the key's releases: on its own channel (every release, heard by every client waiting for it) and on
     * its channel for this client (a release that hands the key over to this client's place in a hand-over queue).
     */
    private void subscribe(String key) {
        java.util.Set<String> nodes = hooks.nodesOf(key);
        subscriptions.subscribe(key, nodes);
        subscriptions.subscribe(key + clientId, nodes);
    }

    private void unsubscribe(String key) {
        subscriptions.unsubscribe(key);
        subscriptions.unsubscribe(key + clientId);
    }

    /**
     * A release heard on {@code channel}: the key's own channel, or its channel for this client (the key followed by
     * this client's id; a lock key ends with '}', so no key's own channel ends so).
     */
    void heard(String channel, String message) {
        if (channel == null) {
            lost();
            return;
        }
        boolean mine = channel.length() > clientId.length()
                && channel.endsWith(clientId)
                && channel.charAt(channel.length() - clientId.length() - 1) == '}';
        String key = mine ? channel.substring(0, channel.length() - clientId.length()) : channel;
        if (message == null) {
            subscribed(key);
            return;
        }
        released(key, message, false);
    }

    /**
     * A node confirmed this client's subscription to one of the key's channels. Once a majority confirmed both, the
     * key's waiters no longer poll as if deaf, and the oldest one runs a round (unless a signal has it running one
     * already): a release between its refused round and the subscriptions went unheard, and that round finds it.
     */
    private void subscribed(String key) {
        check(key, false);
    }

    /** Runs the check round if it is due (see subscribed); {@code joining}: as a waiter joins, not at a confirmation. */
    private void check(String key, boolean joining) {
        Waiter[] target = new Waiter[1];
        queues.computeIfPresent(key, (k, q) -> {
            // With no waiter (a lingering queue), the check waits for the next one to join (see checkIfDue). The
            // count last: every join comes here, and a confirmed queue need not count.
            if ((!q.confirmed || (q.recheck && !joining)) && !q.waiters.isEmpty() && confirmedBy(k) >= quorum) {
                q.recheck = joining;
                q.confirmed = true;
                // Even if a release was heard meanwhile: one node's report of it proves nothing about the nodes that
                // confirmed later, which may have run it (or another) unheard. Only an oldest waiter signalled
                // already needs no check: the round it is about to run is one.
                Waiter oldest = q.waiters.isEmpty() ? null : q.waiters.get(0);
                if (oldest != null && !oldest.signalled) {
                    oldest.signalled = true;
                    target[0] = oldest;
                }
            }
            return q;
        });
        if (target[0] != null) {
            target[0].wake();
        }
    }

    /**
     * A node's subscriber connection went with subscriptions it had confirmed. A key that no longer has a majority of
     * confirmations may miss a release now (a majority of reports wakes a waiter), so its pollers, which may sleep a
     * third of their place's window, are told to poll as if deaf from now on; and once a majority confirmed again,
     * its check round is due again (a release while they were gone went unheard).
     */
    private void lost() {
        List<Waiter> told = new ArrayList<>();
        for (String key : queues.keySet()) {
            queues.computeIfPresent(key, (k, q) -> {
                if (q.confirmed && confirmedBy(k) < quorum) {
                    q.confirmed = false;
                    q.recheck = false;
                    q.heard = false;
                    // No round now (a signal would be taken for a release's, and a real release would then wake the
                    // next waiter too, to race this one): the pollers sleep no longer than a deaf poll from now.
                    for (Waiter w : q.waiters) {
                        if (w.parked || w.signalled) {
                            continue;
                        }
                        if (w.movedUp == null) {
                            w.signalled = true; // nobody to tell (a waiter of the room's own tests): it retries
                        }
                        told.add(w);
                    }
                }
                return q;
            });
        }
        for (Waiter w : told) {
            tellToPoll(w);
        }
    }

    /** Tells {@code w} to poll from now on, or wakes it if nobody listens for that (it was signalled then). */
    private static void tellToPoll(Waiter w) {
        Runnable told = w.movedUp;
        if (told != null) {
            told.run();
        } else {
            w.wake();
        }
    }

    /**
     * A waiter joined {@code key}'s queue: if a majority confirmed the key's subscriptions while the queue had no
     * waiter to check (it lingered, or it began on subscriptions still in place from a queue just gone, which are
     * confirmed again by nobody), the check round is due now.
     */
    private void checkIfDue(String key) {
        check(key, true);
    }

    /**
     * How many distinct nodes confirmed both of the key's channels on their current connections: a node that
     * reconnected and confirmed again counts once, and a channel unsubscribed and subscribed again (a waiter that came
     * back while the other channel stayed) counts from its new confirmation.
     */
    private int confirmedBy(String key) {
        return Math.min(subscriptions.confirmed(key), subscriptions.confirmed(key + clientId));
    }

    /** Whether this client hears the key's releases from at least {@code quorum} of the nodes it lives on now. */
    boolean hears(String key, int quorum) {
        return subscriptions.listening(hooks.nodesOf(key)) >= quorum;
    }

    /**
     * Joins the key's queue at the acquisition's place on the nodes: the place was taken before joining, so two
     * acquisitions may join in the other order, and a release must wake the one the nodes will grant.
     *
     * @param id the waiter's id on the nodes if it has a place of its own there (a fair waiter), or null
     */
    Waiter joinAsyncAt(String key, Runnable wake, long place, String id) {
        return joinAsyncAt(key, wake, place, id, false);
    }

    /**
     * As {@link #joinAsyncAt(String, Runnable, long, String)}; {@code letsReadersPass}: a writer without writer
     * preference, which new readers do not queue behind.
     */
    Waiter joinAsyncAt(String key, Runnable wake, long place, String id, boolean letsReadersPass) {
        return join(new Waiter(key, wake, false, letsReadersPass, place, id));
    }

    /**
     * Joins a fair waiter at its {@code place} with its {@code id}. If {@code mayDefer} and an older fair waiter of
     * this client stands in the nodes' queue between its rounds (one whose place is not still to be carried, and whose
     * round is not on its way, see {@link Waiter#inRound}), it joins as uncarried: its
     * place goes to the nodes with this client's next message for the key that takes it ({@link #takeUncarried}),
     * and it needs no round of its own to queue. The older waiter's place stands until one of its own messages, which
     * take the uncarried places with them: its next round, its lease's release, or its leave. So no later waiter of
     * another client can be first on a node while this one has no place there. Returns the waiter; see {@link
     * #deferred}.
     */
    Waiter joinFair(String key, Runnable wake, long place, String id, boolean mayDefer) {
        Waiter w = new Waiter(key, wake, false, false, place, id);
        w.fair = true;
        queues.compute(key, (k, q) -> {
            if (q == null) {
                q = new Queue();
                subscribe(k);
            }
            if (q.lingering) {
                q.lingering = false;
                q.leftPlace = null;
            }
            if (mayDefer) {
                for (Waiter o : q.waiters) {
                    if (o.fair && !o.uncarried && !o.inRound && o.place < place) {
                        w.uncarried = true;
                        int at = q.uncarried.size(); // by place: two threads may join out of their places' order
                        while (at > 0 && q.uncarried.get(at - 1).place > place) {
                            at--;
                        }
                        q.uncarried.add(at, w);
                        break;
                    }
                }
            }
            insert(q, w);
            return q;
        });
        checkIfDue(key);
        return w;
    }

    /** Whether {@code w} joined as uncarried (see {@link #joinFair}); read by the thread that joined it. */
    boolean deferred(Waiter w) {
        return w.uncarried;
    }

    /** The most uncarried places one message takes: the script's words stay short. */
    static final int MOST_CARRIED = 32;

    /**
     * The fair waiters of the key whose place is still to be carried, oldest first and at most {@value
     * #MOST_CARRIED}, for a message of this client that is about to go to the nodes; they count as carried from now.
     * {@code self}, the waiter whose round it is (null for a release or a leave), is no longer uncarried either: its
     * round takes its place; and it is in a round from now until {@link #betweenRounds}.
     */
    List<Waiter> takeUncarried(String key, Waiter self) {
        List<Waiter> taken = new ArrayList<>();
        queues.computeIfPresent(key, (k, q) -> {
            if (self != null) {
                self.inRound = true;
                if (self.uncarried) {
                    self.uncarried = false;
                    q.uncarried.remove(self);
                }
            }
            while (!q.uncarried.isEmpty() && taken.size() < MOST_CARRIED) {
                Waiter w = q.uncarried.remove(0);
                w.uncarried = false;
                taken.add(w);
            }
            return q;
        });
        return taken;
    }

    /** Fair waiter {@code w}'s round was decided and it waits on: newer waiters may be deferred behind it again. */
    void betweenRounds(Waiter w) {
        queues.computeIfPresent(w.key, (k, q) -> {
            w.inRound = false;
            return q;
        });
    }

    /** A fair waiter's place on the nodes, in microseconds of its client's wall clock. */
    static long placeOf(Waiter w) {
        return w.place;
    }

    /** A fair waiter's id on the nodes. */
    static String idOf(Waiter w) {
        return w.id;
    }

    /** Joins the key's queue as an asynchronous acquisition; {@code wake} must not block (it runs on the signaller). */
    Waiter joinAsync(String key, Runnable wake) {
        return joinAsync(key, wake, false);
    }

    /** Joins as an asynchronous acquisition; {@code reader}: a read-write lock's reader. */
    Waiter joinAsync(String key, Runnable wake, boolean reader) {
        return joinAsync(key, wake, reader, false);
    }

    /**
     * Joins as an asynchronous acquisition; {@code reader}: a read-write lock's reader; {@code letsReadersPass}: a
     * writer without writer preference, which new readers do not queue behind.
     */
    Waiter joinAsync(String key, Runnable wake, boolean reader, boolean letsReadersPass) {
        return join(new Waiter(key, wake, reader, letsReadersPass, 0, null));
    }

    private Waiter join(Waiter w) {
        queues.compute(w.key, (k, q) -> {
            if (q == null) {
                q = new Queue();
                subscribe(k);
            }
            if (q.lingering) {
                q.lingering = false; // back for the lock: this waiter takes the client's place
                q.leftPlace = null;
            }
            insert(q, w);
            return q;
        });
        checkIfDue(w.key);
        return w;
    }

    /** Puts {@code w} in line: behind every waiter without a place (they joined earlier) and every earlier place. */
    private static void insert(Queue q, Waiter w) {
        int at = q.waiters.size();
        if (w.place != 0) {
            while (at > 0 && q.waiters.get(at - 1).place > w.place) {
                at--;
            }
        }
        q.waiters.add(at, w);
    }

    /**
     * Leaves the queue. A signal the waiter holds goes to the next one unless {@code won}: then the release it
     * announced is what this waiter just used.
     */
    void leave(Waiter w, boolean won) {
        Waiter[] next = new Waiter[1];
        Waiter[] movedUp = new Waiter[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            int at = q.waiters.indexOf(w);
            if (at < 0) {
                return q; // left already: leaving is idempotent
            }
            q.waiters.remove(at);
            if (w.uncarried) {
                w.uncarried = false; // it gave up before a message took its place: none goes now
                q.uncarried.remove(w);
            }
            if (w.signalled && !won) {
                next[0] = oldestUnsignalled(q);
            }
            if (at < POLLERS && q.waiters.size() >= POLLERS) {
                // The first parked waiter, if any, is one of the pollers now: it is told (and polls from then on), or,
                // if nobody listens for that, signalled (it tries at once).
                Waiter up = q.waiters.get(POLLERS - 1);
                if (up.parked && !up.signalled && up != next[0]) {
                    up.parked = false;
                    up.signalled = up.movedUp == null;
                    movedUp[0] = up;
                }
            }
            if (q.waiters.isEmpty()) {
                // A client that waited for the lock is likely to come back for it (a loop, a busy service): keeping
                // the key's subscriptions a while spares the next acquisition a SUBSCRIBE, and the check that
                // follows its confirmation (see subscribed); in a hand-over queue, the client's place stays too.
                if ((w.handsOver() || w.id != null) && linger(k, q)) {
                    return q;
                }
                unsubscribe(k);
                return null;
            }
            return q;
        });
        if (next[0] != null) {
            next[0].wake();
        }
        if (movedUp[0] != null) {
            tellToPoll(movedUp[0]);
        }
    }

    /**
     * How many of a key's waiters in this client poll the nodes. The others wait for a release's signal (which goes
     * to the oldest) or for their turn to poll, instead of each polling a few times a second: with thousands of
     * waiters, polls alone saturated the nodes and almost nothing was granted.
     */
    static final int POLLERS = 8;

    /**
     * Parks {@code w} if {@value #POLLERS} waiters of its key are ahead of it: it need not poll until one of those
     * leaves, when {@link #leave} tells it (or wakes it). Only for waiters that keep no place of their own on the
     * nodes (a fair waiter, a preferred writer must come back within their place's window). Returns whether it is
     * parked.
     */
    boolean park(Waiter w) {
        boolean[] parked = new boolean[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            if (!w.signalled) {
                int at = 0;
                for (Waiter o : q.waiters) {
                    if (o == w || at >= POLLERS) {
                        break;
                    }
                    at++;
                }
                w.parked = at >= POLLERS;
                parked[0] = w.parked;
            }
            return q;
        });
        return parked[0];
    }

    /** A round of a waiter of the key was refused: what a waiter that sent no round reports if its wait ends. */
    void refused(Waiter w, dev.redlock.RoundOutcome outcome) {
        Waiter[] passed = new Waiter[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            q.lastRefusal = outcome;
            Waiter yielded = q.yieldedBy;
            if (w.reader && yielded != null) {
                // The reader a named writer yielded to was refused (another client's preferred writer keeps readers
                // out, say): the writer goes after all, or nobody would use the release.
                q.yieldedBy = null;
                if (!yielded.signalled && q.waiters.contains(yielded)) {
                    yielded.signalled = true;
                    passed[0] = yielded;
                }
            }
            return q;
        });
        if (passed[0] != null) {
            passed[0].wake();
        }
    }

    /**
     * The outcome of this client's last refused round for {@code w}'s key if another waiter of this client is ahead of
     * {@code w} and {@code w} holds no signal: a round of {@code w} now could only be refused, or overtake the waiter
     * this client owes the lock to. Null otherwise.
     */
    dev.redlock.RoundOutcome behindOthers(Waiter w) {
        dev.redlock.RoundOutcome[] last = new dev.redlock.RoundOutcome[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            if (!w.signalled && q.waiters.indexOf(w) > 0) {
                last[0] = q.lastRefusal;
            }
            return q;
        });
        return last[0];
    }

    /** Takes the waiter's signal, if it holds one: it retries now rather than at its next poll. */
    boolean consumeSignal(Waiter w) {
        boolean[] had = new boolean[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            had[0] = w.signalled;
            w.signalled = false;
            return q;
        });
        return had[0];
    }

    /** Whether the waiter holds a signal (read without taking it, for a sleeping acquisition's wake-up check). */
    boolean signalled(Waiter w) {
        boolean[] had = new boolean[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            had[0] = w.signalled;
            return q;
        });
        return had[0];
    }

    /**
     * The key was released: {@code message} is the released token's prefix, then, if the nodes queue waiters for the
     * key, a space and the head's id (see {@code release.lua}); null for a release of this client's with nothing to
     * tell apart. Wakes the named waiter: a fair waiter of this client by its id, this client's oldest waiter without
     * a signal when the head is this client's place, nobody when it is another client's; without a head, the oldest
     * waiter without a signal. Once per release however many nodes report it, and only once a majority of the lock's
     * nodes did (at the first report if this client hears fewer): a round started when the first node ran the release
     * reaches nodes that have not run it yet, is refused there, and its waiter then sleeps out its retry delay (or the
     * holder's TTL) with the lock free, since the later reports of the same release wake nobody.
     */
    void released(String key, String message) {
        released(key, message, false);
    }

    /**
     * This client released the key ({@code release}: the token's prefix; null when a place or entry of its own left):
     * wakes its oldest waiter now. Its round goes out behind the release on each node's connection, so every node runs
     * the release first; the nodes' reports of it then wake nobody.
     */
    void releasedHere(String key, String release) {
        released(key, release, true);
    }

    private void released(String key, String message, boolean here) {
        int enoughUnnamed = here || !hears(key, quorum) ? 1 : quorum;
        int space = message == null ? -1 : message.indexOf(' ');
        String release = space < 0 ? message : message.substring(0, space);
        int end = space < 0 ? -1 : message.indexOf(' ', space + 1);
        String head = space < 0 ? null : end < 0 ? message.substring(space + 1) : message.substring(space + 1, end);
        boolean othersBehind = end >= 0 && message.startsWith("+", end + 1);
        Waiter[] target = new Waiter[1];
        queues.computeIfPresent(key, (k, q) -> {
            q.heard = true;
            if (head == null && release != null && (release.equals(q.quietRelease) || release.equals(q.quietPlace))) {
                return q; // see releasingWithNoWaiter (nor does it end a lingering spell)
            }
            if (q.waiters.isEmpty()
                    && q.lingering
                    && (head == null || head.equals(clientId))
                    && (release == null || q.find(release) < 0)) {
                // This client is next (or nobody queues on that node) with no waiter: its place goes, so that it
                // does not hold the others up for a window. Conditional where a release left it at the back; else
                // it is a place a late update put back. Sent inside the queue's lock, before the queue goes, so that
                // a new acquisition of this client, which then takes a place with a round of its own, reaches each
                // node after it. A later report of a release heard already is stale: that release named this client
                // while it had a waiter, which got in; leaving on it took the place of a client that just got the lock
                // by a hand-over, and its next acquisition then needed a refused round of its own.
                if (q.leftPlace != null) {
                    hooks.leave(q.leftPlace);
                } else if (head != null) {
                    hooks.leaveAny(k);
                }
                unsubscribe(k);
                return null;
            }
            Waiter named = head == null || head.equals(clientId) ? null : byId(q, head);
            if (named != null) {
                if (q.use(release, quorum)) {
                    // A writer named as the head of the writers' line that lets readers pass goes after this client's
                    // readers that waited before it (they may get in now; the last one's release names it again).
                    Waiter reader = named.letsReadersPass ? oldestUnsignalledReader(q) : null;
                    Waiter next =
                            reader != null && q.waiters.indexOf(reader) < q.waiters.indexOf(named) ? reader : named;
                    q.yieldedBy = next == named ? null : named;
                    if (!next.signalled) {
                        next.signalled = true;
                        target[0] = next;
                    }
                }
                return q;
            }
            boolean foreign = head != null && !head.equals(clientId);
            if (foreign) {
                q.othersFirst = true;
            } else if (!here) {
                // This client is the head, or nobody queues. With other clients' places behind it, their waiters are
                // usually first after its next release, so that release does not wake its own waiter ahead of the
                // nodes' word (the nodes would refuse it: a round for nothing; or, in a writers' line, grant it ahead
                // of the head they named); with nobody behind, it does. (This client's own wake-up says nothing
                // about who else queues.)
                q.othersFirst = othersBehind;
            }
            if (foreign) {
                // Another client's turn (its writer, for a read-write lock); a reader of this client may get in all the
                // same, unless that writer keeps readers out (then its round is refused, as before the line).
                Waiter reader = oldestUnsignalledReader(q);
                if (reader != null && (release == null || q.use(release, quorum))) {
                    reader.signalled = true;
                    target[0] = reader;
                }
                return q;
            }
            if (release != null && !q.use(release, head == null ? enoughUnnamed : quorum)) {
                // Signalled already (by this client's release, or by enough nodes), or not yet reported by enough
                // nodes.
                return q;
            }
            target[0] = oldestUnsignalled(q);
            return q;
        });
        if (target[0] != null) {
            target[0].wake();
        }
    }

    /** A reader got in: wakes every reader of the key holding no signal (readers share; writers wait on). */
    void wakeReaders(String key) {
        List<Waiter> readers = new ArrayList<>();
        queues.computeIfPresent(key, (k, q) -> {
            q.yieldedBy = null; // the reader a named writer yielded to got in: the last reader's release names it again
            for (Waiter w : q.waiters) {
                if (w.reader && !w.signalled) {
                    w.signalled = true;
                    readers.add(w);
                }
            }
            return q;
        });
        for (Waiter w : readers) {
            w.wake();
        }
    }

    /**
     * Keeps an empty queue for a hand-over window, still subscribed, so that a release of the lock can leave the
     * client's place on the nodes for its next acquisition. Guarded by the key's bin lock.
     */
    private boolean linger(String key, Queue q) {
        int spell = q.spell = spells.incrementAndGet();
        if (!hooks.later(() -> endLingering(key, spell), hooks.windowNanos())) {
            return false;
        }
        q.lingering = true;
        q.leftPlace = null;
        return true;
    }

    /** A lingering spell ended: nobody came back; a place the release left goes (it would hold the queue up). */
    private void endLingering(String key, int spell) {
        queues.computeIfPresent(key, (k, q) -> {
            if (!q.lingering || q.spell != spell) {
                return q;
            }
            if (q.leftPlace != null) {
                hooks.leave(q.leftPlace); // before the queue goes: see released
            }
            unsubscribe(k);
            return null;
        });
    }

    /**
     * A lease of this client's is released while the key's queue lingers with no waiter: whether the release should
     * leave the client's place on the nodes, at the back, for an acquisition that comes back soon. The place goes at
     * once if a release names it while nobody came back, and when the window ends.
     */
    boolean lingers(LockRef ref) {
        boolean[] yes = new boolean[1];
        queues.computeIfPresent(ref.key(), (k, q) -> {
            if (q.lingering && q.waiters.isEmpty() && q.leftPlace == null) {
                int spell = q.spell = spells.incrementAndGet();
                if (hooks.later(() -> endLingering(k, spell), hooks.windowNanos())) {
                    q.leftPlace = ref;
                    yes[0] = true;
                }
            }
            return q;
        });
        return yes[0];
    }

    /**
     * This client releases a fair lease (or a preferred writer's) of the key: if none of its acquisitions waits for
     * the key, the nodes' reports of the release that name no head wake nobody. An acquisition that begins after it
     * runs its first round behind the release on each node's connection, so it sees the lock as the release left it;
     * woken by a late report (the key's subscriptions outlive its last waiter, see leave), it would run a second
     * round, which the next holder refuses. A report that names a waiter of this client still wakes it: its place
     * reached that node before the release.
     *
     * @param release the released token's prefix, as the nodes that held the lease report it
     * @param place the prefix of the lease's place in the queue, as the nodes that did not hold the lease report the
     *     release (it takes the place out of a free lock's queue there)
     */
    void releasingWithNoWaiter(String key, String release, String place) {
        queues.computeIfPresent(key, (k, q) -> {
            if (q.waiters.isEmpty()) {
                q.quietRelease = release;
                q.quietPlace = place;
            }
            return q;
        });
    }

    /** The reports of this client's release {@code release} of the key wake nobody (a failed round's own release). */
    void ignore(String key, String release) {
        queues.computeIfPresent(key, (k, q) -> {
            q.use(release, Integer.MAX_VALUE);
            q.used[q.find(release)] = true;
            return q;
        });
    }

    /** The waiter whose id starts with {@code head}, or null. */
    private static Waiter byId(Queue q, String head) {
        for (Waiter w : q.waiters) {
            if (w.id != null && w.id.startsWith(head)) {
                return w;
            }
        }
        return null;
    }

    /**
     * This client releases the key: whether it should wake its oldest waiter of the key at once, ahead of the nodes'
     * word. Yes if it has one and no other client is known to queue for the key (else the nodes would likely refuse
     * this client's waiter, and the release's own message wakes the right one).
     */
    boolean wakesOwnAtRelease(String key) {
        boolean[] wake = new boolean[1];
        queues.computeIfPresent(key, (k, q) -> {
            wake[0] = !q.othersFirst && !q.waiters.isEmpty();
            return q;
        });
        return wake[0];
    }

    /**
     * The place of this client's oldest waiter of the key that holds no lease yet, other than {@code leaving}; 0 if
     * none: where this client's place in a hand-over queue moves when a lease is released or an acquisition leaves.
     */
    long nextPlace(String key, Waiter leaving) {
        long[] place = new long[1];
        queues.computeIfPresent(key, (k, q) -> {
            for (Waiter w : q.waiters) {
                if (w != leaving) {
                    place[0] = w.place;
                    break;
                }
            }
            return q;
        });
        return place[0];
    }

    /** The oldest reader holding no signal, or null (it is not signalled here). */
    private static Waiter oldestUnsignalledReader(Queue q) {
        for (Waiter w : q.waiters) {
            if (w.reader && !w.signalled) {
                return w;
            }
        }
        return null;
    }

    /** Marks and returns the oldest waiter holding no signal; null if every waiter already holds one. */
    private static Waiter oldestUnsignalled(Queue q) {
        for (Waiter w : q.waiters) {
            if (!w.signalled) {
                w.signalled = true;
                return w;
            }
        }
        return null;
    }

    /** Whether some acquisition of this client already waits for the key: a newcomer queues behind it. */
    boolean hasWaiters(String key) {
        boolean[] any = new boolean[1];
        queues.computeIfPresent(key, (k, q) -> {
            any[0] = !q.waiters.isEmpty();
            return q;
        });
        return any[0];
    }

    /**
     * A new acquisition of a plain lock's hand-over queue joins this client's waiters without a round of its own if
     * the client has its place in the nodes' queue: others of this client wait (the place is at the oldest one's
     * order), or a release left the place at the back for it. Null if not: it then takes a place with its first
     * round, if refused.
     */
    Waiter adopt(String key, Runnable wake, long place) {
        Waiter w = new Waiter(key, wake, false, false, place, null);
        boolean[] joined = new boolean[1];
        queues.computeIfPresent(key, (k, q) -> {
            if (!q.waiters.isEmpty() || q.leftPlace != null) {
                q.lingering = false;
                q.leftPlace = null;
                insert(q, w);
                joined[0] = true;
            }
            return q;
        });
        if (!joined[0]) {
            return null;
        }
        checkIfDue(key);
        return w;
    }

    /**
     * Whether a waiter of the key polls as if there were no notifications: its client hears too few nodes, or it
     * heard nothing for the key yet and fewer than {@code quorum} nodes confirmed its subscriptions (they may still be
     * on their way, and a release that named it then went unheard).
     */
    boolean deaf(String key, int quorum) {
        if (!hears(key, quorum)) {
            return true;
        }
        Queue q = queues.get(key);
        return q == null || (!q.heard && confirmedBy(key) < quorum);
    }

    /**
     * Whether some acquisition of this client waits for the key that a new reader should queue behind: any but a
     * writer that lets readers pass. Such a writer waits for readers to leave (the new reader may join them), or for
     * another writer (who refuses the new reader's round too, and it then waits in turn).
     */
    boolean holdsBackReaders(String key) {
        boolean[] any = new boolean[1];
        queues.computeIfPresent(key, (k, q) -> {
            for (Waiter w : q.waiters) {
                if (!w.letsReadersPass) {
                    any[0] = true;
                    break;
                }
            }
            return q;
        });
        return any[0];
    }

    /** How many waiters of the key are ahead of {@code w} (0 for the oldest). */
    int position(Waiter w) {
        int[] ahead = new int[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            for (Waiter o : q.waiters) {
                if (o == w) {
                    break;
                }
                ahead[0]++;
            }
            return q;
        });
        return ahead[0];
    }

    /** Wakes every waiter (the client is closing: they find out at once instead of at their next poll). */
    void wakeAll() {
        List<Waiter> all = new ArrayList<>();
        for (String key : queues.keySet()) {
            queues.computeIfPresent(key, (k, q) -> {
                all.addAll(q.waiters); // a copy under the key's lock; each is only woken, outside it
                return q;
            });
        }
        for (Waiter w : all) {
            w.wake();
        }
    }

    /**
     * The client closes: places that releases left at the back for acquisitions that will not come now leave the
     * nodes' queues (before the nodes close), and the lingering keys go.
     */
    void closeLingering() {
        for (String key : queues.keySet()) {
            queues.computeIfPresent(key, (k, q) -> {
                if (!q.waiters.isEmpty() || !q.lingering) {
                    return q;
                }
                if (q.leftPlace != null) {
                    hooks.leave(q.leftPlace);
                }
                unsubscribe(k);
                return null;
            });
        }
    }

    /** How many keys have waiters (for tests and leak checks). */
    int keys() {
        return queues.size();
    }
}
