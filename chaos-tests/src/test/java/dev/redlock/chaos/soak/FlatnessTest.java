/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The flatness judge: steady and noisy series pass, growing ones fail, too short ones are not judged. */
class FlatnessTest {

    private static final Flatness HEAP = new Flatness(0.10, 4);

    @Test
    void aSteadySeriesIsFlat() {
        Flatness.Judgement j = HEAP.judge("heap (MB)", new double[] {30, 31, 30.5, 31, 30.8, 31.2, 30.9, 31, 30.7});
        assertTrue(j.judged() && j.flat(), j::toString);
        assertEquals(31, j.firstMax());
        assertEquals(31, j.lastMax());
    }

    @Test
    void noiseWithinTheMarginIsFlat() {
        // A swing up in the middle and a last third somewhat above the first: 36 <= 31 * 1.1 + 4.
        Flatness.Judgement j = HEAP.judge("heap (MB)", new double[] {30, 31, 29, 45, 33, 30, 36, 32, 35});
        assertTrue(j.flat(), j::toString);
    }

    /**
     * The connections to node 0 in a 30-minute soak: 8 throughout (9 while a client reconnected), and 15 for one
     * sample at minute 24, when clients reconnected after a restart: a swing, not growth.
     */
    @Test
    void oneHighSampleLateInTheRunIsFlat() {
        double[] node0 = {8, 8, 8, 8, 8, 9, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 15, 8, 8, 8, 8, 8, 8};
        Flatness.Judgement j = new Flatness(0, 1).judge("node 0 connections", node0);
        assertTrue(j.flat(), j::toString);
        assertEquals(15, j.lastMax());
        assertEquals(8, j.lastMedian());
    }

    /** The negative control: a heap that grows a little every minute fails. */
    @Test
    void aGrowingSeriesIsNotFlat() {
        double[] growing = new double[30];
        for (int i = 0; i < growing.length; i++) {
            growing[i] = 30 + 0.5 * i; // half a megabyte a minute: 30 -> 44.5 in 30 minutes
        }
        Flatness.Judgement j = HEAP.judge("heap (MB)", growing);
        assertTrue(j.judged(), j::toString);
        assertFalse(j.flat(), j::toString);
        assertTrue(j.toString().contains("GROWING"), j::toString);
    }

    /** The negative control for counts: a thread leaked every few minutes fails, however slowly. */
    @Test
    void aSlowLeakOfThreadsIsNotFlat() {
        Flatness threads = new Flatness(0, 2);
        double[] leaking = new double[30];
        for (int i = 0; i < leaking.length; i++) {
            leaking[i] = 40 + i / 5; // one more every five minutes
        }
        assertFalse(threads.judge("threads", leaking).flat());
        assertTrue(threads.judge("threads", new double[] {40, 41, 42, 41, 40, 42, 41, 42, 42})
                .flat());
    }

    @Test
    void missingSamplesAreLeftOut() {
        Flatness conns = new Flatness(0, 1);
        Flatness.Judgement j = conns.judge("connections", new double[] {8, Double.NaN, 8, 7, Double.NaN, 8, 9});
        assertEquals(5, j.samples());
        assertTrue(j.flat(), j::toString);
        assertFalse(conns.judge("connections", new double[] {8, Double.NaN, 8, 9, Double.NaN, 10, 12})
                .flat());
    }

    @Test
    void tooFewSamplesAreNotJudged() {
        Flatness.Judgement j = HEAP.judge("heap (MB)", new double[] {30, Double.NaN, 31});
        assertFalse(j.judged());
        assertFalse(j.flat());
        assertTrue(j.toString().contains("too few"), j::toString);
    }

    @Test
    void negativeMarginsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Flatness(-0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Flatness(0, Double.NaN));
    }
}
