package dev.redlock.internal.node;

import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.internal.script.LuaScript;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One node, served by one I/O thread that owns one connection.
 *
 * <p>Callers never touch the socket: they enqueue ops and the I/O thread drains the queue in batches, writes a whole
 * batch as one pipeline and reads the replies in order. Under load many callers share one write and one read, and
 * per-node FIFO order means a release always reaches the node after the acquire it undoes.
 *
 * <p>A connection on which a read timed out is closed, never reused: its late reply would otherwise be read as the
 * answer to the next command. The socket timeout is the per-node timeout.
 */
public final class JedisNodeClient implements NodeClient {

    private static final Logger LOG = LoggerFactory.getLogger(JedisNodeClient.class);
    private static final int MAX_BATCH = 512;
    private static final long MIN_RECONNECT_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long MAX_RECONNECT_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final NodeSpec spec;
    private final Ticker ticker;
    private final DefaultJedisClientConfig clientConfig;
    private final NodeGuard guard;
    private final long closeGraceNanos;
    private final long joinMillis;

    private final ConcurrentLinkedQueue<NodeOp> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean closing;
    private volatile boolean terminated;
    private volatile long closeDeadlineNanos;

    // Confined to the I/O thread.
    private Connection connection;
    private Pipeline pipeline;
    /** What INFO said about the server on {@link #connection}. */
    private Quarantine.Connection ownIdent;
    /** This client's number for {@link #connection} (0: none yet), and the last number given out. */
    private long connectionId;

    private long connections;
    /** No reconnect before this time ({@link System#nanoTime()}): a dead node must not cost a connect per batch. */
    private long reconnectNotBefore = System.nanoTime();

    private long reconnectDelayNanos;
    private final long maxReconnectDelayNanos;
    private final List<NodeOp> batch = new ArrayList<>();

    public JedisNodeClient(NodeSpec spec, RedlockConfig config, String threadName, Quarantine quarantine) {
        this.spec = spec;
        this.guard = new NodeGuard(spec.name(), config, quarantine);
        this.ticker = config.ticker();
        int timeoutMs =
                (int) Math.min(Integer.MAX_VALUE, config.perNodeTimeout().toMillis());
        // The socket timeout is the per-node timeout: a read that outlasts it drops the connection.
        this.clientConfig = spec.client() != null
                ? null
                : spec.jedisConfig(config.connectTimeout(), config.perNodeTimeout(), config.tls());
        this.maxReconnectDelayNanos =
                Math.min(MAX_RECONNECT_DELAY_NANOS, config.circuitOpenDuration().toNanos());
        this.closeGraceNanos = Math.max(4 * config.perNodeTimeout().toNanos(), TimeUnit.MILLISECONDS.toNanos(200));
        this.joinMillis = TimeUnit.NANOSECONDS.toMillis(closeGraceNanos)
                + config.connectTimeout().toMillis()
                + 2L * timeoutMs
                + 1_000;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        guard.maintenance(this::submit);
    }

    /** Starts the I/O thread, which connects at once so the first round does not pay for the handshake. */
    public void start() {
        thread.start();
    }

    @Override
    public String name() {
        return spec.name();
    }

    /** The node's circuit breaker state, for diagnostics and tests. */
    public CircuitBreaker.State circuitState() {
        return guard.circuitState();
    }

    @Override
    public void submit(NodeOp op) {
        if (closing && op.kind != NodeOp.Kind.RELEASE) {
            // Closing: no new acquire or extension goes out, but releases are still flushed.
            op.complete(NodeStatus.ERROR, new IllegalStateException("the Redlock client is closed"));
            return;
        }
        if (!guard.admit(op)) {
            return;
        }
        queue.add(op);
        if (terminated) {
            failQueued();
        } else if (sleeping.get()) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        try {
            if (spec.client() == null) {
                try {
                    ensurePipeline();
                } catch (RuntimeException e) {
                    guard.failed(e);
                }
            }
            loop();
        } finally {
            discardConnection();
            terminated = true;
            failQueued();
        }
    }

