/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One real {@code redis-server} process on a free loopback port, for tests.
 *
 * <p>The process can be killed (SIGKILL), paused (SIGSTOP), resumed (SIGCONT) and restarted on
 * the same port with the same arguments and data directory. By default the server has no
 * persistence, so a restart loses every key; pass e.g. {@code --appendonly yes --appendfsync
 * always} as extra arguments to keep data across restarts.
 *
 * <p>Every process is registered in a JVM-wide registry and SIGKILLed by a shutdown hook, so no
 * redis-server outlives the test JVM even when a test forgets to close it. Instances are
 * thread-safe.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);

    private static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);
    private static final int START_ATTEMPTS = 5;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final int LOG_TAIL_LINES = 40;

    /** Processes started by this JVM and not yet known to have exited; reaped at JVM shutdown. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    /** Ports owned by servers of this JVM, so parallel starts never pick the same port. */
    private static final Set<Integer> PORTS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> LIVE.forEach(p -> ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly)),
                        "redis-testkit-reaper"));
    }

    private final int port;
    /** The certificates of a TLS-only server, or null for plain TCP. */
    private final TlsCertificates tls;
    /** The {@code --requirepass} among the arguments, which the kit's own connections give; null if none. */
    private final String password;

    private final List<String> command;
    private final Path dataDir;
    private volatile Process process;
    private volatile boolean paused;
    private boolean closed; // guarded by this

    private RedisServer(
            Path binary,
            int port,
            Path dataDir,
            TlsCertificates tls,
            boolean clientAuth,
            List<String> leadingArgs,
            List<String> extraArgs) {
        this.port = port;
        this.dataDir = dataDir;
        this.tls = tls;
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        // A configuration file must come first on the redis-server command line, before any option.
        cmd.addAll(leadingArgs);
        cmd.addAll(List.of(
                "--port",
                Integer.toString(port),
                "--bind",
                HOST,
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--daemonize",
                "no",
                "--dir",
                dataDir.toString(),
                "--logfile",
                dataDir.resolve("redis.log").toString()));
        if (tls != null) {
            // TLS only: the plain port is off, so a plain client on this port meets a TLS server.
            cmd.addAll(List.of(
                    "--port",
                    "0",
                    "--tls-port",
                    Integer.toString(port),
                    "--tls-cert-file",
                    tls.serverCertificate().toString(),
                    "--tls-key-file",
                    tls.serverKey().toString(),
                    "--tls-ca-cert-file",
                    tls.caCertificate().toString(),
                    "--tls-auth-clients",
                    clientAuth ? "yes" : "no"));
        }
        // Redis applies options in order, so caller-supplied arguments override the defaults above.
        cmd.addAll(extraArgs);
        this.command = List.copyOf(cmd);
        String pw = null;
        for (int i = 0; i + 1 < extraArgs.size(); i++) {
            if (extraArgs.get(i).equals("--requirepass")) {
                pw = extraArgs.get(i + 1);
            }
        }
        this.password = pw;
    }

    /**
     * Starts a redis-server with the default arguments (no persistence) on a free loopback port.
     *
     * @return a running server that answers PING
     * @throws IllegalStateException if the server cannot be started
     */
    public static RedisServer start() {
        return start(List.of());
    }

    /**
     * Starts a redis-server on a free loopback port with additional command-line arguments, which
     * override the defaults (e.g. {@code List.of("--appendonly", "yes")}).
     *
     * @param extraArgs arguments appended to the redis-server command line
     * @return a running server that answers PING
     * @throws IllegalStateException if the server cannot be started
     */
    public static RedisServer start(List<String> extraArgs) {
        return start(null, false, extraArgs);
    }

    /**
     * Starts a redis-server that speaks only TLS, with the given certificates, on a free loopback port; clients need
     * not present a certificate.
     *
     * @param tls the server's certificates (and the authority it trusts for client certificates)
     * @return a running server that answers PING over TLS
     * @throws IllegalStateException if the server cannot be started
     */
    public static RedisServer startTls(TlsCertificates tls) {
        return start(java.util.Objects.requireNonNull(tls, "tls"), false, List.of());
    }

    /**
     * Starts a redis-server that speaks only TLS, as {@link #startTls(TlsCertificates)}, optionally requiring a client
     * certificate signed by the same authority (mutual TLS, {@code tls-auth-clients yes}), with extra arguments.
     *
     * @param tls the server's certificates
     * @param requireClientCertificates whether clients must present a certificate
     * @param extraArgs arguments appended to the redis-server command line
     * @return a running server that answers PING over TLS
     * @throws IllegalStateException if the server cannot be started
     */
    public static RedisServer startTls(TlsCertificates tls, boolean requireClientCertificates, List<String> extraArgs) {
        return start(java.util.Objects.requireNonNull(tls, "tls"), requireClientCertificates, extraArgs);
    }

    private static RedisServer start(TlsCertificates tls, boolean clientAuth, List<String> extraArgs) {
        return start(tls, clientAuth, List.of(), extraArgs, port -> true);
    }

    /**
     * Starts a redis-server as the public factories do, with arguments placed before all others (a configuration file,
     * then e.g. {@code --sentinel}) and a condition on the port (e.g. that the cluster bus port, 10000 above, is free).
     */
    static RedisServer start(
            TlsCertificates tls,
            boolean clientAuth,
            List<String> leadingArgs,
            List<String> extraArgs,
            IntPredicate portCondition) {
        List<String> leading = List.copyOf(leadingArgs);
        List<String> args = List.copyOf(extraArgs);
        Path binary = RedisBinary.resolve();
        Path dataDir = newDataDir();
        StartupFailure last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            int port = reservePort(portCondition);
            RedisServer server = new RedisServer(binary, port, dataDir, tls, clientAuth, leading, args);
            try {
                server.launch();
                return server;
            } catch (RuntimeException e) {
                PORTS.remove(port);
                // Only a lost race for the port is worth another port; anything else is a real failure.
                if (!(e instanceof StartupFailure) || !((StartupFailure) e).portConflict) {
                    throw e;
                }
                LOG.debug("Port {} was taken before redis-server could bind it, retrying", port, e);
                if (last != null) {
                    e.addSuppressed(last);
                }
                last = (StartupFailure) e;
            }
        }
        throw new IllegalStateException(
                "Could not start redis-server after " + START_ATTEMPTS + " port conflicts", last);
    }

    /**
     * Returns the TCP port this server listens on; it stays the same across restarts.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * Returns the address this server binds to.
     *
     * @return always {@code "127.0.0.1"}
     */
    public String host() {
        return HOST;
    }

    /**
     * Returns a Redis URI for this server.
     *
     * @return {@code redis://127.0.0.1:<port>}, or {@code rediss://127.0.0.1:<port>} for a TLS server
     */
    public String uri() {
        return (tls != null ? "rediss://" : "redis://") + HOST + ":" + port;
    }

    /**
     * Returns the certificates of a TLS server.
     *
     * @return the certificates, or null for a plain server
     */
    public TlsCertificates tls() {
        return tls;
    }

    /**
     * Returns the PID of the current process, or of the last one if it has been killed.
     *
     * @return the operating-system process id
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Returns the directory holding this server's data files and logs ({@code redis.log},
     * {@code stdout.log}); it stays the same across restarts.
     *
     * @return the absolute data directory
     */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * Tells whether the redis-server process is alive (a paused process is alive).
     *
     * @return {@code true} if the process has not exited
     */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * Tells whether the process has been paused with {@link #pause()} and not resumed or killed.
     *
     * @return {@code true} if the process is stopped by SIGSTOP
     */
    public boolean isPaused() {
        return paused;
    }

    /**
     * Kills the process with SIGKILL and waits (at most 10 s) until it has exited. Does nothing if
     * it is not running.
     *
     * @throws IllegalStateException if the process does not exit in time
     */
    public synchronized void kill() {
        Process p = process;
        if (p != null) {
            destroy(p);
        }
        paused = false;
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, like a
     * long GC pause or a hung host.
     *
     * @throws IllegalStateException if the server is not running or the signal cannot be sent
     */
    public synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException("Cannot pause " + this + ": not running");
        }
        signal("STOP");
        paused = true;
        awaitStopped();
    }

    /**
     * Continues a paused process with SIGCONT. Does nothing to a process that is not running.
     *
     * @throws IllegalStateException if the signal cannot be sent
     */
    public synchronized void resume() {
        if (isRunning()) {
            signal("CONT");
        }
        paused = false;
    }

    /**
     * Kills the process if it is running, then starts a new one on the same port with the same
     * arguments and data directory, and waits until it answers PING.
     *
     * @throws IllegalStateException if the server is closed or cannot be started again
     */
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException("Cannot restart " + this + ": closed");
        }
        kill();
        for (int attempt = 1; ; attempt++) {
            try {
                launch();
                return;
            } catch (StartupFailure e) {
                // The port was ours a moment ago; give a lingering socket a little time to go away.
                if (!e.portConflict || attempt == START_ATTEMPTS) {
                    throw e;
                }
                LOG.debug("Port {} briefly unavailable on restart (attempt {})", port, attempt, e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100L * attempt));
            }
        }
    }

    /**
     * Opens a new connection to this server with a 2 s timeout, authenticated with the {@code --requirepass} given
     * at start if any; the caller must close it.
     *
     * @return a new, caller-owned Jedis connection
     */
    public Jedis client() {
        return client(CLIENT_TIMEOUT);
    }

    /**
     * Opens a new connection to this server with the given connect and read timeout; the caller
     * must close it.
     *
     * @param timeout connect and socket timeout
     * @return a new, caller-owned Jedis connection
     */
    public Jedis client(Duration timeout) {
        int millis = Math.toIntExact(timeout.toMillis());
        // Plain RESP2 without handshake: CLIENT SETINFO does not exist in Redis 7.0, and without
        // autoNegotiateProtocol(false) Jedis 8 logs a warning for every connection.
        DefaultJedisClientConfig.Builder config = resp2(DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis)
                .socketTimeoutMillis(millis)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .password(password));
        if (tls != null) {
            // The kit's own connections check the server's pid, not its certificate: they also reach servers whose
            // certificates are meant to fail (expired, for another host).
            config.ssl(true).sslSocketFactory(tls.uncheckedClientContext().getSocketFactory());
        }
        return new Jedis(HOST, port, config.build());
    }

    /**
     * Turns off Jedis's protocol negotiation where the Jedis on the class path has it (7 and later): the kit also runs
     * where an application brings Jedis 6, which speaks RESP2 without asking.
     */
    private static DefaultJedisClientConfig.Builder resp2(DefaultJedisClientConfig.Builder b) {
        try {
            b.getClass().getMethod("autoNegotiateProtocol", boolean.class).invoke(b, false);
        } catch (NoSuchMethodException e) {
            // Jedis 6: nothing to turn off.
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot configure the test kit's Jedis connection", e);
        }
        return b;
    }

    /**
     * Reads a key over a short-lived connection.
     *
     * @param key the key
     * @return its value, or {@code null} if absent
     */
    public String get(String key) {
        try (Jedis jedis = client()) {
            return jedis.get(key);
        }
    }

    /**
     * Writes a key over a short-lived connection.
     *
     * @param key the key
     * @param value the value
     */
    public void set(String key, String value) {
        try (Jedis jedis = client()) {
            jedis.set(key, value);
        }
    }

    /**
     * Tells whether a key exists, over a short-lived connection.
     *
     * @param key the key
     * @return {@code true} if the key exists
     */
    public boolean exists(String key) {
        try (Jedis jedis = client()) {
            return jedis.exists(key);
        }
    }

    /**
     * Lists keys matching a glob pattern (with KEYS), over a short-lived connection.
     *
     * @param pattern a Redis glob pattern such as {@code "lock:*"}
     * @return the matching keys
     */
    public Set<String> keys(String pattern) {
        try (Jedis jedis = client()) {
            return jedis.keys(pattern);
        }
    }

    /** Deletes every key (FLUSHALL), over a short-lived connection. */
    public void flushAll() {
        try (Jedis jedis = client()) {
            jedis.flushAll();
        }
    }

    /** Empties the Lua script cache (SCRIPT FLUSH), over a short-lived connection. */
    public void scriptFlush() {
        try (Jedis jedis = client()) {
            jedis.scriptFlush();
        }
    }

    /**
     * Stops the server for good: continues it if paused, kills it and waits for it to exit.
     * Idempotent. The data directory is kept for post-mortem inspection.
     *
     * @throws IllegalStateException if the process does not exit in time
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (paused) {
                resume();
            }
        } catch (RuntimeException e) {
            // Not fatal: SIGKILL below also ends a stopped process; the goal is only to be safe.
            LOG.debug("Could not SIGCONT {} before killing it", this, e);
        }
        kill();
        PORTS.remove(port);
    }

    /**
     * Describes this server for logs and assertion messages.
     *
     * @return e.g. {@code RedisServer[127.0.0.1:6390, pid 1234, running]}
     */
    @Override
    public String toString() {
        Process p = process;
        String state = closed ? "closed" : paused ? "paused" : isRunning() ? "running" : "killed";
        return "RedisServer[" + (tls != null ? "tls " : "") + HOST + ":" + port + (p == null ? "" : ", pid " + p.pid())
                + ", " + state + "]";
    }

    /** Starts a process on {@link #port} and waits until it answers PING; kills it on failure. */
    private void launch() {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dataDir.toFile())
                .redirectErrorStream(true)
                // Errors in the arguments are printed before the logfile is opened, so keep stdout too.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dataDir.resolve("stdout.log").toFile()));
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot execute " + command, e);
        }
        LIVE.add(p);
        java.util.concurrent.CompletableFuture<?> unused = p.onExit().thenRun(() -> LIVE.remove(p));
        process = p;
        paused = false;
        try {
            awaitReady(p);
            LOG.debug("Started {}", this);
        } catch (RuntimeException e) {
            try {
                destroy(p);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void awaitReady(Process p) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        String ownPid = "process_id:" + p.pid();
        JedisException lastError = null;
        while (true) {
            if (!p.isAlive()) {
                String tail = logTail();
                throw new StartupFailure(
                        tail.contains("Address in use") || tail.contains("Address already in use"),
                        "redis-server on port " + port + " exited with code " + p.exitValue()
                                + " during startup; log tail:\n" + tail,
                        null);
            }
            try (Jedis jedis = client(Duration.ofMillis(250))) {
                jedis.ping(); // fails with LOADING while an AOF is being replayed
                // Check the PID: after a lost port race another JVM's server may be the one answering.
                if (jedis.info("server").lines().anyMatch(ownPid::equals)) {
                    return;
                }
            } catch (JedisException e) {
                lastError = e; // not up yet: keep polling
            }
            if (System.nanoTime() - deadline > 0) {
                throw new StartupFailure(
                        false,
                        "redis-server on port " + port + " did not answer PING within " + STARTUP_TIMEOUT.toSeconds()
                                + " s; log tail:\n" + logTail(),
                        lastError);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Sends a signal with the {@code kill} command, since Java can only send TERM and KILL. */
    private void signal(String name) {
        long pid = process.pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), UTF_8).trim();
            if (!kill.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + name + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException(
                        "kill -" + name + " " + pid + " failed with exit code " + kill.exitValue() + ": " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + name + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending SIG" + name + " to " + pid, e);
        }
    }

    /**
     * Waits (bounded) until Linux reports the process as stopped, so a test that pauses a server
     * and immediately expects timeouts is not racing signal delivery. No-op without /proc.
     */
    private void awaitStopped() {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (Files.isReadable(stat) && System.nanoTime() - deadline < 0) {
            try {
                String line = Files.readString(stat);
                // Format: "pid (comm) S ...": the state follows the last ')'.
                if (line.charAt(line.lastIndexOf(')') + 2) == 'T') {
                    return;
                }
            } catch (IOException e) {
                LOG.debug("Cannot read {}; the process may have exited", stat, e);
                return;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    private static void destroy(Process p) {
        p.destroyForcibly();
        try {
            if (!p.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("redis-server pid " + p.pid() + " did not exit within "
                        + EXIT_TIMEOUT.toSeconds() + " s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for pid " + p.pid() + " to exit", e);
        }
        LIVE.remove(p);
    }

    private String logTail() {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("stdout.log", "redis.log")) {
            Path file = dataDir.resolve(name);
            try {
                if (Files.exists(file)) {
                    List<String> lines = Files.readAllLines(file, UTF_8);
                    out.append("--- ").append(file).append('\n');
                    lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())
                            .forEach(line -> out.append(line).append('\n'));
                }
            } catch (IOException e) {
                out.append("--- cannot read ")
                        .append(file)
                        .append(": ")
                        .append(e)
                        .append('\n');
            }
        }
        return out.toString();
    }

    private static int reservePort(IntPredicate condition) {
        for (int i = 0; i < 100; i++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot find a free port on " + HOST, e);
            }
            if (!condition.test(port)) {
                continue;
            }
            if (PORTS.add(port)) {
                return port;
            }
            // Another server of this JVM already owns that port (closed sockets can be handed out again).
        }
        throw new IllegalStateException(
                "Cannot find a free port on " + HOST + " that suits the server and is not used by this JVM");
    }

    private static Path newDataDir() {
        try {
            Path base = Files.createDirectories(Path.of("target", "redis-data").toAbsolutePath());
            return Files.createTempDirectory(base, "redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a data directory under target/redis-data", e);
        }
    }

    /** A failed start; {@code portConflict} tells whether another port (or a retry) may help. */
    private static final class StartupFailure extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final boolean portConflict;

        StartupFailure(boolean portConflict, String message, Throwable cause) {
            super(message, cause);
            this.portConflict = portConflict;
        }
    }
}
