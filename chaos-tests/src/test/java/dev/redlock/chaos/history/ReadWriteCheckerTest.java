/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.history;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.chaos.history.CheckResult.Validity;
import org.junit.jupiter.api.Test;

class ReadWriteCheckerTest {

    private static Op reader(int client, long fromMs, long toMs) {
        return ok(client, "rw", fromMs, toMs).kind(Op.Kind.READ).build();
    }

    private static Op writer(int client, long fromMs, long toMs) {
        return ok(client, "rw", fromMs, toMs).kind(Op.Kind.WRITE).build();
    }

    /** The clean control: overlapping readers, writers alone, touching windows. */
    @Test
    void readersShareAndWritersHoldAlone() {
        History h = history(
                reader(1, 0, 100),
                reader(2, 20, 80),
                reader(3, 50, 150), // three readers over [50, 80)
                writer(4, 150, 200), // touches the last reader's end
                writer(5, 200, 260), // touches the first writer's end
                reader(6, 260, 300),
                ok(7, "other", 0, 500).kind(Op.Kind.WRITE).build()); // another lock entirely
        CheckResult r = new ReadWriteChecker().check(h);
        assertEquals(Validity.VALID, r.validity(), r.toString());
        assertTrue(r.summary().contains("at most 3 readers at once"), r.summary());
        assertTrue(r.summary().contains("4 reader and 3 writer"), r.summary());
    }

    /** The negative control: a writer that starts while a reader holds the lock. */
    @Test
    void writerInsideAReaderIsAViolation() {
        History h = history(reader(1, 0, 100), reader(2, 10, 40), writer(3, 90, 150));
        CheckResult r = new ReadWriteChecker().check(h);
        assertEquals(Validity.INVALID, r.validity(), r.toString());
        assertEquals(1, r.violations().size(), r.violations().toString());
        String v = r.violations().get(0);
        assertTrue(v.contains("a reader and a writer held it together for 10.000 ms"), v);
        assertTrue(v.contains("client 1") && v.contains("client 3"), v);
    }

    @Test
    void readerInsideAWriterIsAViolationEvenBehindALongerReader() {
        // The reader reaching furthest is client 1's; the writer still excludes client 3.
        History h = history(reader(1, 0, 500), writer(2, 100, 200), reader(3, 150, 160));
        CheckResult r = new ReadWriteChecker().check(h);
        assertEquals(Validity.INVALID, r.validity(), r.toString());
        // The writer overlaps reader 1, and reader 3 starts inside the writer.
        assertEquals(2, r.violations().size(), r.violations().toString());
        assertTrue(
                r.violations().get(1).contains("a writer and a reader"),
                r.violations().get(1));
    }

    @Test
    void twoWritersAndAPlainLockOpAreExclusive() {
        History nested = history(writer(1, 0, 100), writer(2, 40, 60));
        assertEquals(Validity.INVALID, new ReadWriteChecker().check(nested).validity());
        // An op without a kind holds the lock alone, like a writer.
        History plain = history(reader(1, 0, 100), ok(2, "rw", 50, 70).build());
        assertEquals(Validity.INVALID, new ReadWriteChecker().check(plain).validity());
    }

    @Test
    void emptyAndFailedWindowsAreIgnored() {
        History h = history(
                writer(1, 0, 100),
                Ops.busy(2, "rw", 50).kind(Op.Kind.READ).build(),
                ok(3, "rw", 60, 100).kind(Op.Kind.READ).releaseNanos(Ops.at(60)).build());
        assertEquals(Validity.VALID, new ReadWriteChecker().check(h).validity());
    }
}
