/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.internal.node.Subscriptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One release wakes one waiter per client, the oldest; nothing is lost, nothing is woken twice for one release. */
class WaitRoomTest {

    private final List<String> subscriptions = new ArrayList<>();
    private final List<String> woken = new ArrayList<>();
    private final WaitRoom room = new WaitRoom(
            new Subscriptions() {
                @Override
                public void subscribe(String key) {
                    subscriptions.add("+" + key);
                }

                @Override
                public void unsubscribe(String key) {
                    subscriptions.add("-" + key);
                }
            },
            "c0ffee00c0ffee00");

    private WaitRoom.Waiter join(String key, String name) {
        return room.joinAsync(key, () -> woken.add(name));
    }

    /**
     * A fair waiter is deferred (its place carried by the client's next message) only behind an older one whose place
     * stands between its rounds: a round already on its way carries nobody, and it may win, after which its place
     * lasts only as long as its key. Seen failing before: a waiter joined behind a round in flight was deferred, and
     * with the winner's lease left to lapse, another client's later waiter could go first. Carried places go oldest
     * first, whatever order their waiters joined in.
     */
    @Test
    void aFairWaiterIsDeferredOnlyBehindAnOlderOneBetweenItsRounds() {
        WaitRoom.Waiter older = room.joinFair("k", () -> woken.add("older"), 100, "older", true);
        assertFalse(room.deferred(older), "nobody ahead: it queues with a round of its own");
        assertEquals(List.of(), room.takeUncarried("k", older)); // its round goes out
        WaitRoom.Waiter behindARound = room.joinFair("k", () -> woken.add("n1"), 200, "n1", true);
        assertFalse(room.deferred(behindARound), "behind a round on its way: a round of its own");
        room.takeUncarried("k", behindARound);
        room.betweenRounds(older); // refused: it waits on, its place standing
        room.betweenRounds(behindARound);
        WaitRoom.Waiter later = room.joinFair("k", () -> woken.add("n3"), 400, "n3", true);
        WaitRoom.Waiter earlier = room.joinFair("k", () -> woken.add("n2"), 300, "n2", true);
        assertTrue(room.deferred(later) && room.deferred(earlier));
        assertEquals(
                List.of(300L, 400L),
                room.takeUncarried("k", null).stream().map(WaitRoom::placeOf).toList(),
                "a release carries both, oldest first");
        assertEquals(List.of(), room.takeUncarried("k", null), "carried once");
    }

    @Test
    void aReleaseWakesTheOldestWaiterOnceHoweverOftenItIsReported() {
        WaitRoom.Waiter a = join("k", "a");
        WaitRoom.Waiter b = join("k", "b");
        room.released("k", "t1");
        room.released("k", "t1"); // the same release, from another node
        room.released("k", "t1");
        assertEquals(List.of("a"), woken);
        assertTrue(room.signalled(a));
        assertFalse(room.signalled(b));
        room.released("k", "t2"); // the next release: a still holds its signal, so b goes
        assertEquals(List.of("a", "b"), woken);
    }

    /**
     * Only the first {@value WaitRoom#POLLERS} waiters of a key poll: the ones behind them park, and as a waiter ahead
     * leaves, the first parked one is told that it moved up (it polls from then on) instead of being woken for a round.
     * A release still wakes the oldest waiter, parked or not.
     */
    @Test
    void waitersBehindThePollersParkAndMoveUpOneAtATime() {
        List<String> movedUp = new ArrayList<>();
        List<WaitRoom.Waiter> line = new ArrayList<>();
        for (int i = 0; i < WaitRoom.POLLERS + 2; i++) {
            String name = "w" + i;
            WaitRoom.Waiter w = join("k", name);
            w.movedUp = () -> movedUp.add(name);
            line.add(w);
        }
        for (int i = 0; i < line.size(); i++) {
            assertEquals(i >= WaitRoom.POLLERS, room.park(line.get(i)), "waiter " + i + " parks");
        }
        room.leave(line.get(3), true);
        assertEquals(List.of("w" + WaitRoom.POLLERS), movedUp, "the first parked waiter moved up");
        assertFalse(room.park(line.get(WaitRoom.POLLERS)), "and polls now");
        room.leave(line.get(WaitRoom.POLLERS + 1), false); // the last leaves: nobody moves up
        assertEquals(1, movedUp.size());
        assertEquals(List.of(), woken, "nobody was woken for a round");
        room.released("k", "t1");
        assertEquals(List.of("w0"), woken);
    }

