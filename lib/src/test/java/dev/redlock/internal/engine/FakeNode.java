package dev.redlock.internal.engine;

import dev.redlock.NodeStatus;
import dev.redlock.internal.node.NodeClient;
import dev.redlock.internal.node.NodeOp;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A fake of our own node interface (not of Redis): answers synchronously with a scripted status, optionally after
 * advancing a fake ticker, and records every op it was given.
 */
final class FakeNode implements NodeClient {

    final String name;
    final List<NodeOp> received = new CopyOnWriteArrayList<>();
    private final Function<NodeOp, NodeStatus> answer;
    private final Runnable beforeAnswer;

    FakeNode(String name, Function<NodeOp, NodeStatus> answer, Runnable beforeAnswer) {
        this.name = name;
        this.answer = answer;
        this.beforeAnswer = beforeAnswer;
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
            return; // never answers: the op stays in flight
        }
        beforeAnswer.run();
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
