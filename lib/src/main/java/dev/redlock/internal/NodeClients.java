package dev.redlock.internal;

import dev.redlock.RedlockConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds and runs a client's node connections: plain-TCP nodes share one non-blocking I/O loop; TLS nodes and
 * user-built Jedis clients each get a {@link JedisNodeClient} with its own I/O thread.
 */
public final class NodeClients implements AutoCloseable {

    private final List<NodeClient> nodes;
    private final NioLoop loop;

    public NodeClients(RedlockConfig config, String threadPrefix, Quarantine quarantine) {
        long tickMillis = Math.max(1, config.perNodeTimeout().toMillis() / 4);
        this.loop = new NioLoop(threadPrefix + "io", tickMillis);
        List<NodeClient> list = new ArrayList<>();
        for (NodeSpec spec : config.nodeSpecs()) {
            if (spec.client() == null && !spec.ssl()) {
                list.add(new NioNodeClient(spec, config, loop, quarantine));
            } else {
                list.add(new JedisNodeClient(spec, config, threadPrefix + "node-" + spec.name(), quarantine));
            }
        }
        this.nodes = List.copyOf(list);
    }

    /** Starts the I/O threads; nodes connect in the background. */
    public void start() {
        loop.start();
        for (NodeClient node : nodes) {
            if (node instanceof NioNodeClient) {
                ((NioNodeClient) node).start();
            } else {
                ((JedisNodeClient) node).start();
            }
        }
    }

    public List<NodeClient> nodes() {
        return nodes;
    }

    /** Stops the shared I/O loop; call after every node was closed (the engine closes them). */
    @Override
    public void close() {
        loop.stop(5_000);
    }
}