    @Test
    void aReleaseNamingAnotherClientAsNextWakesNobodyHere() {
        // The nodes grant only the head of their hand-over queue: waking a waiter of this client would cost it a round
        // the nodes refuse, once per client and release.
        join("k", "a");
        room.released("k", "t1 0123456789abcdef");
        assertEquals(List.of(), woken);
        assertFalse(room.wakesOwnAtRelease("k"), "another client queues: the client's own release waits too");
        room.released("k", "t2 c0ffee00c0ffee00 +"); // this client's turn, others behind it: its oldest waiter goes
        room.released("k", "t2 c0ffee00c0ffee00 +"); // the same release, from another node
        assertEquals(List.of("a"), woken);
        assertFalse(room.wakesOwnAtRelease("k"), "other clients queue behind this one: one of them is likely next");
        room.released("k", "t3 c0ffee00c0ffee00"); // a release named this client with nobody behind it
        assertTrue(room.wakesOwnAtRelease("k"), "nobody else queues: this client's next waiter is next");
        room.released("k", "t4 c0ffee00c0ffee00 +"); // its own release: others queue behind it again
        assertFalse(room.wakesOwnAtRelease("k"));
        room.released("k", "t5");
        assertTrue(room.wakesOwnAtRelease("k"), "nobody queues");
    }

    /**
     * This client's own wake-up (a waiter of its own left the nodes' queue, say) says nothing about who else queues:
     * it does not make the client's next release wake its own waiter ahead of the nodes' word. Seen failing before: it
     * did, and a writer of this client with a place in the writers' line took the lock back ahead of the head the
     * release named.
     */
    @Test
    void thisClientsOwnWakeDoesNotForgetThatAnotherClientQueues() {
        join("k", "a");
        join("k", "b");
        room.released("k", "t1 0123456789abcdef"); // another client's turn
        assertFalse(room.wakesOwnAtRelease("k"));
        room.releasedHere("k", null); // a waiter of this client left its place
        assertFalse(room.wakesOwnAtRelease("k"), "another client still queues");
        room.released("k", "t2"); // a release naming nobody: nobody queues now
        assertTrue(room.wakesOwnAtRelease("k"));
    }

    @Test
    void anotherClientsReleaseNamingThisOneWithNobodyBehindLetsItsNextReleaseWakeItsOwnWaiter() {
        // One client left contending: its waiters hand over among themselves in one round trip, not through the nodes.
        join("k", "a");
        join("k", "b");
        room.released("k", "t1 0123456789abcdef");
        room.released("k", "t2 c0ffee00c0ffee00");
        room.released("k", "t2 c0ffee00c0ffee00");
        assertEquals(List.of("a"), woken);
        assertTrue(room.wakesOwnAtRelease("k"), "the last client queueing wakes its own next waiter at its release");
    }

    /** A room of a client on three nodes (a majority is two) that hears {@code listening} of them. */
    private static WaitRoom threeNodes(int listening) {
        return threeNodes(listening, channel -> 0);
    }

    /** As {@link #threeNodes(int)}, with {@code confirmed} telling how many nodes confirmed each channel. */
    private static WaitRoom threeNodes(int listening, java.util.function.ToIntFunction<String> confirmed) {
        return threeNodes(listening, confirmed, WaitRoom.NO_HOOKS);
    }