    private void loop() {
        while (true) {
            NodeOp op = queue.poll();
            if (op == null) {
                if (closing) {
                    return;
                }
                sleeping.set(true);
                if (queue.isEmpty() && !closing) {
                    LockSupport.park(this);
                }
                sleeping.set(false);
                continue;
            }
            do {
                batch.add(op);
            } while (batch.size() < MAX_BATCH && (op = queue.poll()) != null);
            try {
                process(batch);
            } catch (Throwable e) {
                // Nothing a node sends may kill its only I/O thread (a hostile reply can make Jedis throw an Error):
                // every op of the batch gets an answer, the connection is dropped, and the thread goes on.
                LOG.error("node {}: unexpected failure while processing a batch", spec.name(), e);
                try {
                    discardConnection();
                } catch (Throwable again) {
                    LOG.debug("node {}: dropping the connection failed too", spec.name(), again);
                }
                for (NodeOp o : batch) {
                    if (!o.answered) {
                        finish(o, NodeStatus.ERROR, e);
                    }
                }
                guard.failed(e);
            }
            batch.clear();
        }
    }

    private void process(List<NodeOp> ops) {
        // Drop what is already too late before connecting (no connect for nothing), and again after it: connecting
        // may take up to the connect timeout.
        int kept = dropLate(ops);
        if (kept == 0) {
            return;
        }
        AbstractPipeline p;
        try {
            p = spec.client() == null ? ensurePipeline() : spec.client().pipelined();
        } catch (RuntimeException e) {
            for (NodeOp op : ops.subList(0, kept)) {
                finish(op, NodeStatus.ERROR, e);
            }
            guard.failed(e);
            return;
        }
        kept = dropLate(ops.subList(0, kept));
        try {
            if (kept > 0) {
                execute(p, ops.subList(0, kept));
            }
        } finally {
            if (spec.client() != null) {
                closeUserPipeline(p);
            }
        }
    }

    /** Answers the ops that must not be sent any more; compacts the rest to the front and returns how many. */
    private int dropLate(List<NodeOp> ops) {
        long now = ticker.nanoTime();
        boolean overdue = closing && System.nanoTime() - closeDeadlineNanos > 0;
        int kept = 0;
        for (int i = 0; i < ops.size(); i++) {
            NodeOp op = ops.get(i);
            if (overdue || (closing && op.kind != NodeOp.Kind.RELEASE)) {
                finish(
                        op,
                        NodeStatus.ERROR,
                        new QuietException.NotSent("not sent: the Redlock client closed before " + "this " + op.kind
                                + " could be sent to " + spec.name()));
            } else if (now - op.sendByNanos > 0) {
                // The caller stopped waiting (or the key expired anyway): a late acquire must not be sent at all.
                finish(
                        op,
                        NodeStatus.TIMEOUT,
                        new QuietException.NotSent(
                                "not sent: " + op.kind + " to " + spec.name() + " was still queued at its deadline"));
            } else {
                ops.set(kept++, op);
            }
        }
        return kept;
    }

    @SuppressWarnings("unchecked")
    private void execute(AbstractPipeline p, List<NodeOp> ops) {
        boolean[] done = new boolean[ops.size()];
        try {
            // A user's client may hand out any pooled connection, to a server that restarted since the last batch:
            // learn who answers in the same pipeline, on the same connection, before any vote of it is judged.
            Quarantine.Connection conn = ownIdent;
            Response<Object> info = null;
            Response<Object> fsync = null;
            if (spec.client() != null) {
                conn = new Quarantine.Connection();
                conn.runId = guard.identity().runId; // the likely server, for encoding; checked against INFO below
                info = p.sendCommand(infoCommand());
                if (guard.quarantine().trustPersistent()) {
                    fsync = p.sendCommand(new CommandArguments(Protocol.Command.CONFIG)
                            .add("GET")
                            .add("appendfsync"));
                }
            }
            long sentAt = ticker.nanoTime();
            // Each batch of a user's client may use another pooled connection; our own connection keeps its number.
            long connection = spec.client() != null || connectionId == 0 ? ++connections : connectionId;
            connectionId = spec.client() != null ? 0 : connection;
            @SuppressWarnings({"unchecked", "rawtypes"}) // Java has no generic array creation
            Response<Object>[] replies = new Response[ops.size()];
            for (int i = 0; i < ops.size(); i++) {
                NodeOp op = ops.get(i);
                op.sentAtNanos = sentAt;
                op.sentOn = connection;
                guard.prepare(op, conn);
                if (op.kind == NodeOp.Kind.RELEASE) {
                    op.tombstone = op.needsTombstone(connection);
                }
                replies[i] = p.sendCommand(command(op, true));
            }
            p.sync();
            if (info != null) {
                conn = new Quarantine.Connection();
                learn(conn, info, fsync);
            }
            List<Integer> noScript = null;
            for (int i = 0; i < ops.size(); i++) {
                NodeOp op = ops.get(i);
                Object reply;
                try {
                    reply = replies[i].get();
                } catch (JedisNoScriptException e) {
                    // The node's script cache was flushed (restart, SCRIPT FLUSH): the op did not run. Resend it as
                    // EVAL, which reloads the script, unless it is an acquire with a command of its key behind it in
                    // this batch, which has run already: sent again, it would run after that one. It fails instead.
                    if (op.isAcquire() && laterForSameKey(ops, i)) {
                        refused(op, e);
                        done[i] = true;
                        continue;
                    }
                    if (noScript == null) {
                        noScript = new ArrayList<>();
                    }
                    noScript.add(i);
                    continue;
                } catch (JedisDataException e) {
                    refused(op, e);
                    done[i] = true;
                    continue;
                }
                // A reply of the wrong shape throws: the connection is out of step and is dropped below.
                answered(op, reply, conn);
                done[i] = true;
            }
            if (noScript != null) {
                LOG.debug("node {}: NOSCRIPT for {} call(s), falling back to EVAL", spec.name(), noScript.size());
                for (int i : noScript) {
                    replies[i] = p.sendCommand(command(ops.get(i), false));
                }
                p.sync();
                for (int i : noScript) {
                    NodeOp op = ops.get(i);
                    Object reply;
                    try {
                        reply = replies[i].get();
                    } catch (JedisDataException e) {
                        refused(op, e);
                        done[i] = true;
                        continue;
                    }
                    answered(op, reply, conn);
                    done[i] = true;
                }
            }
            guard.answered();
        } catch (RuntimeException e) {
            if (spec.client() == null) {
                // Never reuse a connection after a failed read: a late reply would answer the next command.
                discardConnection();
            }
            NodeStatus status = isTimeout(e) ? NodeStatus.TIMEOUT : NodeStatus.ERROR;
            for (int i = 0; i < ops.size(); i++) {
                if (!done[i]) {
                    finish(ops.get(i), status, e);
                }
            }
            guard.failed(e);
        }
    }

