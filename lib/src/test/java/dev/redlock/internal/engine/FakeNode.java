/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.NodeStatus;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.NodeOp;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A fake of our own node interface (not of Redis): answers with a scripted status, optionally after advancing a fake
 * ticker, on the submitting thread or on an executor standing for the node's I/O thread; records every op it was
 * given, and holds those the script leaves unanswered (a node that never answers) for the test to answer.
 */
final class FakeNode implements NodeClient {

    final String name;
    final List<NodeOp> received = new CopyOnWriteArrayList<>();
    /** The ops the script left unanswered, in the order they came. */
    final List<NodeOp> held = new CopyOnWriteArrayList<>();

    private final Function<NodeOp, NodeStatus> answer;
    private final Runnable beforeAnswer;
    private final Executor io;

    FakeNode(String name, Function<NodeOp, NodeStatus> answer, Runnable beforeAnswer) {
        this(name, answer, beforeAnswer, Runnable::run);
    }

    FakeNode(String name, Function<NodeOp, NodeStatus> answer, Runnable beforeAnswer, Executor io) {
        this.name = name;
        this.answer = answer;
        this.beforeAnswer = beforeAnswer;
        this.io = io;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void submit(NodeOp op) {
        received.add(op);
        NodeStatus status = answer.apply(op);
        if (status == null) {
            held.add(op); // never answers: the op stays in flight
            return;
        }
        beforeAnswer.run();
        io.execute(() -> answer(op, status));
    }

    /** Answers {@code op} as the node would. */
    void answer(NodeOp op, NodeStatus status) {
        if (op.kind() == NodeOp.Kind.ACQUIRE_FENCED && (status == NodeStatus.GRANTED || status == NodeStatus.TAKEN)) {
            op.read(0, true); // a counter read, as acquire.lua answers it
        }
        op.complete(status, status == NodeStatus.ERROR ? new RuntimeException("fake failure on " + name) : null);
    }

    long count(NodeOp.Kind kind) {
        return received.stream().filter(op -> op.kind() == kind).count();
    }

    @Override
    public void close() {}
}
