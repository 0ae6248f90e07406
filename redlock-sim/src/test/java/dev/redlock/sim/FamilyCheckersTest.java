/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.Op;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The simulation's own checkers of the lock family on hand-made histories: each one sees the violation it exists for
 * (its negative control, since the simulation inside the assumptions must never produce one), and lets pass what the
 * library allows (readers together, a reader inside its own write lease, a waiter overtaken once its place stood on
 * too few nodes). Exclusion per resource is the chaos suite's {@code MultiResourceChecker}, with its own tests.
 */
class FamilyCheckersTest {

    private static final long MS = 1_000_000L;

    private static Op window(int client, String lock, long fromMs, long toMs) {
        return Op.builder()
                .client(client)
                .lock(lock)
                .invokeNanos(fromMs * MS)
                .completeNanos(fromMs * MS)
                .outcome(Op.Outcome.OK)
                .token("t" + client)
                .deadlineNanos(toMs * MS)
                .build();
    }

    // ------------------------------------------------------------------------------------------------ read-write

    private static ReadWriteExclusionChecker.Hold writer(int client, long fromMs, long toMs) {
        return new ReadWriteExclusionChecker.Hold(window(client, "rw", fromMs, toMs), true, "writer-" + client, null);
    }

    private static ReadWriteExclusionChecker.Hold reader(int client, long fromMs, long toMs, String admittedBy) {
        return new ReadWriteExclusionChecker.Hold(
                window(client, "rw", fromMs, toMs), false, "reader-" + client + "-" + fromMs, admittedBy);
    }

    @Test
    void aWriterOverlappingAReaderIsAViolation() {
        CheckResult r = ReadWriteExclusionChecker.check(List.of(writer(0, 0, 100), reader(1, 50, 150, null)));
        assertEquals(CheckResult.Validity.INVALID, r.validity(), r.toString());
        assertTrue(
                r.violations().get(0).contains("overlaps reader"),
                r.violations().get(0));
    }

    @Test
    void aWriterOverlappingAnotherWriterIsAViolation() {
        CheckResult r = ReadWriteExclusionChecker.check(List.of(writer(0, 0, 100), writer(1, 99, 150)));
        assertEquals(CheckResult.Validity.INVALID, r.validity(), r.toString());
        assertTrue(
                r.violations().get(0).contains("overlaps writer"),
                r.violations().get(0));
    }

    @Test
    void aReaderLetInByOneWriterMustNotOverlapAnother() {
        CheckResult r = ReadWriteExclusionChecker.check(
                List.of(writer(0, 0, 100), writer(1, 100, 200), reader(0, 50, 150, "writer-0")));
        assertEquals(CheckResult.Validity.INVALID, r.validity(), r.toString());
        assertEquals(1, r.violations().size(), r.violations().toString());
        assertTrue(
                r.violations().get(0).contains("writer client 1"),
                r.violations().get(0));
    }

    @Test
    void readersTogetherAndAReaderInsideItsOwnWriteLeasePass() {
        CheckResult r = ReadWriteExclusionChecker.check(List.of(
                reader(0, 0, 100),
                reader(1, 50, 150, null),
                writer(2, 150, 300),
                reader(2, 200, 400, "writer-2"),
                reader(0, 310, 320, null)));
        assertTrue(r.isValid(), r.toString());
        assertTrue(r.summary().contains("1 readers inside their own write lease"), r.summary());
    }

    private static ReadWriteExclusionChecker.Hold reader(int client, long fromMs, long toMs) {
        return reader(client, fromMs, toMs, null);
    }

    // ------------------------------------------------------------------------------------------------ fair order

    private static final double[] RATES = {1, 1, 1, 1, 1};
    private static final List<List<Long>> NO_LOSS = List.of(List.of(), List.of(), List.of(), List.of(), List.of());

    /** A waits from 0 ms (place 100) until 1 s; B (place 200) is granted by a round from 10 to 12 ms. */
    private static List<FairOrderChecker.Acquisition> waiterAndOvertaker(long aTtlMillis) {
        return List.of(
                new FairOrderChecker.Acquisition(0, 100, 0, 1_000 * MS, -1, -1, aTtlMillis),
                new FairOrderChecker.Acquisition(1, 200, 5 * MS, 12 * MS, 10 * MS, 12 * MS, 500));
    }

    /** A's attempt at 1 ms ran (refused) on {@code nodes}; B's at 10 ms on nodes 3 and 4. */
    private static List<FairOrderChecker.Placement> placed(String waiter, int... nodes) {
        return placed(waiter, false, nodes);
    }

    private static List<FairOrderChecker.Placement> placed(String waiter, boolean granted, int... nodes) {
        List<FairOrderChecker.Placement> out = new java.util.ArrayList<>();
        for (int n : nodes) {
            out.add(new FairOrderChecker.Placement(0, n, 100, waiter, MS, granted));
        }
        out.add(new FairOrderChecker.Placement(1, 3, 200, "waiter-b", 10 * MS, true));
        out.add(new FairOrderChecker.Placement(1, 4, 200, "waiter-b", 10 * MS, true));
        return out;
    }

    private static CheckResult fair(
            List<FairOrderChecker.Acquisition> acquisitions,
            List<FairOrderChecker.Placement> placements,
            List<FairOrderChecker.Leave> leaves,
            List<List<Long>> losses) {
        return FairOrderChecker.check(acquisitions, placements, leaves, losses, RATES, 3, 5_000);
    }

