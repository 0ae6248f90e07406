package dev.redlock.chaos.history;

import java.util.Map;
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
    StringBuilder out = new StringBuilder(96).append('{');
    Json.appendKey(out, "type");
    Json.appendString(out, "nemesis");
    Json.appendKey(out, "atNanos");
    out.append(atNanos);
    Json.appendKey(out, "kind");
    Json.appendString(out, kind);
    Json.appendKey(out, "node");
    out.append(node);
    Json.appendKey(out, "detail");
    Json.appendString(out, detail);
    return out.append('}').toString();
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
    Map<String, Object> o = Json.parseObject(json);
    Json.checkShape(o, "nemesis", "atNanos", "kind", "node", "detail");
    Object at = o.get("atNanos");
    if (!(at instanceof Long)) {
      throw new IllegalArgumentException("\"atNanos\" must be a number: " + json);
    }
    String kind = Json.getString(o, "kind");
    if (kind == null) {
      throw new IllegalArgumentException("\"kind\" is null: " + json);
    }
    return new NemesisEvent(
        (Long) at, kind, Json.getInt(o, "node"), Json.getString(o, "detail"));
  }
}
