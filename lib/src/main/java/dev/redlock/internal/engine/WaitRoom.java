package dev.redlock.internal.engine;

import dev.redlock.internal.node.Subscriptions;
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
        /** A queued acquisition's place on the nodes (fair lock, preferred writer); 0 when it has none. */
        private final long place;
        /** Set by a signal, cleared when the waiter retries because of it (guarded by the key's queue). */
        private boolean signalled;

        private Waiter(String key, Runnable wake, boolean reader, boolean letsReadersPass, long place) {
            this.key = key;
            this.wake = wake;
            this.reader = reader;
            this.letsReadersPass = letsReadersPass;
            this.place = place;
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
        int next;

        /** Remembers a release; false if it was signalled already. */
        boolean firstReport(String release) {
            for (String r : recent) {
                if (release.equals(r)) {
                    return false;
                }
            }
            recent[next] = release;
            next = (next + 1) % recent.length;
            return true;
        }
    }

    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();
    private final Subscriptions subscriptions;

    WaitRoom(Subscriptions subscriptions) {
        this.subscriptions = subscriptions;
    }

    /**
     * Joins the key's queue at the acquisition's place on the nodes: the place was taken before joining, so two
     * acquisitions may join in the other order, and a release must wake the one the nodes will grant.
     */
    Waiter joinAsyncAt(String key, Runnable wake, long place) {
        return join(new Waiter(key, wake, false, false, place));
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
        return join(new Waiter(key, wake, reader, letsReadersPass, 0));
    }

    private Waiter join(Waiter w) {
        queues.compute(w.key, (k, q) -> {
            if (q == null) {
                q = new Queue();
                subscriptions.subscribe(k);
            }
            int at = q.waiters.size();
            if (w.place != 0) {
                // Behind every waiter without a place (they joined earlier) and every earlier place.
                while (at > 0 && q.waiters.get(at - 1).place > w.place) {
                    at--;
                }
            }
            q.waiters.add(at, w);
            return q;
        });
        return w;
    }

    /**
     * Leaves the queue. A signal the waiter holds goes to the next one unless {@code won}: then the release it
     * announced is what this waiter just used.
     */
    void leave(Waiter w, boolean won) {
        Waiter[] next = new Waiter[1];
        queues.computeIfPresent(w.key, (k, q) -> {
            if (!q.waiters.remove(w)) {
                return q; // left already: leaving is idempotent
            }
            if (w.signalled && !won) {
                next[0] = oldestUnsignalled(q);
            }
            if (q.waiters.isEmpty()) {
                subscriptions.unsubscribe(k);
                return null;
            }
            return q;
        });
        if (next[0] != null) {
            next[0].wake();
        }
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
     * The key was released (its lease's token starts with {@code release}): wakes the oldest waiter without a signal,
     * once per release however many times it is reported.
     */
    void released(String key, String release) {
        Waiter[] target = new Waiter[1];
        queues.computeIfPresent(key, (k, q) -> {
            if (release != null && !q.firstReport(release)) {
                return q; // already signalled: by this client's own release, or by another node
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
        return queues.containsKey(key);
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
        for (Queue q : queues.values()) {
            synchronized (all) {
                all.addAll(List.copyOf(q.waiters)); // a stale copy is fine: each is only woken
            }
        }
        for (Waiter w : all) {
            w.wake();
        }
    }

    /** How many keys have waiters (for tests and leak checks). */
    int keys() {
        return queues.size();
    }
}
