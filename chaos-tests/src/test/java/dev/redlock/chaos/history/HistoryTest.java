/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import static dev.redlock.chaos.history.Ops.MS;
import static dev.redlock.chaos.history.Ops.at;
import static dev.redlock.chaos.history.Ops.busy;
import static dev.redlock.chaos.history.Ops.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryTest {

    @TempDir
    Path dir;

    private static Op nasty() {
        return Op.builder()
                .client(7)
                .lock("lock \"q\" \\ back")
                .invokeNanos(at(30))
                .completeNanos(at(40))
                .outcome(Op.Outcome.UNKNOWN)
                .failure("java.io.IOException: \"boom\"\n\tat x.y(Z.java:1)\r\u0001 ünï ☃ \uD83D\uDE00")
                .build();
    }

    @Test
    void jsonRoundTripThroughAFile() throws Exception {
        History h = new History();
        Op full = ok(1, "a", 0, 100)
                .releaseNanos(at(90))
                .lostNanos(at(95))
                .actNanos(at(80))
                .wrote(true)
                .fencingToken(42)
                .build();
        // Added in time order, so reading back (file order) gives equal lists.
        h.add(full);
        h.add(new NemesisEvent(at(10), "kill", 2, "SIGKILL \"node 2\"\nnext line"));
        h.add(busy(2, "a", 20).failure("NOT_ENOUGH_NODES").build());
        h.add(nasty());
        h.add(new NemesisEvent(at(50), "heal", NemesisEvent.ALL_NODES, null));
        Path file = dir.resolve("history.jsonl");
        h.writeJsonLines(file);

        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(5, lines.size(), "one line per record, newlines escaped: " + lines);
        assertTrue(lines.get(0).startsWith("{\"type\":\"op\""), lines.get(0));
        assertTrue(lines.get(1).startsWith("{\"type\":\"nemesis\""), lines.get(1));

        History back = History.readJsonLines(file);
        assertEquals(h.ops(), back.ops());
        assertEquals(h.events(), back.events());
        assertEquals("SIGKILL \"node 2\"\nnext line", back.events().get(0).detail());
    }

    @Test
    void fileIsOrderedByTimeWhateverTheInsertionOrder() throws Exception {
        History h = new History();
        h.add(ok(1, "a", 300, 400).build()); // invoked at 298
        h.add(new NemesisEvent(at(200), "pause", 1, "SIGSTOP"));
        h.add(ok(2, "a", 100, 200).build()); // invoked at 98
        h.add(new NemesisEvent(at(0), "latency", 3, "+50ms"));
        Path file = dir.resolve("h.jsonl");
        h.writeJsonLines(file);
        List<String> lines = Files.readAllLines(file);
        assertTrue(lines.get(0).contains("\"latency\""), lines.toString());
        assertTrue(lines.get(1).contains("\"client\":2"), lines.toString());
        assertTrue(lines.get(2).contains("\"pause\""), lines.toString());
        assertTrue(lines.get(3).contains("\"client\":1"), lines.toString());
    }

    @Test
    void opJsonRoundTripAndSentinelsAsNull() {
        Op op = nasty();
        String json = op.toJson();
        assertFalse(json.contains("\n"));
        assertTrue(json.contains("\"deadlineNanos\":null"), json);
        assertTrue(json.contains("\\u0001"), json);
        assertEquals(op, Op.fromJson(json));
        // Extreme values survive too.
        Op extreme = ok(Integer.MIN_VALUE, "", 0, 1)
                .invokeNanos(Long.MIN_VALUE + 1)
                .completeNanos(Long.MAX_VALUE)
                .fencingToken(Long.MAX_VALUE)
                .build();
        assertEquals(extreme, Op.fromJson(extreme.toJson()));
    }

    @Test
    void lockFamilyMembersRoundTripAndArePlainLockDefaultsWhenAbsent() {
        Op multi = ok(3, "[a, b\"]", 0, 100)
                .kind(Op.Kind.MULTI)
                .resources(List.of("a", "b\""))
                .queuedNanos(at(-2))
                .roundNanos(at(-1))
                .build();
        String json = multi.toJson();
        String family = ",\"kind\":\"MULTI\",\"resources\":[\"a\",\"b\\\"\"],\"queuedNanos\":"
                + at(-2)
                + ",\"roundNanos\":"
                + at(-1)
                + "}";
        assertTrue(json.endsWith(family), json);
        assertEquals(multi, Op.fromJson(json));
        assertEquals(List.of("a", "b\""), multi.resourcesHeld());

        // A plain lock's op writes none of them, so its line is what it always was...
        Op plain = ok(1, "a", 0, 100).build();
        String line = plain.toJson();
        assertFalse(line.contains("kind") || line.contains("resources") || line.contains("queued"));
        assertEquals(List.of("a"), plain.resourcesHeld());
        // ...and a line written before they existed reads back with their defaults.
        Op old = Op.fromJson("{\"type\":\"op\",\"client\":1,\"lock\":\"a\",\"invokeNanos\":1,\"completeNanos\":2,"
                + "\"outcome\":\"OK\",\"failure\":null,\"token\":\"t\",\"deadlineNanos\":9,"
                + "\"releaseNanos\":null,\"lostNanos\":null,\"actNanos\":null,\"wrote\":false,"
                + "\"fencingToken\":null}");
        assertEquals(Op.Kind.LOCK, old.kind());
        assertEquals(List.of(), old.resources());
        assertEquals(Op.NONE, old.queuedNanos());
        assertEquals(Op.NONE, old.roundNanos());
        long none = Op.NONE;
        assertEquals(new Op(1, "a", 1, 2, Op.Outcome.OK, null, "t", 9, none, none, none, false, none), old);

        String good = ok(1, "a", 0, 100).kind(Op.Kind.READ).build().toJson();
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("\"READ\"", "\"BOGUS\"")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("}", ",\"resources\":[\"a\",1]}")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("}", ",\"resources\":null}")));
    }

    @Test
    void fromJsonAcceptsWhitespaceAndEscapesItDoesNotWrite() {
        NemesisEvent e = NemesisEvent.fromJson(" { \"atNanos\" : 5 , \"kind\":\"clock-jump\", \"node\":-1,"
                + " \"detail\":\"\\/\\u00e9\\ud83d\\ude00\" } ");
        assertEquals(new NemesisEvent(5, "clock-jump", -1, "/é\uD83D\uDE00"), e);
    }

    @Test
    void fromJsonRejectsMalformedInput() {
        String good = nasty().toJson();
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good + "x"));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("\"wrote\"", "\"w\"")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("\"op\"", "\"nemesis\"")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("\"client\":7", "\"client\":7.5")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson(good.replace("\"UNKNOWN\"", "\"MAYBE\"")));
        assertThrows(IllegalArgumentException.class, () -> Op.fromJson("{\"client\":1"));
        assertThrows(IllegalArgumentException.class, () -> NemesisEvent.fromJson("{}"));
    }

    @Test
    void readReportsTheBadLine() throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, nasty().toJson() + "\n\n{\"type\":\"other\"}\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> History.readJsonLines(file));
        assertTrue(e.getMessage().contains(":3:"), e.getMessage());
    }

    @Test
    void summaryCountsAndP99() {
        History h = new History();
        // 100 OK ops with latencies 1..100 ms: p99 is 99 ms, to three significant digits.
        for (int i = 1; i <= 100; i++) {
            h.add(Op.builder()
                    .client(i)
                    .lock("a")
                    .invokeNanos(at(i * 1000L))
                    .completeNanos(at(i * 1000L) + i * MS)
                    .outcome(Op.Outcome.OK)
                    .deadlineNanos(at(i * 1000L + 500))
                    .build());
        }
        h.add(busy(1, "a", 5).build());
        h.add(busy(2, "a", 6).build());
        h.add(nasty());
        List<CheckResult> results = List.of(
                CheckResult.valid("x", "fine"),
                CheckResult.invalid("y", List.of("v1", "v2"), "bad"),
                CheckResult.unknown("z", "dunno"));
        History.Summary s = h.summarize(results);
        assertEquals(99.0, s.p99AcquireMs(), 0.1);
        assertEquals(new History.Summary(103, 100, 2, 1, 2, s.p99AcquireMs()), s);
        String line = "ops=103 acquired=100 failed=2 unknown=1 violations=2 p99AcquireMs=99.0";
        assertTrue(s.toString().startsWith(line), s.toString());
        assertEquals(
                "ops=0 acquired=0 failed=0 unknown=0 violations=0 p99AcquireMs=n/a",
                new History().summarize(List.of()).toString());
    }

    @Test
    void concurrentAppendsAreAllKept() throws Exception {
        History h = new History();
        int threads = 8;
        int perThread = 1000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int client = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    h.add(busy(client, "a", i).build());
                    if (i % 100 == 0) {
                        h.add(new NemesisEvent(i, "latency", client, null));
                    }
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(threads * perThread, h.ops().size());
        assertEquals(threads * 10, h.events().size());
    }

    @Test
    void selectKeepsMatchingOpsAndEveryEvent() {
        History h = new History();
        h.add(ok(1, "a", 0, 100).kind(Op.Kind.READ).build());
        h.add(new NemesisEvent(at(10), "kill", 2, null));
        h.add(ok(2, "a", 100, 200).kind(Op.Kind.WRITE).build());
        History readers = h.select(op -> op.kind() == Op.Kind.READ);
        assertEquals(List.of(h.ops().get(0)), readers.ops());
        assertEquals(h.events(), readers.events());
        assertEquals(2, h.ops().size(), "the original is left alone");
    }

    @Test
    void windowSemantics() {
        Op op = ok(1, "a", 0, 100).build();
        assertEquals(at(0), op.windowStart());
        assertEquals(at(100), op.windowEnd());
        assertEquals(
                at(60),
                op.toBuilder().releaseNanos(at(60)).lostNanos(at(70)).build().windowEnd());
        assertEquals(
                at(70),
                op.toBuilder().releaseNanos(at(80)).lostNanos(at(70)).build().windowEnd());
        Op failed = busy(1, "a", 10).deadlineNanos(at(100)).build();
        assertTrue(failed.windowEmpty());
        assertThrows(IllegalStateException.class, () -> Op.builder().lock("a").build());
        assertThrows(
                IllegalArgumentException.class,
                () -> Op.builder().lock("a").invokeNanos(10).completeNanos(9).build());
    }

    @Test
    void checkResultInvariants() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new CheckResult("x", CheckResult.Validity.VALID, List.of("v"), "s"));
        assertThrows(IllegalArgumentException.class, () -> CheckResult.invalid("x", List.of(), "s"));
    }
}