    /** As {@link #threeNodes(int, java.util.function.ToIntFunction)}, with the engine's {@code hooks}. */
    private static WaitRoom threeNodes(
            int listening, java.util.function.ToIntFunction<String> confirmed, WaitRoom.Hooks hooks) {
        return new WaitRoom(
                new Subscriptions() {
                    @Override
                    public void subscribe(String key) {}

                    @Override
                    public void unsubscribe(String key) {}

                    @Override
                    public int listening() {
                        return listening;
                    }

                    @Override
                    public int confirmed(String channel) {
                        return confirmed.applyAsInt(channel);
                    }
                },
                "c0ffee00c0ffee00",
                2,
                hooks);
    }

    /**
     * A release heard from the nodes wakes a waiter once a majority of them reported it: woken by the first report,
     * the waiter's round reaches nodes that have not run the release yet and is refused there, and the later reports
     * of the same release wake nobody, so it sleeps out its retry delay with the lock free (readers behind a writer
     * that left, a preferred writer that gave up).
     */
    @Test
    void aReleaseHeardFromTheNodesWakesOnceAMajorityReportedIt() {
        WaitRoom room = threeNodes(3);
        room.joinAsync("k", () -> woken.add("reader"), true);
        room.released("k", "abcdef01");
        assertEquals(List.of(), woken, "one node of three ran the release: the other two still refuse");
        room.released("k", "abcdef01");
        assertEquals(List.of("reader"), woken);
        room.released("k", "abcdef01");
        assertEquals(List.of("reader"), woken, "woken once");
    }

    /**
     * A node that confirms the key's subscriptions again (its subscriber connection was lost and came back) counts
     * once: the waiters stay deaf (they poll at the retry delay) until a majority of distinct nodes confirmed, and
     * only then does the oldest run its check round. Seen failing before: confirmations were counted as they came, so
     * one node confirming twice passed for a majority of three.
     */
    @Test
    void aNodeThatConfirmsTheSubscriptionsAgainCountsOnce() {
        int[] nodes = {0};
        WaitRoom room = threeNodes(3, channel -> channel.equals("{k}c0ffee00c0ffee00") ? nodes[0] : 3);
        room.joinAsync("{k}", () -> woken.add("a"));
        nodes[0] = 1;
        room.heard("{k}c0ffee00c0ffee00", null);
        room.heard("{k}c0ffee00c0ffee00", null); // the same node, after a reconnect
        assertTrue(room.deaf("{k}", 2), "one node of three confirmed");
        assertEquals(List.of(), woken);
        nodes[0] = 2;
        room.heard("{k}c0ffee00c0ffee00", null);
        assertFalse(room.deaf("{k}", 2), "a majority confirmed");
        assertEquals(List.of("a"), woken, "the oldest waiter checks once");
        nodes[0] = 3;
        room.heard("{k}c0ffee00c0ffee00", null);
        assertEquals(List.of("a"), woken);
    }

    /**
     * Both of a key's channels must be confirmed by a majority: a client whose waiter left and came back before its
     * subscriber connection caught up may keep its own channel subscribed while the key's channel was unsubscribed and
     * is subscribed again; until that is confirmed, a release that names no head goes unheard.
     */
    @Test
    void theKeysOwnChannelMustBeConfirmedToo() {
        int[] keyChannel = {0};
        WaitRoom room = threeNodes(3, channel -> channel.equals("{k}") ? keyChannel[0] : 3);
        room.joinAsync("{k}", () -> woken.add("a"));
        assertTrue(room.deaf("{k}", 2), "the key's own channel is not confirmed yet");
        keyChannel[0] = 2;
        room.heard("{k}", null);
        assertFalse(room.deaf("{k}", 2));
        assertEquals(List.of("a"), woken, "the oldest waiter checks once both are");
    }

