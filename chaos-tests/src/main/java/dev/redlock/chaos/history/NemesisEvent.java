/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import java.util.Objects;

/**
 * One fault the nemesis injected (or healed) during a chaos run, recorded in the {@link History}
 * so a violation can be lined up against what the cluster was going through at the time.
 *
 * @param atNanos when the nemesis acted, on the same {@link System#nanoTime()} clock as the ops
 * @param kind what it did, e.g. {@code "kill"}, {@code "pause"}, {@code "resume"}, {@code
 *     "restart"}, {@code "latency"}, {@code "freeze"}, {@code "heal"}, {@code "clock-jump"}
 * @param node the node it acted on, or {@link #ALL_NODES}
 * @param detail free-form detail (e.g. the latency added); may be null
 */
public record NemesisEvent(long atNanos, String kind, int node, String detail) {

    /** The {@link #node()} value for an event that concerns every node. */
    public static final int ALL_NODES = -1;

    /**
     * Checks that the event has a kind.
     *
     * @param atNanos when the nemesis acted
     * @param kind what it did
     * @param node the node, or {@link #ALL_NODES}
     * @param detail free-form detail, or null
     * @throws NullPointerException if {@code kind} is null
     */
    public NemesisEvent {
        Objects.requireNonNull(kind, "kind");
    }

    /**
     * Encodes this event as one line of JSON (no line break), with {@code "type":"nemesis"} first.
     *
     * @return the JSON text
     */
    public String toJson() {
        return JsonLines.write(JsonLines.EventLine.of(this));
    }

    /**
     * Parses the format written by {@link #toJson()}. The {@code "type"} member may be absent but,
     * if present, must be {@code "nemesis"}; every other member is required and no others are
     * allowed.
     *
     * @param json one JSON object
     * @return the event it describes
     * @throws IllegalArgumentException if the text is not in that format
     */
    public static NemesisEvent fromJson(String json) {
        return JsonLines.read(json, JsonLines.EventLine.class).toEvent();
    }
}
