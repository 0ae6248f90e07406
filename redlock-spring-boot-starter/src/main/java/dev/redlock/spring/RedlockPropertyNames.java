/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import dev.redlock.RedlockConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code redlock.*} property behind each setting of {@link RedlockConfig.Builder}, what each property allows, and
 * what to do about a value that cannot work. Used by {@link RedlockPropertyException} and the failure analyzer.
 */
final class RedlockPropertyNames {

    /** The forms a property's value takes. */
    enum Form {
        DURATION(
                "a duration with a unit (ns, us, ms, s, m, h, d), such as 500ms, 30s or 5m, or ISO-8601 such as PT30S"),
        NUMBER("a number"),
        WHOLE_NUMBER("a whole number"),
        BOOLEAN("true or false"),
        SIZE("a size with a unit (B, KB, MB), such as 64KB"),
        TEXT("text"),
        NODES("node URIs, redis://[user:password@]host[:port][/db], or rediss://... for TLS (percent-encode reserved"
                + " characters of the user and password: %40 for '@', %2F for '/'), or"
                + " redis-sentinel://sentinel1[:26379],sentinel2/masterName for a Sentinel-managed master; each an"
                + " independent master, each server once; an odd number, at least 3; or one"
                + " redis-cluster://seed1:7000,seed2:7000/ for a Redis Cluster as the whole quorum"),
        NODE_NAMES("names of configured nodes as host:port, as outcomes and logs show them (not URIs)"),
        FILE("the path of a readable file"),
        BUNDLE("the name of an SSL bundle defined under spring.ssl.bundle.jks.<name> or spring.ssl.bundle.pem.<name>");

        final String text;

        Form(String text) {
            this.text = text;
        }
    }

    /** A property: its form and, when it has one, its range and default. */
    record Property(String name, Form form, String range) {}

    /** A library field at the start of a message: {@code "perNodeTimeout: "}, {@code "nodes[2]: "}. */
    record Field(String name, String property, int end) {}

    /** A message starts with the field it is about: "perNodeTimeout: ...", "nodes[2]: ...". */
    private static final Pattern FIELD = Pattern.compile("^([a-z][A-Za-z]*)((?:\\[\\d+])?): ");

    /** A field named in a message's text: "below leaseTime (30 ms)", "at nodes[0] and nodes[1]". */
    private static final Pattern WORD = Pattern.compile("\\b([a-z][A-Za-z]*)\\b(\\[\\d+])?");

    /** Library field to property. */
    private static final Map<String, Property> FIELDS = new LinkedHashMap<>();

    /** Property name to property, including those that are no library field. */
    private static final Map<String, Property> PROPERTIES = new LinkedHashMap<>();