    /**
     * A release reported by the one node that had confirmed the key's subscriptions, while the others ran it before
     * theirs were in place, wakes nobody (a majority must report it), so the check round at the majority's
     * confirmation is still due: it is what finds that release. Seen failing before: any report heard before the
     * confirmation cancelled the check, and the waiter slept until its next poll with the lock free (a third of the
     * queue window; with a slow retry delay, tens of seconds).
     */
    @Test
    void aReleaseHeardFromOneNodeBeforeTheMajorityConfirmedLeavesTheCheckDue() {
        int[] nodes = {1};
        WaitRoom room = threeNodes(3, channel -> nodes[0]);
        room.joinAsync("{k}", () -> woken.add("a"));
        room.heard("{k}", null);
        room.released("{k}", "abcdef01");
        assertEquals(List.of(), woken, "one report of three, a majority needed");
        nodes[0] = 2;
        room.heard("{k}", null);
        assertEquals(List.of("a"), woken, "the oldest waiter checks once a majority confirmed");
        room.released("{k}", "abcdef01");
        assertEquals(List.of("a"), woken, "woken once: its check round is on its way");
    }

    /** A waiter woken by a release before the majority confirmed runs a round already: that round is its check. */
    @Test
    void aWaiterWokenBeforeTheMajorityConfirmedNeedsNoSeparateCheck() {
        int[] nodes = {1};
        WaitRoom room = threeNodes(3, channel -> nodes[0]);
        room.joinAsync("{k}", () -> woken.add("a"));
        room.joinAsync("{k}", () -> woken.add("b"));
        room.released("{k}", "abcdef01");
        room.released("{k}", "abcdef01");
        assertEquals(List.of("a"), woken);
        nodes[0] = 2;
        room.heard("{k}", null);
        assertEquals(List.of("a"), woken, "the woken waiter's round is the check; the one behind it sleeps on");
    }

    /**
     * The subscriber connections of a majority of nodes drop and come back: a release in between went unheard, so the
     * waiters (which may sleep a third of their place's window) are told to poll as if deaf while they are gone,
     * without a round now, and the oldest checks once a majority confirmed again. One node's drop changes nothing: a
     * majority still hears every release.
     */
    @Test
    void subscriptionsLostOnAMajorityMakeTheWaitersPollAndCheckAgainWhenTheyAreBack() {
        int[] nodes = {3};
        List<String> told = new ArrayList<>();
        WaitRoom room = threeNodes(3, channel -> nodes[0]);
        WaitRoom.Waiter a = room.joinAsync("{k}", () -> woken.add("a"));
        a.movedUp = () -> told.add("a");
        WaitRoom.Waiter b = room.joinAsync("{k}", () -> woken.add("b"));
        b.movedUp = () -> told.add("b");
        room.heard("{k}", null);
        assertEquals(List.of("a"), woken, "the check at the first majority");
        room.consumeSignal(a);
        room.released("{k}", "abcdef01");
        nodes[0] = 2;
        room.heard(null, null);
        assertEquals(List.of(), told, "one node of three dropped: a majority still hears");
        assertFalse(room.deaf("{k}", 2));
        nodes[0] = 1;
        room.heard(null, null);
        assertEquals(List.of("a", "b"), told, "a majority dropped: told to poll as if deaf");
        assertEquals(List.of("a"), woken, "no round now");
        assertTrue(room.deaf("{k}", 2));
        nodes[0] = 2;
        room.heard("{k}", null);
        assertEquals(List.of("a", "a"), woken, "a majority back: the check is due again");
        assertFalse(room.deaf("{k}", 2));
    }

    /**
     * A queue that begins on subscriptions still confirmed (a queue of the key just went, and its UNSUBSCRIBE and the
     * new SUBSCRIBE cancelled out before either went out) gets no new confirmation: its first waiter checks as it
     * joins. Seen failing before: nobody checked, and a release between its refused round and its joining went unheard.
     */
    @Test
    void aQueueThatBeginsOnSubscriptionsStillConfirmedChecksAtOnce() {
        WaitRoom room = threeNodes(3, channel -> 3);
        room.joinAsync("{k}", () -> woken.add("a"));
        assertEquals(List.of("a"), woken);
    }

