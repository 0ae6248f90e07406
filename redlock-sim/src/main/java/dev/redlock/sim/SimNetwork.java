/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

/**
 * The simulated network between clients and servers: per-message delay, messages lost (which silences the connection
 * they travelled on, as a dead TCP path does), partitions per client-server link, and what a stopped server had already
 * read when a client reset its connection. Everything is drawn from the world's random source.
 */
public final class SimNetwork {

    private final SimWorld world;
    private final boolean[][] cut;
    /** Typical one-way delay, in world nanoseconds. */
    long baseDelayNanos = 150_000;
    /** Probability that a message is slow, and how slow it may be. */
    double slowChance;

    long slowMaxNanos;
    /** Probability that a request is lost on the way to the server (its connection then goes silent). */
    double requestLoss;
    /** Probability that a reply is lost after the server applied the command (its connection then goes silent). */
    double replyLoss;
    /** Probability that a request a stopped server had received is still run after the client reset the link. */
    double keepOnReset;

    public SimNetwork(SimWorld world, int clients, int servers) {
        this.world = world;
        this.cut = new boolean[clients][servers];
    }

    /** One message's delay. */
    public long delay() {
        long d = baseDelayNanos / 2 + world.random().nextLong(baseDelayNanos + 1);
        if (world.chance(slowChance)) {
            d += world.random().nextLong(Math.max(1, slowMaxNanos));
        }
        return d;
    }

    public boolean isCut(int client, int server) {
        return cut[client][server];
    }

    public void setCut(int client, int server, boolean on) {
        cut[client][server] = on;
    }

    public boolean requestLost() {
        return world.chance(requestLoss);
    }

    public boolean replyLost() {
        return world.chance(replyLoss);
    }

    public boolean keptOnReset() {
        return world.chance(keepOnReset);
    }

    public SimWorld world() {
        return world;
    }
}
