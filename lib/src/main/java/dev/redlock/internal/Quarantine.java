package dev.redlock.internal;

import dev.redlock.RedlockConfig;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restart quarantine, Redlock's "delayed restarts" made automatic. A node that restarted without persistence has
 * forgotten the keys it granted, so for as long as a lease granted before the restart could still be valid (the
 * longest TTL in use) its votes must not count. Each node's boot time is learned from {@code INFO} on every new
 * connection and every {@link RedlockConfig#identityCheckInterval()}; a node up for less than the longest TTL is
 * quarantined: its grants are reported as {@link dev.redlock.NodeStatus#QUARANTINED} and do not count toward any
 * quorum, which stays {@code N/2 + 1} of the configured N.
 */
public final class Quarantine {

    private static final Logger LOG = LoggerFactory.getLogger(Quarantine.class);

    private final boolean enabled;
    private final boolean trustPersistent;
    /** The longest TTL this client has used, in milliseconds; at least the configured lease time. */
    private final AtomicLong maxTtlMillis;

    public Quarantine(RedlockConfig config) {
        this.enabled = config.restartQuarantine();
        this.trustPersistent = config.trustPersistentNodes();
        this.maxTtlMillis = new AtomicLong(config.leaseTime().toMillis());
    }

    /** Records a TTL about to be used, so quarantines last at least that long. */
    public void observeTtl(long ttlMillis) {
        maxTtlMillis.accumulateAndGet(ttlMillis, Math::max);
    }

    long maxTtlMillis() {
        return maxTtlMillis.get();
    }

    boolean trustPersistent() {
        return trustPersistent;
    }

    /** What a node said about itself, and when. */
    static final class Identity {
        final String node;
        volatile String runId;
        /** The node's start, on {@link System#nanoTime()}; {@link Long#MIN_VALUE} until first learned. */
        volatile long bootNanos = Long.MIN_VALUE;
        volatile boolean persistent;
        volatile long checkedAtNanos = System.nanoTime();

        Identity(String node) {
            this.node = node;
        }
    }

    /** Updates a node's identity from an {@code INFO} reply (and, when known, whether it fsyncs every write). */
    void learn(Identity id, String info, Boolean fsyncAlways) {
        String runId = field(info, "run_id");
        String uptime = field(info, "uptime_in_seconds");
        String aof = field(info, "aof_enabled");
        long now = System.nanoTime();
        if (runId != null && id.runId != null && !runId.equals(id.runId)) {
            LOG.warn("node {} restarted (run_id {} -> {}){}", id.node, id.runId, runId,
                    enabled ? "; its votes do not count until it has been up " + maxTtlMillis() + " ms" : "");
        }
        if (runId != null) {
            id.runId = runId;
        }
        if (uptime != null) {
            // Whole seconds, rounded down: take the latest boot time the reply allows, so that a quarantine can
            // only last longer than needed, never end too early.
            id.bootNanos = now - TimeUnit.SECONDS.toNanos(Long.parseLong(uptime.trim()));
        }
        if (fsyncAlways != null) {
            id.persistent = "1".equals(aof == null ? null : aof.trim()) && fsyncAlways;
        }
        id.checkedAtNanos = now;
    }

    /** Whether a node's votes must not count now. */
    boolean quarantined(Identity id) {
        if (!enabled || (trustPersistent && id.persistent)) {
            return false;
        }
        long boot = id.bootNanos;
        return boot != Long.MIN_VALUE
                && System.nanoTime() - boot < TimeUnit.MILLISECONDS.toNanos(maxTtlMillis.get());
    }

    private static String field(String info, String name) {
        String prefix = name + ":";
        int at = info.indexOf("\n" + prefix);
        int start = at >= 0 ? at + 1 + prefix.length() : info.startsWith(prefix) ? prefix.length() : -1;
        if (start < 0) {
            return null;
        }
        int end = info.indexOf('\n', start);
        return (end < 0 ? info.substring(start) : info.substring(start, end)).trim();
    }
}