    /**
     * The confirmations a joining waiter counted may be those of a queue just gone, whose UNSUBSCRIBE was on its way:
     * the new subscriptions' confirmations then come later, and a release between the two went unheard, so the next
     * confirmation checks once more (and only once).
     */
    @Test
    void aCheckMadeAsTheQueueBeganOnOldConfirmationsIsMadeAgainAtTheNextConfirmation() {
        WaitRoom room = threeNodes(3, channel -> 3);
        WaitRoom.Waiter a = room.joinAsync("{k}", () -> woken.add("a"));
        assertEquals(List.of("a"), woken);
        room.consumeSignal(a);
        room.heard("{k}", null);
        assertEquals(List.of("a", "a"), woken, "checked again at the first confirmation after joining");
        room.consumeSignal(a);
        room.heard("{k}", null);
        assertEquals(List.of("a", "a"), woken, "once");
    }

    /**
     * A hand-over client's queue lingers with no waiter while a majority of its subscriber connections drop and come
     * back: nobody is there to check then, so the next waiter to join checks (a release that named the client's place
     * meanwhile went unheard, and the lock would stay free until its next poll).
     */
    @Test
    void aLingeringQueueThatLostItsSubscriptionsChecksWhenAWaiterJoins() {
        int[] nodes = {3};
        WaitRoom room = threeNodes(3, channel -> nodes[0], new WaitRoom.Hooks() {
            @Override
            public boolean later(Runnable task, long delayNanos) {
                return true; // the lingering spell outlasts the test
            }

            @Override
            public void leave(dev.redlock.internal.script.LockRef ref) {}

            @Override
            public void leaveAny(String key) {}

            @Override
            public long windowNanos() {
                return TimeUnit.SECONDS.toNanos(30);
            }
        });
        WaitRoom.Waiter a = room.joinAsyncAt("{k}", () -> woken.add("a"), 5, null);
        room.heard("{k}", null);
        assertEquals(List.of("a"), woken, "the check at the first majority");
        room.leave(a, true);
        assertEquals(1, room.keys(), "the queue lingers");
        nodes[0] = 1;
        room.heard(null, null);
        nodes[0] = 2;
        room.heard("{k}", null);
        room.joinAsyncAt("{k}", () -> woken.add("b"), 6, null);
        assertEquals(List.of("a", "b"), woken, "the check the lingering queue had nobody for");
    }

    @Test
    void aClientThatHearsFewerThanAMajorityWakesAtTheFirstReport() {
        WaitRoom room = threeNodes(1);
        room.joinAsync("k", () -> woken.add("a"));
        room.released("k", "t1");
        assertEquals(List.of("a"), woken);
    }

    /**
     * With each lock on three of five nodes, what counts is hearing the key's own nodes: a client that hears the two
     * others and one of the key's hears too few of them for a majority, so it wakes at the first report and polls as
     * if deaf; and the key is subscribed on its three nodes only.
     */
    @Test
    void whatCountsIsHearingTheKeysOwnNodes() {
        Set<String> up = Set.of("n1", "n4", "n5");
        Set<String> ofKey = Set.of("n1", "n2", "n3");
        List<String> subscribedOn = new ArrayList<>();
        WaitRoom room = new WaitRoom(
                new Subscriptions() {
                    @Override
                    public void subscribe(String key) {
                        subscribedOn.add(key + "@every node");
                    }

                    @Override
                    public void subscribe(String key, Set<String> nodes) {
                        subscribedOn.add(key + "@" + new java.util.TreeSet<>(nodes));
                    }

                    @Override
                    public void unsubscribe(String key) {}

                    @Override
                    public int listening() {
                        return up.size();
                    }

                    @Override
                    public int listening(Set<String> nodes) {
                        return (int) up.stream().filter(nodes::contains).count();
                    }

                    @Override
                    public int confirmed(String channel) {
                        return 3;
                    }
                },
                "c0ffee00c0ffee00",
                2,
                new WaitRoom.Hooks() {
                    @Override
                    public boolean later(Runnable task, long delayNanos) {
                        return false;
                    }

                    @Override
                    public void leave(dev.redlock.internal.script.LockRef ref) {}

                    @Override
                    public void leaveAny(String key) {}

                    @Override
                    public long windowNanos() {
                        return 0;
                    }

                    @Override
                    public Set<String> nodesOf(String key) {
                        return ofKey;
                    }
                });
        room.joinAsync("k", () -> woken.add("a"));
        assertEquals(List.of("k@[n1, n2, n3]", "kc0ffee00c0ffee00@[n1, n2, n3]"), subscribedOn);
        assertTrue(room.deaf("k", 2), "one of the key's three nodes heard");
        room.released("k", "t1");
        assertEquals(List.of("a"), woken, "woken at the first report: too few of the key's nodes to wait for more");
    }