    @Test
    void aGrantOvertakingAWaiterPlacedOnAQuorumIsAViolation() {
        CheckResult r = fair(waiterAndOvertaker(500), placed("waiter-a", 0, 1, 2), List.of(), NO_LOSS);
        assertEquals(CheckResult.Validity.INVALID, r.validity(), r.toString());
        assertTrue(
                r.violations().get(0).contains("stood ahead on 3 nodes"),
                r.violations().get(0));
    }

    @Test
    void placesOfTheSameOrderAreOrderedByWaiterId() {
        List<FairOrderChecker.Acquisition> tie = List.of(
                new FairOrderChecker.Acquisition(0, 200, 0, 1_000 * MS, -1, -1, 500),
                new FairOrderChecker.Acquisition(1, 200, 5 * MS, 12 * MS, 10 * MS, 12 * MS, 500));
        List<FairOrderChecker.Placement> p = new java.util.ArrayList<>();
        for (int n = 0; n < 3; n++) {
            p.add(new FairOrderChecker.Placement(0, n, 200, "waiter-a", MS, false));
        }
        p.add(new FairOrderChecker.Placement(1, 3, 200, "waiter-b", 10 * MS, true));
        assertEquals(
                CheckResult.Validity.INVALID, fair(tie, p, List.of(), NO_LOSS).validity());
        List<FairOrderChecker.Placement> behind = new java.util.ArrayList<>();
        for (int n = 0; n < 3; n++) {
            behind.add(new FairOrderChecker.Placement(0, n, 200, "waiter-c", MS, false));
        }
        behind.add(new FairOrderChecker.Placement(1, 3, 200, "waiter-b", 10 * MS, true));
        assertTrue(fair(tie, behind, List.of(), NO_LOSS).isValid());
    }

    @Test
    void aWaiterWhosePlaceStoodOnTooFewNodesMayBeOvertaken() {
        // On two nodes only.
        CheckResult r = fair(waiterAndOvertaker(500), placed("waiter-a", 0, 1), List.of(), NO_LOSS);
        assertTrue(r.isValid(), r.toString());
        assertTrue(r.summary().contains("1 overtook a waiter placed on fewer nodes"), r.summary());
        // A node lost its data since.
        List<List<Long>> loss = List.of(List.of(), List.of(5 * MS), List.of(), List.of(), List.of());
        assertTrue(fair(waiterAndOvertaker(500), placed("waiter-a", 0, 1, 2), List.of(), loss)
                .isValid());
        // The waiter's own release took its place out of one node's queue.
        assertTrue(fair(
                        waiterAndOvertaker(500),
                        placed("waiter-a", 0, 1, 2),
                        List.of(new FairOrderChecker.Leave(2, "waiter-a", 3 * MS)),
                        NO_LOSS)
                .isValid());
        // The place expired: granted there (in a round that failed), it lasts the waiter's TTL (5 ms) from 1 ms.
        r = fair(waiterAndOvertaker(5), placed("waiter-a", true, 0, 1, 2), List.of(), NO_LOSS);
        assertTrue(r.isValid(), r.toString());
        assertTrue(
                r.summary().contains("(1 of them only because a granted attempt had cut its place to its TTL)"),
                r.summary());
        // It expired before the waiter's next attempt renewed it: not there throughout the round.
        List<FairOrderChecker.Placement> gap = new java.util.ArrayList<>(placed("waiter-a", true, 0, 1, 2));
        for (int n = 0; n < 3; n++) {
            gap.add(new FairOrderChecker.Placement(0, n, 100, "waiter-a", 11 * MS, false));
        }
        assertTrue(fair(waiterAndOvertaker(5), gap, List.of(), NO_LOSS).isValid());
    }

    @Test
    void aRefusedAttemptKeepsThePlaceForTheQueueWindowWhateverTheTtl() {
        // TTL 5 ms, but refused at 1 ms: the place lasts the 5 s window, so at 10 to 12 ms it still stands.
        CheckResult r = fair(waiterAndOvertaker(5), placed("waiter-a", false, 0, 1, 2), List.of(), NO_LOSS);
        assertEquals(CheckResult.Validity.INVALID, r.validity(), r.toString());
        // Renewed inside the round by a refused attempt: still standing throughout.
        List<FairOrderChecker.Placement> renewed = new java.util.ArrayList<>(placed("waiter-a", true, 0, 1, 2));
        for (int n = 0; n < 3; n++) {
            renewed.add(new FairOrderChecker.Placement(0, n, 100, "waiter-a", 5 * MS, false));
        }
        assertEquals(
                CheckResult.Validity.INVALID,
                fair(waiterAndOvertaker(500), renewed, List.of(), NO_LOSS).validity());
    }

    @Test
    void aWaiterThatGaveUpOrAPlaceTakenAfterTheRoundStartedIsNotOvertaken() {
        List<FairOrderChecker.Acquisition> gaveUp = List.of(
                new FairOrderChecker.Acquisition(0, 100, 0, 11 * MS, -1, -1, 500),
                new FairOrderChecker.Acquisition(1, 200, 5 * MS, 12 * MS, 10 * MS, 12 * MS, 500));
        assertTrue(fair(gaveUp, placed("waiter-a", 0, 1, 2), List.of(), NO_LOSS).isValid());
        List<FairOrderChecker.Placement> late = new java.util.ArrayList<>();
        for (int n = 0; n < 3; n++) {
            late.add(new FairOrderChecker.Placement(0, n, 100, "waiter-a", 11 * MS, false));
        }
        assertTrue(fair(waiterAndOvertaker(500), late, List.of(), NO_LOSS).isValid());
    }
}
