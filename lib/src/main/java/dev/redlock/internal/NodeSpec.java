package dev.redlock.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/**
 * How to reach one node: parsed from a {@code redis://} / {@code rediss://} URI, or a client the user built and
 * manages. Immutable.
 */
public final class NodeSpec {

    static final String URI_FORMAT = "redis://[user:password@]host[:port][/db] or rediss://...";

    private final String name;
    private final String host;
    private final int port;
    private final String user;
    private final String password;
    private final int database;
    private final boolean ssl;
    private final UnifiedJedis client;

    private NodeSpec(String name, String host, int port, String user, String password, int database, boolean ssl,
            UnifiedJedis client) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
        this.database = database;
        this.ssl = ssl;
        this.client = client;
    }

    /**
     * Parses a node URI; {@code field} names the configuration entry in error messages.
     *
     * @throws IllegalArgumentException naming the field and the expected format
     */
    public static NodeSpec parse(String field, String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException(field + ": node URI is empty (expected " + URI_FORMAT + ")");
        }
        URI u;
        try {
            u = new URI(uri.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(field + ": malformed URI '" + redact(uri) + "' (expected " + URI_FORMAT
                    + "): " + e.getReason(), e);
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equals("redis") || scheme.equals("rediss"))) {
            throw new IllegalArgumentException(field + ": unsupported scheme '" + scheme + "' in '" + redact(uri)
                    + "' (allowed: redis, rediss; expected " + URI_FORMAT + ")");
        }
        String host = u.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException(field + ": malformed URI '" + redact(uri) + "': no host (expected "
                    + URI_FORMAT + ")");
        }
        int port = u.getPort() == -1 ? 6379 : u.getPort();
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(field + ": port must be in [1, 65535], got " + port);
        }
        int db = 0;
        String path = u.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(field + ": database in '" + redact(uri)
                        + "' must be a number >= 0 (expected " + URI_FORMAT + ")", e);
            }
            if (db < 0) {
                throw new IllegalArgumentException(field + ": database must be >= 0, got " + db);
            }
        }
        if (u.getQuery() != null || u.getFragment() != null) {
            throw new IllegalArgumentException(field + ": URI '" + redact(uri)
                    + "' must not have a query or fragment (expected " + URI_FORMAT + ")");
        }
        String user = null;
        String password = null;
        String info = u.getRawUserInfo();
        if (info != null && !info.isEmpty()) {
            int colon = info.indexOf(':');
            if (colon < 0) {
                // redis://secret@host: the legacy form, a password with the default user.
                password = decode(info);
            } else {
                user = colon == 0 ? null : decode(info.substring(0, colon));
                password = decode(info.substring(colon + 1));
            }
        }
        String name = host + ":" + port + (db == 0 ? "" : "/" + db);
        return new NodeSpec(name, host, port, user, password, db, scheme.equals("rediss"), null);
    }

    /** Wraps a client the user built and manages; the library never closes it. */
    public static NodeSpec ofClient(String field, String name, UnifiedJedis client) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(field + ": a client node needs a non-empty name");
        }
        Objects.requireNonNull(client, field + ": client");
        return new NodeSpec(name, null, 0, null, null, 0, false, client);
    }

    /** Percent-decoding only: unlike form decoding, a '+' in a password stays a '+'. */
    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** Never echo a password into an exception message or a log: hide everything up to the last '@'. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int end = uri.indexOf('/', scheme < 0 ? 0 : scheme + 3);
        int at = uri.lastIndexOf('@', end < 0 ? uri.length() : end);
        if (at < 0 || scheme < 0 || at < scheme) {
            return uri;
        }
        return uri.substring(0, scheme + 3) + "***" + uri.substring(at);
    }

    /**
     * The Jedis settings of a connection to this node: credentials, database and TLS from the URI, the given
     * timeouts, no client-info handshake (one round trip fewer per connect) and RESP2 without auto-negotiation
     * (which would log a warning on every connect to Redis below 6).
     */
    public redis.clients.jedis.DefaultJedisClientConfig jedisConfig(java.time.Duration connectTimeout,
            java.time.Duration socketTimeout) {
        return redis.clients.jedis.DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .socketTimeoutMillis((int) Math.min(Integer.MAX_VALUE, socketTimeout.toMillis()))
                .user(user)
                .password(password)
                .database(database)
                .ssl(ssl)
                .clientSetInfoConfig(redis.clients.jedis.ClientSetInfoConfig.DISABLED)
                .autoNegotiateProtocol(false)
                .build();
    }

    /** The server part of the name, host lower-cased and without the database: two databases are one server. */
    public String server() {
        return client != null ? name : host.toLowerCase(java.util.Locale.ROOT) + ":" + port;
    }

    public String name() {
        return name;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public int database() {
        return database;
    }

    public boolean ssl() {
        return ssl;
    }

    /** The user's own client, or null when the library connects by itself. */
    public UnifiedJedis client() {
        return client;
    }

    @Override
    public String toString() {
        return name;
    }
}