    @Test
    void aReleaseOfThisClientWakesItsOldestWaiterAtOnceAndItsReportsWakeNobodyElse() {
        WaitRoom room = threeNodes(3);
        room.joinAsync("k", () -> woken.add("a"));
        room.joinAsync("k", () -> woken.add("b"));
        room.releasedHere("k", "t1");
        assertEquals(List.of("a"), woken);
        room.released("k", "t1");
        room.released("k", "t1");
        room.released("k", "t1");
        assertEquals(List.of("a"), woken);
    }

    @Test
    void aReleaseNamingAFairWaiterWakesThatWaiterEvenIfItIsNotTheOldest() {
        room.joinAsyncAt("k", () -> woken.add("old"), 10, "aaaaaaaaaaaaaaaa0000000000000000");
        room.joinAsyncAt("k", () -> woken.add("named"), 20, "bbbbbbbbbbbbbbbb0000000000000000");
        room.released("k", "t1 bbbbbbbbbbbbbbbb");
        room.released("k", "t1 bbbbbbbbbbbbbbbb"); // another node: the named waiter holds its signal already
        assertEquals(List.of("named"), woken);
    }

    /**
     * A release naming another client's writer (the head of the writers' line) wakes no writer here, whose round the
     * named one would race, but this client's oldest reader: no writer holds the lock, so a reader may get in.
     */
    @Test
    void aReleaseNamingAnotherClientsWriterWakesAReaderHereButNoWriter() {
        room.joinAsyncAt("k", () -> woken.add("writer"), 10, "aaaaaaaaaaaaaaaa0000000000000000", true);
        room.joinAsync("k", () -> woken.add("reader"), true);
        room.joinAsync("k", () -> woken.add("second reader"), true);
        room.released("k", "t1 bbbbbbbbbbbbbbbb");
        room.released("k", "t1 bbbbbbbbbbbbbbbb"); // another node
        assertEquals(List.of("reader"), woken);
        room.released("k", "t2 aaaaaaaaaaaaaaaa"); // the writer of this client is next
        assertEquals(List.of("reader", "writer"), woken);
    }

    /**
     * A release naming this client's writer, which lets readers pass, wakes this client's reader that waited before it
     * instead: that reader may get in now, and the last reader's release names the writer again. A preferred writer,
     * which keeps readers out, goes itself; so does the named writer if the reader it yielded to is refused. Seen
     * failing before: the nodes' reports came before the client's own wake at its release, woke the named writer,
     * which took the lock ahead of the older reader.
     */
    @Test
    void aReleaseNamingThisClientsWriterWakesAReaderThatWaitedBeforeIt() {
        WaitRoom.Waiter reader = room.joinAsync("k", () -> woken.add("reader"), true);
        room.joinAsyncAt("k", () -> woken.add("writer"), 10, "aaaaaaaaaaaaaaaa0000000000000000", true);
        room.released("k", "t1 aaaaaaaaaaaaaaaa");
        assertEquals(List.of("reader"), woken);
        room.refused(reader, null); // another client's preferred writer keeps readers out: the named writer goes
        assertEquals(List.of("reader", "writer"), woken);
        woken.clear();
        room.joinAsync("p", () -> woken.add("reader of p"), true);
        room.joinAsyncAt("p", () -> woken.add("preferred writer of p"), 10, "bbbbbbbbbbbbbbbb0000000000000000", false);
        room.released("p", "t2 bbbbbbbbbbbbbbbb");
        assertEquals(List.of("preferred writer of p"), woken);
    }

