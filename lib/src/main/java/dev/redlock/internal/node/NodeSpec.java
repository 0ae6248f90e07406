/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import dev.redlock.NodeTransport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How to reach one node: parsed from a {@code redis://} / {@code rediss://} URI, a {@code redis-sentinel://} URI (a
 * master found through its sentinels, see {@link SentinelWatch}), or a client the user built and manages. Immutable.
 */
public final class NodeSpec {

    static final String URI_FORMAT = "redis://[user:password@]host[:port][/db] or rediss://..., or "
            + "redis-sentinel://[user:password@]sentinel1[:26379],sentinel2.../masterName[/db], or "
            + "redis-cluster://[user:password@]seed1[:6379],seed2.../[?nodes=N]";
    private static final int DEFAULT_PORT = 6379;
    private static final int DEFAULT_SENTINEL_PORT = 26379;
    private static final String SCHEMES =
            "redis, rediss, redis-sentinel, rediss-sentinel, redis-cluster, rediss-cluster";
    /** Sentinel master names: what {@code sentinel monitor} accepts in practice, and nothing a message must hide. */
    private static final java.util.regex.Pattern MASTER_NAME =
            java.util.regex.Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final String name;
    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final boolean ssl;
    private final NodeTransport transport;
    /** For a Sentinel-managed master: the sentinels to ask, each as a plain spec; empty otherwise. */
    private final List<NodeSpec> sentinels;
    /** For a Sentinel-managed master: the name the sentinels monitor it under; null otherwise. */
    private final String masterName;
    /** For a Redis Cluster, or one of its slots as a node: where to find it; null otherwise. */
    private final ClusterPart cluster;

    /**
     * What a Redis Cluster URI says, and for one of the nodes it expands into, which hash slot that node is: the
     * node is whichever master owns the slot, and every key it is sent carries {@link #tag}, a hash tag of that slot.
     */
    static final class ClusterPart {
        /** The seeds to ask for the slots, each as a plain spec, in the order given. */
        final List<NodeSpec> seeds;
        /** How many nodes the cluster counts as; 0: one per master with slots, as found when the client starts. */
        final int nodes;
        /** The slot of this node, or -1 for the cluster as written. */
        final int slot;
        /** The hash tag with its braces, such as {@code {a1}}, that every key of this node starts with; or null. */
        final String tag;

        ClusterPart(List<NodeSpec> seeds, int nodes, int slot, String tag) {
            this.seeds = seeds;
            this.nodes = nodes;
            this.slot = slot;
            this.tag = tag;
        }
    }

    private NodeSpec(
            String name,
            String host,
            int port,
            String user,
            String password,
            int database,
            boolean ssl,
            NodeTransport transport) {
        this(name, host, port, user, password, database, ssl, transport, List.of(), null, null);
    }

