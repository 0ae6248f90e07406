/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.engine;

import dev.redlock.RedlockConfig;
import dev.redlock.Ticker;
import dev.redlock.internal.node.NodeClient;
import java.util.List;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A part of the engine (a kind of round, or the retry loop): the engine's nodes and the settings its rounds read. */
abstract class EnginePart {

    // The engine's logger name, which users' logging settings already address.
    static final Logger LOG = LoggerFactory.getLogger(QuorumEngine.class);

    final QuorumEngine engine;
    final RedlockConfig config;
    final List<? extends NodeClient> nodes;
    final List<String> names;
    /** Which nodes each lock uses; a round over one lock's nodes goes to {@code placement.of(key)}. */
    final Placement placement;

    final Ticker ticker;
    final long perNodeTimeoutNanos;
    final long minValidityNanos;
    /** Null when release notifications are off. */
    final WaitRoom waitRoom;
    /** Tokens and jitter: seeded in a simulation, so that one seed replays. */
    final RandomGenerator random;

    EnginePart(QuorumEngine engine) {
        this.engine = engine;
        this.config = engine.config;
        this.nodes = engine.nodes;
        this.names = engine.names;
        this.placement = engine.placement;
        this.ticker = engine.ticker;
        this.perNodeTimeoutNanos = engine.perNodeTimeoutNanos;
        this.minValidityNanos = engine.minValidityNanos;
        this.waitRoom = engine.waitRoom;
        this.random = engine.random;
    }
}