    @Test
    void theNextPlaceIsTheOldestWaitersOtherThanTheOneLeaving() {
        WaitRoom.Waiter first = room.joinAsyncAt("k", () -> {}, 10, null);
        room.joinAsyncAt("k", () -> {}, 20, null);
        assertEquals(20, room.nextPlace("k", first));
        assertEquals(10, room.nextPlace("k", null));
        assertEquals(0, room.nextPlace("other", null));
    }

    @Test
    void aNewReaderIsHeldBackByEveryWaiterButWritersThatLetReadersPass() {
        assertFalse(room.holdsBackReaders("k"));
        room.joinAsync("k", () -> woken.add("writer"), false, true);
        assertTrue(room.hasWaiters("k"));
        assertFalse(room.holdsBackReaders("k"), "a writer without preference, waiting for readers to leave");
        WaitRoom.Waiter reader = room.joinAsync("k", () -> woken.add("reader"), true);
        assertTrue(room.holdsBackReaders("k"), "a reader waiting for a writer to leave");
        room.leave(reader, false);
        assertFalse(room.holdsBackReaders("k"));
        room.joinAsyncAt("k", () -> woken.add("preferred"), 0, "p");
        assertTrue(room.holdsBackReaders("k"), "a preferred writer keeps new readers out");
    }

    @Test
    void waitersWithPlacesOnTheNodesWaitInTheOrderOfTheirPlacesNotOfJoining() {
        // Two threads took places 20 and 10, then joined in the other order: the release must wake place 10, the
        // one the nodes will grant, or it is refused and the lock sits free until someone polls.
        room.joinAsyncAt("k", () -> woken.add("twenty"), 20, null);
        room.joinAsyncAt("k", () -> woken.add("ten"), 10, null);
        room.joinAsyncAt("k", () -> woken.add("thirty"), 30, null);
        room.released("k", "t1");
        room.released("k", "t2");
        room.released("k", "t3");
        assertEquals(List.of("ten", "twenty", "thirty"), woken);
    }

    @Test
    void aWaiterThatRetriesAndLosesIsStillFirstInLine() {
        WaitRoom.Waiter a = join("k", "a");
        join("k", "b");
        room.released("k", "t1");
        assertTrue(room.consumeSignal(a)); // a retries, loses to another client
        room.released("k", "t2");
        assertEquals(List.of("a", "a"), woken);
    }

    @Test
    void aSignalHeldByAWaiterThatGivesUpGoesToTheNext() {
        WaitRoom.Waiter a = join("k", "a");
        join("k", "b");
        room.released("k", "t1");
        room.leave(a, false);
        assertEquals(List.of("a", "b"), woken);
    }

    @Test
    void aWaiterThatWonKeepsItsSignal() {
        WaitRoom.Waiter a = join("k", "a");
        join("k", "b");
        room.released("k", "t1");
        room.leave(a, true);
        assertEquals(List.of("a"), woken);
    }

    @Test
    void keysAreSubscribedWhileTheyHaveWaitersOnly() {
        WaitRoom.Waiter a = join("k", "a");
        WaitRoom.Waiter b = join("k", "b");
        WaitRoom.Waiter c = join("other", "c");
        room.leave(a, false);
        room.leave(b, true);
        room.released("k", "t1"); // nobody waits: nothing happens
        room.leave(c, false);
        // Each key's own channel, and its channel for this client (a hand-over queue's release that names the client).
        assertEquals(
                List.of(
                        "+k",
                        "+kc0ffee00c0ffee00",
                        "+other",
                        "+otherc0ffee00c0ffee00",
                        "-k",
                        "-kc0ffee00c0ffee00",
                        "-other",
                        "-otherc0ffee00c0ffee00"),
                subscriptions);
        assertEquals(0, room.keys());
        assertTrue(woken.isEmpty());
    }
}
