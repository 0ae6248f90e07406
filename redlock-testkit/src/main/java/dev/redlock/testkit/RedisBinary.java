/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Locates a {@code redis-server} executable for the test kit.
 *
 * <p>An explicit binary wins: the environment variable {@value #ENV_VAR} or the system property
 * {@value #SYSTEM_PROPERTY}. Otherwise the statically linked binary for this OS and CPU that
 * {@code org.signal:embedded-redis} ships (as {@code redis-server-VERSION-OS-ARCH}) is extracted to
 * {@code target/redis-bin/} under the working directory (the module directory under Maven): from the
 * classpath, or from the jar named by the system property {@value #BUNDLE_PROPERTY}.
 *
 * <p>The system property {@value #VERSION_PROPERTY} names the version the tests must run on (default
 * {@value #VERSION}): the bundled binary of that version is taken, and an explicit binary of another
 * version fails loudly. The build's Redis 6.2 run uses both properties, with the 6.2.7 binary of
 * {@code org.signal:embedded-redis:0.8.3}.
 */
public final class RedisBinary {

    /** Version of the redis-server binaries shipped by the embedded-redis on the classpath. */
    public static final String VERSION = "7.0.15";
    /** Environment variable naming an explicit redis-server executable. */
    public static final String ENV_VAR = "REDLOCK_REDIS_SERVER";
    /** System property naming an explicit redis-server executable (used when the env var is unset). */
    public static final String SYSTEM_PROPERTY = "redlock.redis.server";
    /**
     * System property naming the redis-server version to run: the bundled binary of that version is extracted, and
     * an explicit binary must report it ({@code redis-server --version}). Unset: the bundled {@value #VERSION}, or
     * whatever the explicit binary is.
     */
    public static final String VERSION_PROPERTY = "redlock.redis.version";
    /**
     * System property naming a jar (or zip) that ships {@code redis-server-VERSION-OS-ARCH} entries, such as another
     * release of {@code org.signal:embedded-redis}, to take the bundled binary from instead of the classpath.
     */
    public static final String BUNDLE_PROPERTY = "redlock.redis.bundle";

    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    private static final String HINT = "set " + ENV_VAR + "=/path/to/redis-server or make sure"
            + " org.signal:embedded-redis:0.9.1 is on the test classpath";
    /** What {@code redis-server --version} prints: {@code Redis server v=7.0.15 sha=... malloc=... bits=64 ...}. */
    private static final Pattern VERSION_OUTPUT = Pattern.compile("\\bv=(\\d+(?:\\.\\d+)*)");

    /** Guarded by the class lock: extraction happens at most once per JVM. */
    private static Path resolved;

    private RedisBinary() {}

    /**
     * Returns the path of an executable redis-server, extracting the bundled one on first use.
     *
     * @return an absolute path to an executable file
     * @throws IllegalStateException if the configured binary is not an executable file or not of the version named
     *     by {@value #VERSION_PROPERTY}, or no bundled binary of that version exists for this platform
     */
    public static synchronized Path resolve() {
        if (resolved == null) {
            resolved = locate(System::getenv, System::getProperty, Path.of("target", "redis-bin"));
            LOG.debug("Using redis-server at {}", resolved);
        }
        return resolved;
    }

    /** The binary the given environment and system properties name; a bundled one is extracted to {@code binDir}. */
    static Path locate(UnaryOperator<String> env, UnaryOperator<String> properties, Path binDir) {
        String version = blankToNull(properties.apply(VERSION_PROPERTY));
        String explicit = blankToNull(env.apply(ENV_VAR));
        String source = ENV_VAR;
        if (explicit == null) {
            explicit = blankToNull(properties.apply(SYSTEM_PROPERTY));
            source = SYSTEM_PROPERTY;
        }
        if (explicit != null) {
            Path path = Path.of(explicit).toAbsolutePath();
            // A misconfigured override must fail loudly instead of falling back to something else.
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new IllegalStateException(source + "=" + explicit + " is not an executable file");
            }
            if (version != null) {
                checkVersion(path, version, source + "=" + explicit);
            }
            return path;
        }
        String bundle = blankToNull(properties.apply(BUNDLE_PROPERTY));
        String wanted = version == null ? VERSION : version;
        Path binary = extractBundled(wanted, bundle == null ? null : Path.of(bundle), binDir);
        if (version != null || bundle != null) {
            // Asked for by name: make sure that is what runs (the bundle could ship a mislabelled file).
            checkVersion(binary, wanted, "the bundled " + binary.getFileName());
        }
        return binary;
    }

    /**
     * Runs {@code binary --version} and returns the version it reports.
     *
     * @param binary a redis-server executable
     * @return e.g. {@code 7.0.15}
     * @throws IllegalStateException if it cannot be run or does not print a version
     */
    public static String versionOf(Path binary) {
        String output;
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            byte[] bytes;
            try (InputStream in = p.getInputStream()) {
                bytes = in.readNBytes(4096);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(binary + " --version did not exit within 10 s");
            }
            output = new String(bytes, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + binary + " --version", e);
        }
        Matcher m = VERSION_OUTPUT.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException(binary + " --version printed no version: " + output);
        }
        return m.group(1);
    }

    /** Fails unless {@code binary} reports {@code version} (or a release of it: 6.2 matches 6.2.7). */
    private static void checkVersion(Path binary, String version, String what) {
        String actual = versionOf(binary);
        if (!actual.equals(version) && !actual.startsWith(version + ".")) {
            throw new IllegalStateException(what + " is redis-server " + actual + ", but " + VERSION_PROPERTY + "="
                    + version + " asks for that version");
        }
        LOG.info("redis-server {} at {}", actual, binary);
    }

    private static Path extractBundled(String version, Path bundle, Path binDir) {
        String resource = resourceName(version);
        Path dir = binDir.toAbsolutePath();
        Path target = dir.resolve("redis-server-" + version);
        if (bundle != null) {
            if (!Files.isRegularFile(bundle)) {
                throw new IllegalStateException(BUNDLE_PROPERTY + "=" + bundle + " is not a file");
            }
            try (ZipFile zip = new ZipFile(bundle.toFile())) {
                ZipEntry entry = zip.getEntry(resource);
                if (entry == null) {
                    throw new IllegalStateException("No redis-server binary: " + bundle + " has no entry " + resource
                            + " (" + BUNDLE_PROPERTY + ", " + VERSION_PROPERTY + "=" + version + ")");
                }
                try (InputStream in = zip.getInputStream(entry)) {
                    install(in, dir, target);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot extract " + resource + " from " + bundle + " to " + target, e);
            }
            return target;
        }
        URL url = findResource(resource);
        if (url == null) {
            throw new IllegalStateException("No redis-server binary: classpath resource " + resource
                    + " not found (os.name=" + System.getProperty("os.name") + ", os.arch="
                    + System.getProperty("os.arch") + "); " + HINT);
        }
        try (InputStream in = url.openStream()) {
            install(in, dir, target);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract " + resource + " to " + target + "; " + HINT, e);
        }
        return target;
    }

    /** The name embedded-redis gives the binary of {@code version} for this OS and CPU. */
    static String resourceName(String version) {
        return "redis-server-" + version + "-" + os() + "-" + arch();
    }

    private static void install(InputStream in, Path dir, Path target) throws IOException {
        Files.createDirectories(dir);
        // Write to a temp file in the same directory and rename atomically, so that concurrent
        // JVMs (surefire forks, parallel module builds) never execute a half-written file.
        Path tmp = Files.createTempFile(dir, "redis-server-", ".tmp");
        try {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            if (!tmp.toFile().setExecutable(true, false)) {
                throw new IOException("cannot make " + tmp + " executable");
            }
            moveAtomically(tmp, target);
        } finally {
            Files.deleteIfExists(tmp);
        }
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

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
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
