package dev.redlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locates a {@code redis-server} executable for the test kit.
 *
 * <p>An explicit binary wins: the environment variable {@value #ENV_VAR} or the system property
 * {@value #SYSTEM_PROPERTY}. Otherwise the statically linked binary for this OS and CPU that
 * {@code org.signal:embedded-redis} ships as a classpath resource is extracted to
 * {@code target/redis-bin/} under the working directory (the module directory under Maven).
 */
public final class RedisBinary {

    /** Version of the redis-server binaries shipped by embedded-redis. */
    public static final String VERSION = "7.0.15";
    /** Environment variable naming an explicit redis-server executable. */
    public static final String ENV_VAR = "REDLOCK_REDIS_SERVER";
    /** System property naming an explicit redis-server executable (used when the env var is unset). */
    public static final String SYSTEM_PROPERTY = "redlock.redis.server";

    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    private static final String HINT = "set " + ENV_VAR + "=/path/to/redis-server or make sure"
            + " org.signal:embedded-redis:0.9.1 is on the test classpath";

    /** Guarded by the class lock: extraction happens at most once per JVM. */
    private static Path resolved;

    private RedisBinary() {}

    /**
     * Returns the path of an executable redis-server, extracting the bundled one on first use.
     *
     * @return an absolute path to an executable file
     * @throws IllegalStateException if the configured binary is not an executable file, or no
     *     bundled binary exists for this platform
     */
    public static synchronized Path resolve() {
        if (resolved == null) {
            resolved = locate();
            LOG.debug("Using redis-server at {}", resolved);
        }
        return resolved;
    }

    private static Path locate() {
        String explicit = System.getenv(ENV_VAR);
        String source = ENV_VAR;
        if (explicit == null || explicit.isBlank()) {
            explicit = System.getProperty(SYSTEM_PROPERTY);
            source = SYSTEM_PROPERTY;
        }
        if (explicit != null && !explicit.isBlank()) {
            Path path = Path.of(explicit).toAbsolutePath();
            // A misconfigured override must fail loudly instead of falling back to something else.
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(source + "=" + explicit + " is not an executable file");
            }
            return path;
        }
        return extractBundled();
    }

    private static Path extractBundled() {
        String resource = "redis-server-" + VERSION + "-" + os() + "-" + arch();
        URL url = findResource(resource);
        if (url == null) {
            throw new IllegalStateException("No redis-server binary: classpath resource " + resource
                    + " not found (os.name=" + System.getProperty("os.name") + ", os.arch="
                    + System.getProperty("os.arch") + "); " + HINT);
        }
        Path dir = Path.of("target", "redis-bin").toAbsolutePath();
        Path target = dir.resolve("redis-server-" + VERSION);
        try {
            Files.createDirectories(dir);
            // Write to a temp file in the same directory and rename atomically, so that concurrent
            // JVMs (surefire forks, parallel module builds) never execute a half-written file.
            Path tmp = Files.createTempFile(dir, "redis-server-", ".tmp");
            try {
                try (InputStream in = url.openStream()) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                }
                if (!tmp.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make " + tmp + " executable");
                }
                moveAtomically(tmp, target);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract " + resource + " to " + target + "; " + HINT, e);
        }
        return target;
    }

    private static void moveAtomically(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            // Same directory, so this only happens on exotic file systems; a plain replace is the best
            // we can do there.
            LOG.debug("Atomic move not supported for {}, falling back to a plain move", to, e);
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static URL findResource(String name) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        URL url = context == null ? null : context.getResource(name);
        return url != null ? url : RedisBinary.class.getClassLoader().getResource(name);
    }

    private static String os() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            return "linux";
        }
        if (os.contains("mac") || os.contains("darwin")) {
            return "darwin";
        }
        throw new IllegalStateException("No bundled redis-server for OS '" + os + "'; " + HINT);
    }

    private static String arch() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i486", "i586", "i686" -> "386";
            default -> throw new IllegalStateException("No bundled redis-server for CPU '" + arch + "'; " + HINT);
        };
    }
}