    private NodeSpec(
            String name,
            String host,
            int port,
            String user,
            String password,
            int database,
            boolean ssl,
            NodeTransport transport,
            List<NodeSpec> sentinels,
            String masterName,
            ClusterPart cluster) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
        this.ssl = ssl;
        this.transport = transport;
        this.sentinels = sentinels;
        this.masterName = masterName;
        this.cluster = cluster;
    }

    /**
     * Parses a node URI, {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...} for TLS: the port
     * defaults to 6379 and the database to 0, an IPv6 host goes in brackets ({@code redis://[::1]:6379}), and
     * reserved characters in the user or password are percent-encoded ({@code %40} for '@'). {@code field} names the
     * configuration entry in error messages.
     *
     * <p>Messages never show the user info: everything before the last '@' after the scheme is the user info, so a
     * password with a stray '/', '?', '#' or '@' is reported as malformed user info, not echoed as a host or path.
     *
     * @param field the name to report, such as {@code nodes[2]}
     * @param uri the URI
     * @return the node
     * @throws IllegalArgumentException naming the field, what is wrong (scheme, user info, host, port, database,
     *         query or fragment) and the expected format; it has no cause and never contains the user info
     */
    public static NodeSpec parse(String field, String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(field + ": node URI is empty (expected " + URI_FORMAT + ")");
        }
        String s = uri.trim();
        int at = s.lastIndexOf('@');
        int sep = s.indexOf("://");
        if (sep < 0 || (at >= 0 && sep > at)) {
            throw malformed(
                    field,
                    "no scheme: it must start with redis://, rediss://, redis-sentinel:// or redis-cluster:// (allowed"
                            + " schemes: " + SCHEMES + ")");
        }
        String scheme = s.substring(0, sep).toLowerCase(Locale.ROOT);
        boolean sentinel = scheme.equals("redis-sentinel") || scheme.equals("rediss-sentinel");
        boolean cluster = scheme.equals("redis-cluster") || scheme.equals("rediss-cluster");
        if (!scheme.equals("redis") && !scheme.equals("rediss") && !sentinel && !cluster) {
            // Echo only what is shaped like a scheme: anything else could be part of a password.
            String shown = scheme.matches("[a-z][a-z0-9+.-]{0,31}") ? " '" + scheme + "'" : "";
            throw malformed(field, "unsupported scheme" + shown + " (allowed: " + SCHEMES + ")");
        }
        String user = null;
        String password = null;
        boolean hasUserInfo = at >= 0;
        if (hasUserInfo) {
            String info = s.substring(sep + 3, at);
            checkUserInfo(field, info);
            int colon = info.indexOf(':');
            if (colon < 0) {
                // redis://secret@host: the legacy form, a password with the default user.
                password = decode(field, info);
            } else {
                user = colon == 0 ? null : decode(field, info.substring(0, colon));
                password = decode(field, info.substring(colon + 1));
            }
        }
        String rest = s.substring(hasUserInfo ? at + 1 : sep + 3);
        int fragment = rest.indexOf('#');
        if (fragment >= 0) {
            throw malformed(field, "a fragment ('#...') is not supported");
        }
        int query = rest.indexOf('?');
        String queryText = null;
        if (query >= 0 && cluster) {
            queryText = rest.substring(query + 1);
            rest = rest.substring(0, query);
        } else if (query >= 0) {
            throw malformed(field, "a query ('?...') is not supported; set options on the builder instead");
        }
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash);
        if (cluster) {
            return parseCluster(
                    field, scheme.startsWith("rediss"), user, password, hasUserInfo, authority, path, queryText);
        }
        if (sentinel) {
            return parseSentinel(field, scheme.startsWith("rediss"), user, password, hasUserInfo, authority, path);
        }
        String[] hostPort = hostAndPort(field, authority, hasUserInfo, DEFAULT_PORT);
        String host = hostPort[0];
        int port = Integer.parseInt(hostPort[1]);
        int db = parseDatabase(field, path);
        String name = host + ":" + port + (db == 0 ? "" : "/" + db);
        return new NodeSpec(name, host, port, user, password, db, scheme.equals("rediss"), null);
    }

    /**
     * {@code redis-sentinel://[user:password@]s1[:port],s2[:port]/masterName[/db]}: the credentials and database are
     * the master's; the sentinels are asked with the same credentials when they require a password.
     */
    private static NodeSpec parseSentinel(
            String field,
            boolean ssl,
            String user,
            String password,
            boolean hasUserInfo,
            String authority,
            String path) {
        if (authority.isEmpty()) {
            throw malformed(field, "no sentinel address before the master name");
        }
        List<NodeSpec> sentinels = servers(
                field,
                authority,
                hasUserInfo,
                DEFAULT_SENTINEL_PORT,
                "sentinel",
                "s1:26379,s2:26379",
                user,
                password,
                ssl);
        String[] parts = path.isEmpty() ? new String[0] : path.substring(1).split("/", -1);
        if (parts.length == 0 || parts[0].isEmpty()) {
            throw malformed(field, "no master name after the sentinels (write redis-sentinel://s1:26379,s2/mymaster)");
        }
        String master = parts[0];
        if (!MASTER_NAME.matcher(master).matches()) {
            throw malformed(
                    field,
                    "master name of " + master.length() + " characters that are not all allowed (allowed: 1 to 128"
                            + " ASCII letters, digits, '.', '_', ':', '-')");
        }
        if (parts.length > 2) {
            throw malformed(field, "more than a master name and a database after the sentinels");
        }
        int db = parts.length == 2 ? parseDatabase(field, "/" + parts[1]) : 0;
        // The first sentinel tells apart two deployments that monitor a master under the same name.
        String name = master + "(" + sentinels.get(0).name() + ")" + (db == 0 ? "" : "/" + db);
        return new NodeSpec(name, null, 0, user, password, db, ssl, null, List.copyOf(sentinels), master, null);
    }

    /**
     * The comma-separated servers of a Sentinel or Cluster URI ({@code what}: "sentinel", "seed"), each as a plain
     * spec with the URI's credentials and TLS; an empty or repeated entry is refused.
     */
    private static List<NodeSpec> servers(
            String field,
            String authority,
            boolean hasUserInfo,
            int defaultPort,
            String what,
            String example,
            String user,
            String password,
            boolean ssl) {
        List<NodeSpec> servers = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String one : authority.split(",", -1)) {
            if (one.isEmpty()) {
                throw malformed(field, "an empty " + what + " address in the list (write " + example + ")");
            }
            String[] hostPort = hostAndPort(field, one, hasUserInfo, defaultPort);
            String serverName = hostPort[0] + ":" + hostPort[1];
            if (!seen.add(serverName.toLowerCase(Locale.ROOT))) {
                throw malformed(field, what + " " + serverName + " is listed twice");
            }
            servers.add(
                    new NodeSpec(serverName, hostPort[0], Integer.parseInt(hostPort[1]), user, password, 0, ssl, null));
        }
        return List.copyOf(servers);
    }

    /** The most nodes a cluster may count as: beyond this, a lock's quorum costs more than it protects. */
    public static final int MAX_CLUSTER_NODES = 99;

    /**
     * {@code redis-cluster://[user:password@]seed1[:6379],seed2.../[?nodes=N]}: the credentials are the masters'; the
     * database is always 0 (a cluster has no other).
     */
    private static NodeSpec parseCluster(
            String field,
            boolean ssl,
            String user,
            String password,
            boolean hasUserInfo,
            String authority,
            String path,
            String query) {
        if (authority.isEmpty()) {
            throw malformed(field, "no seed address (write redis-cluster://host1:7000,host2:7000/)");
        }
        List<NodeSpec> seeds = servers(
                field, authority, hasUserInfo, DEFAULT_PORT, "seed", "host1:7000,host2:7000", user, password, ssl);
        if (!path.isEmpty() && !path.equals("/")) {
            throw malformed(
                    field,
                    "a path after the seeds; a cluster has only database 0 (write redis-cluster://"
                            + "host1:7000,host2:7000/ and, to fix the node count, ?nodes=5)");
        }
        int nodes = 0;
        if (query != null) {
            String[] kv = query.split("=", 2);
            if (!kv[0].equals("nodes") || kv.length != 2) {
                throw malformed(
                        field,
                        "the only query parameter of a cluster is nodes=N (got '"
                                + (kv[0].matches("[A-Za-z0-9_.-]{1,32}") ? kv[0] : "?") + "')");
            }
            boolean digits = kv[1].matches("[0-9]{1,3}");
            nodes = digits ? Integer.parseInt(kv[1]) : -1;
            if (nodes < 3 || nodes > MAX_CLUSTER_NODES) {
                throw malformed(
                        field,
                        "nodes must be a number from 3 to " + MAX_CLUSTER_NODES + " (got '"
                                + (kv[1].length() <= 12 ? kv[1] : kv[1].substring(0, 12) + "...") + "')");
            }
        }
        String name = "cluster(" + seeds.get(0).name() + ")";
        return new NodeSpec(
                name,
                null,
                0,
                user,
                password,
                0,
                ssl,
                null,
                List.of(),
                null,
                new ClusterPart(List.copyOf(seeds), nodes, -1, null));
    }
    /** Parses {@code host[:port]} (an IPv6 host in brackets); returns {host, port}. */
    private static String[] hostAndPort(String field, String authority, boolean hasUserInfo, int defaultPort) {

        String host;
        String portText;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw malformed(field, "IPv6 address without its closing ']' (write redis://[::1]:6379)");
            }
            host = authority.substring(0, close + 1);
            checkHostLength(field, host);
            checkIpv6(field, host);
            String after = authority.substring(close + 1);
            if (!after.isEmpty() && !after.startsWith(":")) {
                throw malformed(field, "unexpected characters after the IPv6 address " + host + " (expected ':port')");
            }
            portText = after.isEmpty() ? null : after.substring(1);
        } else {
            int colon = authority.indexOf(':');
            if (colon >= 0 && authority.indexOf(':', colon + 1) >= 0) {
                throw malformed(
                        field,
                        "more than one ':' in the host and port; an IPv6 address goes in brackets, "
                                + "as in redis://[::1]:6379, and the port must be a number in [1, 65535]");
            }
            host = colon < 0 ? authority : authority.substring(0, colon);
            portText = colon < 0 ? null : authority.substring(colon + 1);
            if (host.isEmpty()) {
                throw malformed(field, "missing host");
            }
            checkHostLength(field, host);
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (!(c < 0x80 && (Character.isLetterOrDigit(c) || c == '-' || c == '.' || c == '_'))) {
                    throw malformed(
                            field,
                            "host '" + host + "' has a character not allowed in a host name "
                                    + "(allowed: ASCII letters, digits, '-', '.', '_'; an IPv6 address goes in brackets)");
                }
            }
        }
        int port = portText == null || portText.isEmpty() ? defaultPort : parsePort(field, portText, hasUserInfo);
        return new String[] {host, Integer.toString(port)};
    }

    /** Wraps a transport the user built and manages; the library never closes the client behind it. */
    public static NodeSpec ofTransport(String field, String name, NodeTransport transport) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(field + ": a client node needs a non-empty name");
        }
        Objects.requireNonNull(transport, field + ": transport");
        return new NodeSpec(name, null, 0, null, null, 0, false, transport);
    }

    /** The longest host name DNS allows; checked first, so that no message echoes a huge input. */
    private static final int MAX_HOST_LENGTH = 253;

    private static void checkHostLength(String field, String host) {
        if (host.length() > MAX_HOST_LENGTH) {
            throw malformed(
                    field, "host of " + host.length() + " characters (at most " + MAX_HOST_LENGTH + ", as in DNS)");
        }
    }

    private static IllegalArgumentException malformed(String field, String what) {
        return new IllegalArgumentException(field + ": malformed URI: " + what + " (expected " + URI_FORMAT + ")");
    }

    /** RFC 3986 user info: unreserved, sub-delims, ':' and percent-escapes; any other non-ASCII letter too. */
    private static void checkUserInfo(String field, String info) {
        String why = null;
        if (info.isEmpty()) {
            why = "it is empty; drop the '@' or put the password before it";
        }
        for (int i = 0; i < info.length() && why == null; i++) {
            char c = info.charAt(i);
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c)
                        && i + 1 < info.length()
                        && Character.isLowSurrogate(info.charAt(i + 1));
                if (!paired) {
                    why = "it is not valid Unicode (an unpaired surrogate)";
                }
                i++;
            } else if (c >= 0x80
                    ? Character.isISOControl(c) || Character.isSpaceChar(c)
                    : !(Character.isLetterOrDigit(c) || "-._~!$&'()*+,;=:%".indexOf(c) >= 0)) {
                why = "it has a character that must be percent-encoded (such as '@' as %40, '/' as %2F, '?' as %3F, "
                        + "'#' as %23, ' ' as %20, '%' as %25)";
            }
        }
        if (why != null) {
            // Never show the user info itself, nor which character: it is (part of) a password.
            throw malformed(field, "the user info before '@' (not shown) is malformed: " + why);
        }
    }

    /**
     * Strict percent-decoding: a '+' stays a '+', every '%' starts two hex digits, and the bytes must be UTF-8 (a
     * lenient decoder would turn a bad password into another one, silently).
     */
    private static String decode(String field, String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); ) {
            char c = s.charAt(i);
            if (c == '%') {
                int hi = i + 2 < s.length() ? hex(s.charAt(i + 1)) : -1;
                int lo = hi < 0 ? -1 : hex(s.charAt(i + 2));
                if (lo < 0) {
                    throw malformed(
                            field,
                            "the user info before '@' (not shown) is malformed: a '%' is not "
                                    + "followed by two hex digits; write a literal '%' as %25");
                }
                bytes.write(hi << 4 | lo);
                i += 3;
            } else {
                int cp = s.codePointAt(i);
                bytes.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(cp);
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw malformed(
                    field,
                    "the user info before '@' (not shown) is malformed: its percent-escapes are not " + "valid UTF-8");
        }
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
            return (c | 0x20) - 'a' + 10;
        }
        return -1;
    }

    private static void checkIpv6(String field, String bracketed) {
        String literal = bracketed.substring(1, bracketed.length() - 1);
        int zone = literal.indexOf('%');
        String address = zone < 0 ? literal : literal.substring(0, zone);
        boolean ok = address.indexOf(':') >= 0
                && address.chars().allMatch(c -> c == ':' || c == '.' || hex((char) c) >= 0)
                && (zone < 0 || literal.substring(zone + 1).matches("[A-Za-z0-9._~%-]+"));
        if (!ok) {
            throw malformed(
                    field,
                    "'" + bracketed + "' is not an IPv6 address (hex digits, ':' and '.' in "
                            + "brackets, as in redis://[::1]:6379)");
        }
    }

    private static int parsePort(String field, String text, boolean hasUserInfo) {
        boolean digits = text.chars().allMatch(c -> c >= '0' && c <= '9');
        // Without an '@', a "port" may be a password that lost its host (redis://user:secret): echo only what looks
        // like a port.
        boolean show = hasUserInfo || (digits && text.length() <= 5);
        if (!digits) {
            throw malformed(
                    field,
                    "port "
                            + (show
                                    ? "'" + text + "' is not a number"
                                    : "is not a number (not " + "shown: with no '@' in the URI it may be a password)")
                            + "; it must be in [1, 65535]");
        }
        long port = text.length() > 6 ? Long.MAX_VALUE : Long.parseLong(text);
        if (port < 1 || port > 65535) {
            throw malformed(field, "port must be in [1, 65535], got " + (show ? text : "a longer number (not shown)"));
        }
        return (int) port;
    }

    private static int parseDatabase(String field, String path) {
        if (path.isEmpty() || path.equals("/")) {
            return 0;
        }
        String text = path.substring(1);
        boolean digits = text.chars().allMatch(c -> c >= '0' && c <= '9');
        long db = !digits ? -1 : text.length() > 10 ? Long.MAX_VALUE : Long.parseLong(text);
        if (db < 0 || db > Integer.MAX_VALUE) {
            throw malformed(
                    field,
                    "database '" + text + "' must be a number >= 0 (at most " + Integer.MAX_VALUE
                            + "), as in redis://host:6379/2");
        }
        return (int) db;
    }

    /** The server part of the name, host lower-cased and without the database: two databases are one server. */
    public String server() {
        return transport != null || masterName != null || cluster != null
                ? name
                : host.toLowerCase(java.util.Locale.ROOT) + ":" + port;
    }

    /**
     * The node's name in outcomes and logs: {@code host:port}, {@code host:port/db}, the client's name, or for a
     * Sentinel-managed master {@code masterName(firstSentinel:port)}.
     */
    public String name() {
        return name;
    }

    /**
     * The host as written (an IPv6 address in brackets); null for a user's client, and for a Sentinel-managed node
     * until {@link #at} names its master.
     */
    public String host() {
        return host;
    }

    /** The port, 6379 by default; 0 for a user's client. */
    public int port() {
        return port;
    }

    /** The ACL user, or null for the default user. */
    public String user() {
        return user;
    }

    /** The percent-decoded password, or null for none. Never part of a message or {@link #toString()}. */
    public String password() {
        return password;
    }

    /** The {@code AUTH} command for these credentials, with the user when there is one; null without a password. */
    String[] authCommand() {
        if (password == null) {
            return null;
        }
        return user == null ? new String[] {"AUTH", password} : new String[] {"AUTH", user, password};
    }

    /** The database index, 0 by default. */
    public int database() {
        return database;
    }

    /** Whether the scheme is {@code rediss} (TLS). */
    public boolean ssl() {
        return ssl;
    }

    /** Whether this node is a Sentinel-managed master, found through {@link #sentinels()}. */
    public boolean isSentinelManaged() {
        return masterName != null;
    }

    /** The sentinels to ask for the master, in the order given; empty unless {@link #isSentinelManaged()}. */
    public List<NodeSpec> sentinels() {
        return sentinels;
    }

    /** The name the sentinels monitor the master under; null unless {@link #isSentinelManaged()}. */
    public String masterName() {
        return masterName;
    }

    /**
     * This Sentinel-managed node's master at one address the sentinels named: the same name, credentials, database
     * and TLS, so every message and identity stays the node's.
     */
    public NodeSpec at(String masterHost, int masterPort) {
        return new NodeSpec(
                name, masterHost, masterPort, user, password, database, ssl, null, sentinels, masterName, cluster);
    }

    /** A server of this cluster at {@code host:port}: a plain node with the cluster's credentials and TLS. */
    NodeSpec seedAt(String host, int port) {
        return new NodeSpec(host + ":" + port, host, port, user, password, 0, ssl, null);
    }

    /**
     * What places locks on this node when each lock uses some of the nodes: its name with the host in lower case; for
     * a cluster's node its slot, and for a Sentinel-managed master its master name (and database), which every client
     * computes alike whatever seeds or sentinels it was given and in whatever order.
     */
    public String placementId() {
        if (isClusterSlot()) {
            return "slot-" + slot();
        }
        if (masterName != null) {
            // The master's name, not the sentinels: clients may list them in another order, or others of them.
            return "sentinel:" + masterName + (database == 0 ? "" : "/" + database);
        }
        if (host != null && name.equals(host + ":" + port + (database == 0 ? "" : "/" + database))) {
            return name.toLowerCase(java.util.Locale.ROOT); // host names are case-insensitive
        }
        return name;
    }

    /** Whether this is a Redis Cluster as written, not yet expanded into its slots' nodes. */
    public boolean isCluster() {
        return cluster != null && cluster.slot < 0;
    }

    /** Whether this node is one hash slot of a Redis Cluster: whichever master owns {@link #slot()}. */
    public boolean isClusterSlot() {
        return cluster != null && cluster.slot >= 0;
    }

    /** Whether the node's server is chosen by others (sentinels, a cluster), and can change under the client. */
    public boolean isFollowed() {
        return isSentinelManaged() || isClusterSlot();
    }

    /** The seeds of a cluster, or of the cluster of a slot's node; empty otherwise. */
    public List<NodeSpec> clusterSeeds() {
        return cluster == null ? List.of() : cluster.seeds;
    }

    /** How many nodes the cluster counts as, from {@code ?nodes=N}; 0 for one per master found. */
    public int clusterNodes() {
        return cluster == null ? 0 : cluster.nodes;
    }

    /** The hash slot of a cluster slot's node; -1 otherwise. */
    public int slot() {
        return cluster == null ? -1 : cluster.slot;
    }

    /** The hash tag, braces included, that every key sent to this node starts with; null unless a cluster slot. */
    public String keyTag() {
        return cluster == null ? null : cluster.tag;
    }

    /**
     * One node of this cluster: whichever master owns {@code slot}, its keys tagged with {@code tag}.
     *
     * @param n how many nodes the cluster counts as (kept, so the slot's node remembers it)
     */
    public NodeSpec slotNode(int slot, String tag, int n) {
        if (!isCluster()) {
            throw new IllegalStateException(name + " is not a Redis Cluster");
        }
        return new NodeSpec(
                name + "/slot-" + slot,
                null,
                0,
                user,
                password,
                0,
                ssl,
                null,
                List.of(),
                null,
                new ClusterPart(cluster.seeds, n, slot, tag));
    }

    /** The user's own transport, or null when the library connects by itself. */
    public NodeTransport transport() {
        return transport;
    }

    /** The name only: never the user or password. */
    @Override
    public String toString() {
        return name;
    }
}