    private static boolean laterForSameKey(List<NodeOp> ops, int index) {
        for (int j = index + 1; j < ops.size(); j++) {
            if (ops.get(j).key.equals(ops.get(index).key)) {
                return true;
            }
        }
        return false;
    }

    private CommandArguments infoCommand() {
        CommandArguments c = new CommandArguments(Protocol.Command.INFO);
        // INFO server names the run_id; trusted persistence also needs the persistence section.
        return guard.quarantine().trustPersistent() ? c : c.add("server");
    }

    private static CommandArguments command(NodeOp op, boolean bySha) {
        op.evalFallback = !bySha;
        String[] args = op.arguments();
        CommandArguments c = new CommandArguments(Protocol.Command.valueOf(args[0]));
        // Mark the keys as keys, so a cluster-aware client routes the command to the right slot.
        int keys = Integer.parseInt(args[2]);
        for (int i = 1; i < args.length; i++) {
            if (i >= 3 && i < 3 + keys) {
                c.key(args[i]);
            } else {
                c.add(args[i]);
            }
        }
        return c;
    }

    /** Learns the server's identity from INFO (and persistence from CONFIG GET) replies read on one connection. */
    private void learn(Quarantine.Connection conn, Response<Object> info, Response<Object> fsync) {
        Quarantine q = guard.quarantine();
        String text;
        try {
            Object raw = info.get();
            text = raw instanceof byte[] ? new String((byte[]) raw, StandardCharsets.UTF_8) : String.valueOf(raw);
        } catch (JedisDataException e) {
            q.identityRefused(guard.identity(), e.getMessage());
            return;
        }
        Boolean always = null;
        if (fsync != null) {
            always = false;
            try {
                Object cfg = fsync.get();
                always = cfg instanceof List
                        && ((List<?>) cfg).size() == 2
                        && ((List<?>) cfg).get(1) instanceof byte[]
                        && "always".equals(new String((byte[]) ((List<?>) cfg).get(1), StandardCharsets.UTF_8));
            } catch (JedisDataException e) {
                q.persistenceRefused(guard.identity(), e.getMessage());
            }
        }
        q.learn(guard.identity(), conn, text, always);
    }

    /** The node answered {@code op} with an error reply: answered (the node is up), and the vote is an error. */
    private void refused(NodeOp op, Throwable error) {
        op.answered = true;
        finish(op, NodeStatus.ERROR, error);
    }

    /**
     * The node answered {@code op} with {@code reply}. A reply of the wrong shape throws before anything is settled:
     * the connection is out of step, and the caller drops it.
     */
    private void answered(NodeOp op, Object reply, Quarantine.Connection conn) {
        NodeStatus status = op.statusOf(reply);
        op.answered = true;
        guard.settle(op, status, null, conn);
    }