    static {
        field("nodes", Form.NODES, null);
        field(
                "perNodeTimeout",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_PER_NODE_TIMEOUT) + ", below redlock.lease-time; default "
                        + spring(RedlockConfig.DEFAULT_PER_NODE_TIMEOUT));
        field(
                "connectTimeout",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_CONNECT_TIMEOUT) + "; default "
                        + spring(RedlockConfig.DEFAULT_CONNECT_TIMEOUT));
        field(
                "leaseTime",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_LEASE_TIME) + ", long enough to leave validity after the"
                        + " drift (lease time x redlock.drift-factor + 2ms) and one redlock.per-node-timeout; default "
                        + spring(RedlockConfig.DEFAULT_LEASE_TIME));
        field("driftFactor", Form.NUMBER, "in [0, 0.5); default " + RedlockConfig.DEFAULT_DRIFT_FACTOR);
        field("minValidity", Form.DURATION, "from 0 to below redlock.lease-time; default 0");
        field("waitBudget", Form.DURATION, "0 or more; default " + spring(RedlockConfig.DEFAULT_WAIT_BUDGET));
        field(
                "retryDelay",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_RETRY_DELAY) + "; default "
                        + spring(RedlockConfig.DEFAULT_RETRY_DELAY));
        field("retryJitter", Form.NUMBER, "in [0, 1]; default " + RedlockConfig.DEFAULT_RETRY_JITTER);
        field(
                "circuitOpenDuration",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_CIRCUIT_OPEN_DURATION) + "; default "
                        + spring(RedlockConfig.DEFAULT_CIRCUIT_OPEN_DURATION));
        field(
                "keyPrefix",
                Form.TEXT,
                "valid Unicode of at most " + RedlockConfig.MAX_KEY_PREFIX_BYTES + " UTF-8 bytes; default "
                        + RedlockConfig.DEFAULT_KEY_PREFIX);
        field(
                "clientName",
                Form.TEXT,
                "1 to " + RedlockConfig.MAX_CLIENT_NAME_LENGTH
                        + " characters, no control characters; default spring.application.name, else the main class");
        field("maxHoldTime", Form.DURATION, "0 (no cap) or more; default 0");
        field("maxFailedExtensions", Form.WHOLE_NUMBER, "0 (no cap) or more; default 0");
        field("restartQuarantine", Form.BOOLEAN, "default true");
        field("trustPersistentNodes", Form.BOOLEAN, "default false");
        field(
                "identityCheckInterval",
                Form.DURATION,
                "from 1ms to " + spring(RedlockConfig.MAX_IDENTITY_CHECK_INTERVAL) + "; default "
                        + spring(RedlockConfig.DEFAULT_IDENTITY_CHECK_INTERVAL));
        field(
                "maxReplyBytes",
                Form.SIZE,
                "from " + size(RedlockConfig.MIN_MAX_REPLY_BYTES) + " to " + size(RedlockConfig.MAX_MAX_REPLY_BYTES)
                        + "; default " + size(RedlockConfig.DEFAULT_MAX_REPLY_BYTES));
        field("releaseNotifications", Form.BOOLEAN, "default true");
        field("nodesPerLock", Form.WHOLE_NUMBER, "0 (every node) or 3 to 99, at most the node count; default 0");
        field("checkTopology", Form.BOOLEAN, "default true");
        field("strictTopology", Form.BOOLEAN, "default false");
        field("unverifiedIdentity", Form.NODE_NAMES, null);
        field("tlsTrustStore", "redlock.tls.trust-store", Form.FILE, "PKCS#12, JKS or PEM certificates");
        field(
                "tlsKeyStore",
                "redlock.tls.key-store",
                Form.FILE,
                "PKCS#12 or JKS with this client's key and certificate");
        field("tlsVerifyHostname", "redlock.tls.verify-hostname", Form.BOOLEAN, "default true");
        field(
                "sslContext",
                "redlock.tls.bundle",
                Form.BUNDLE,
                "either it or redlock.tls.trust-store / key-store, not both");
        property("redlock.enabled", Form.BOOLEAN, "default true");
        property("redlock.health.topology-check-interval", Form.DURATION, "0 (off) or more; default 5m");
        property("redlock.integration.enabled", Form.BOOLEAN, "default true");
        property(
                "redlock.integration.lease-time",
                Form.DURATION,
                "long enough to leave validity after the drift and one redlock.per-node-timeout; default"
                        + " redlock.lease-time");
        property("redlock.tls.trust-store-password", Form.TEXT, null);
        property("redlock.tls.key-store-password", Form.TEXT, null);
    }

    private RedlockPropertyNames() {}

    private static void field(String field, Form form, String range) {
        field(field, "redlock." + field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT), form, range);
    }

    private static void field(String field, String property, Form form, String range) {
        Property p = new Property(property, form, range);
        FIELDS.put(field, p);
        PROPERTIES.put(property, p);
    }

    private static void property(String property, Form form, String range) {
        PROPERTIES.put(property, new Property(property, form, range));
    }

    /**
     * The known library field that starts {@code message}, with its property (and index, {@code redlock.nodes[2]}).
     *
     * @return the field, or null when the message starts with no field that has a property
     */
    static Field field(String message) {
        Matcher m = FIELD.matcher(message);
        if (!m.find()) {
            return null;
        }
        Property p = FIELDS.get(m.group(1));
        return p == null ? null : new Field(m.group(1), p.name() + m.group(2), m.end());
    }

    /** {@code text} with each library field it names replaced by its property; {@code overrides} win. */
    static String translate(String text, Map<String, String> overrides) {
        Matcher m = WORD.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String word = m.group(1);
            String index = m.group(2) == null ? "" : m.group(2);
            String replacement = m.group();
            if (overrides.containsKey(word)) {
                replacement = overrides.get(word) + index;
            } else if (FIELDS.containsKey(word) && (!word.equals(word.toLowerCase(Locale.ROOT)) || !index.isEmpty())) {
                // camelCase fields, and "nodes" only with an index: plain words such as "nodes" stay words.
                replacement = FIELDS.get(word).name() + index;
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The property without an index: {@code redlock.nodes[2]} is {@code redlock.nodes}. */
    static String withoutIndex(String property) {
        int bracket = property.indexOf('[');
        return bracket < 0 ? property : property.substring(0, bracket);
    }

    /**
     * What {@code property} allows: its form, range and default.
     *
     * @return the allowed values, or null for a property this table does not know
     */
    static String allowed(String property) {
        Property p = PROPERTIES.get(withoutIndex(property));
        if (p == null) {
            return null;
        }
        return p.range() == null ? p.form().text : p.form().text + "; " + p.range();
    }

    /**
     * The form of {@code property}'s value.
     *
     * @return the form, or null for a property this table does not know
     */
    static Form form(String property) {
        Property p = PROPERTIES.get(withoutIndex(property));
        return p == null ? null : p.form();
    }

    /** Whether {@code property}'s value may carry a secret and must never be shown: node URIs and passwords. */
    static boolean secret(String property) {
        String base = withoutIndex(property);
        return base.equals("redlock.nodes") || base.contains("password");
    }

    /** What to change, for a {@code problem} with {@code property}. */
    static String action(String property, String problem) {
        String base = withoutIndex(property);
        switch (base) {
            case "redlock.nodes":
                if (problem.contains("at least 1 node")) {
                    return "Set redlock.nodes to the URIs of your Redis masters, for example redlock.nodes="
                            + "redis://redis-1:6379,redis://redis-2:6379,redis://redis-3:6379 (in YAML, a list under"
                            + " redlock.nodes).";
                }
                if (problem.contains("duplicate")) {
                    return "Remove the duplicate from redlock.nodes: every entry must be a distinct master (two"
                            + " databases of one server are one node).";
                }
                return "Correct " + property + ": the form is redis://[user:password@]host[:port][/db], or"
                        + " rediss://... for TLS; percent-encode reserved characters of the user and password (%40"
                        + " for '@', %2F for '/').";
            case "redlock.per-node-timeout":
                if (problem.contains("below redlock.lease-time")) {
                    return "Make redlock.per-node-timeout (default 50ms) smaller than redlock.lease-time: lower it, or"
                            + " raise redlock.lease-time. Keep it much smaller than the lease: every round may wait"
                            + " that long, and it is taken from each lease's validity.";
                }
                break;
            case "redlock.min-validity":
                if (problem.contains("below redlock.lease-time")) {
                    return "Lower redlock.min-validity below redlock.lease-time, or raise redlock.lease-time.";
                }
                break;
            case "redlock.lease-time":
                if (problem.contains("can never yield a lease")) {
                    return "Raise redlock.lease-time, or lower redlock.per-node-timeout, redlock.drift-factor or"
                            + " redlock.min-validity.";
                }
                break;
            case "redlock.integration.lease-time":
                if (problem.contains("can never yield a lease")) {
                    return "Raise redlock.integration.lease-time, or remove it to use redlock.lease-time; or lower"
                            + " redlock.per-node-timeout.";
                }
                break;
            case "redlock.unverified-identity":
                return "List in redlock.unverified-identity only configured nodes, by name (host:port), never by URI.";
            case "redlock.tls.bundle":
                if (!problem.contains("not both")) {
                    return "Define the SSL bundle that redlock.tls.bundle names under spring.ssl.bundle.jks.<name> or"
                            + " spring.ssl.bundle.pem.<name>, or correct redlock.tls.bundle.";
                }
                return "Give either redlock.tls.bundle, naming a bundle defined under spring.ssl.bundle.jks.* or"
                        + " spring.ssl.bundle.pem.*, or redlock.tls.trust-store / redlock.tls.key-store, not both.";
            default:
                break;
        }
        Property p = PROPERTIES.get(base);
        String range = p == null ? null : p.range();
        return "Change " + property + " in the application's configuration"
                + (range == null ? "." : ": " + range + ".");
    }

    /** A duration as a Spring property value, in its largest whole unit: {@code 7d}, {@code 1m}, {@code 50ms}. */
    static String spring(Duration d) {
        if (d.isZero()) {
            return "0";
        }
        long nanos = d.toNanos();
        long[] units = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        String[] names = {"d", "h", "m", "s", "ms", "us"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return nanos / units[i] + names[i];
            }
        }
        return nanos + "ns";
    }

    /** A byte count as a Spring size: {@code 64KB}, {@code 16MB}, or bytes. */
    private static String size(int bytes) {
        if (bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + "MB";
        }
        if (bytes % 1024 == 0) {
            return bytes / 1024 + "KB";
        }
        return bytes + "B";
    }
}