    private void finish(NodeOp op, NodeStatus status, Throwable error) {
        guard.settle(op, status, error);
    }

    private AbstractPipeline ensurePipeline() {
        if (connection == null || connection.isBroken() || !connection.isConnected()) {
            discardConnection();
            long now = System.nanoTime();
            if (now - reconnectNotBefore < 0) {
                throw new JedisConnectionException("not connected to " + spec.name() + ": next reconnect attempt in "
                        + TimeUnit.NANOSECONDS.toMillis(reconnectNotBefore - now) + " ms");
            }
            try {
                connection = new Connection(new HostAndPort(spec.host(), spec.port()), clientConfig);
            } catch (RuntimeException e) {
                // Back off exponentially, 10 ms doubling up to 500 ms (or the breaker's open time, if shorter);
                // a success resets it.
                reconnectDelayNanos =
                        Math.min(Math.max(2 * reconnectDelayNanos, MIN_RECONNECT_DELAY_NANOS), maxReconnectDelayNanos);
                reconnectNotBefore = System.nanoTime() + reconnectDelayNanos;
                throw e;
            }
            reconnectDelayNanos = 0;
            pipeline = new Pipeline(connection, false);
            try {
                handshake(); // load the scripts and learn who is behind the new connection before any op
            } catch (RuntimeException e) {
                discardConnection();
                throw e;
            }
        }
        return pipeline;
    }

    /** On a new connection: loads every script, then reads the server's identity, pipelined in one round trip. */
    @SuppressWarnings("unchecked")
    private void handshake() {
        Pipeline p = pipeline;
        List<Response<Object>> loads = new ArrayList<>();
        for (LuaScript script : LuaScript.ALL) {
            loads.add(p.sendCommand(
                    new CommandArguments(Protocol.Command.SCRIPT).add("LOAD").add(script.source())));
        }
        Response<Object> info = p.sendCommand(infoCommand());
        Response<Object> fsync = guard.quarantine().trustPersistent()
                ? p.sendCommand(
                        new CommandArguments(Protocol.Command.CONFIG).add("GET").add("appendfsync"))
                : null;
        p.sync();
        for (Response<Object> load : loads) {
            try {
                load.get();
            } catch (JedisDataException e) {
                // Refused (an ACL): ops answer NOSCRIPT and fall back to EVAL.
                LOG.debug("node {}: SCRIPT LOAD refused: {}", spec.name(), e.getMessage());
            }
        }
        Quarantine.Connection conn = new Quarantine.Connection();
        learn(conn, info, fsync);
        ownIdent = conn;
    }

    private void discardConnection() {
        connectionId = 0;
        Connection c = connection;
        connection = null;
        pipeline = null;
        if (c != null) {
            try {
                // Reset, not close: a stalled server discards what it has not read (a late acquire among it).
                c.forceDisconnect();
            } catch (IOException | RuntimeException e) {
                LOG.debug("node {}: error while dropping a connection", spec.name(), e);
            }
        }
    }

    private void closeUserPipeline(AbstractPipeline p) {
        try {
            p.close();
        } catch (RuntimeException e) {
            LOG.debug("node {}: error while returning a pipeline to the user's client", spec.name(), e);
        }
    }

    private static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private void failQueued() {
        NodeOp op;
        while ((op = queue.poll()) != null) {
            guard.unsent(op);
            op.complete(NodeStatus.ERROR, new IllegalStateException("the Redlock client is closed"));
        }
    }

    /** Stops accepting ops and lets the I/O thread flush what is queued, without waiting for it. */
    @Override
    public void initiateClose() {
        if (closing) {
            return;
        }
        closeDeadlineNanos = System.nanoTime() + closeGraceNanos;
        closing = true;
        LockSupport.unpark(thread);
    }

    @Override
    public void close() {
        initiateClose();
        try {
            thread.join(joinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn(
                    "node {}: I/O thread did not stop within {} ms; it is blocked in a call to the node",
                    spec.name(),
                    joinMillis);
            thread.interrupt();
        }
    }

    /** For tests: how many ops wait for the I/O thread. */
    int queued() {
        return queue.size();
    }

    /** For tests: whether the I/O thread has ended. */
    public boolean isTerminated() {
        return terminated && !thread.isAlive();
    }

    @Override
    public String toString() {
        return "JedisNodeClient{" + spec.name() + ", circuit=" + guard.circuitState() + '}';
    }
}
