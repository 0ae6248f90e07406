/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the binary is chosen, with stand-in executables that print a version as redis-server does. */
class RedisBinaryTest {

    @TempDir
    Path dir;

    @Test
    void takesTheAskedVersionFromABundleJar() throws IOException {
        Path bundle = bundle(Map.of(RedisBinary.resourceName("6.2.7"), script("6.2.7")));
        Path bin = dir.resolve("bin");
        Path binary = RedisBinary.locate(
                none(),
                props(RedisBinary.BUNDLE_PROPERTY, bundle.toString(), RedisBinary.VERSION_PROPERTY, "6.2.7"),
                bin);
        assertEquals(bin.resolve("redis-server-6.2.7").toAbsolutePath(), binary);
        assertTrue(Files.isExecutable(binary));
        assertEquals("6.2.7", RedisBinary.versionOf(binary));
    }

    @Test
    void aBundleWithoutTheAskedVersionFailsLoudly() throws IOException {
        Path bundle = bundle(Map.of(RedisBinary.resourceName("6.2.7"), script("6.2.7")));
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisBinary.locate(
                        none(),
                        props(RedisBinary.BUNDLE_PROPERTY, bundle.toString(), RedisBinary.VERSION_PROPERTY, "6.0.1"),
                        dir.resolve("bin")));
        assertTrue(e.getMessage().contains(RedisBinary.resourceName("6.0.1")), e::getMessage);
    }

    @Test
    void aMissingBundleFailsLoudly() {
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisBinary.locate(
                        none(),
                        props(
                                RedisBinary.BUNDLE_PROPERTY,
                                dir.resolve("nope.jar").toString()),
                        dir.resolve("bin")));
        assertTrue(e.getMessage().contains("nope.jar"), e::getMessage);
    }

    @Test
    void aMislabelledBundledBinaryFailsLoudly() throws IOException {
        Path bundle = bundle(Map.of(RedisBinary.resourceName("6.2.7"), script("7.2.4")));
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisBinary.locate(
                        none(),
                        props(RedisBinary.BUNDLE_PROPERTY, bundle.toString(), RedisBinary.VERSION_PROPERTY, "6.2.7"),
                        dir.resolve("bin")));
        assertTrue(e.getMessage().contains("7.2.4"), e::getMessage);
    }

    @Test
    void anExplicitBinaryOfAnotherVersionThanAskedFailsLoudly() throws IOException {
        Path explicit = executable("redis-server", script("7.0.15"));
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> RedisBinary.locate(
                        env(explicit), props(RedisBinary.VERSION_PROPERTY, "6.2"), dir.resolve("bin")));
        assertTrue(e.getMessage().contains(RedisBinary.ENV_VAR), e::getMessage);
        assertTrue(e.getMessage().contains("7.0.15"), e::getMessage);
    }

    @Test
    void anExplicitBinaryOfTheAskedReleaseLineIsTaken() throws IOException {
        Path explicit = executable("redis-server", script("6.2.7"));
        assertEquals(
                explicit.toAbsolutePath(),
                RedisBinary.locate(env(explicit), props(RedisBinary.VERSION_PROPERTY, "6.2"), dir.resolve("bin")));
    }

    @Test
    void theEnvironmentVariableWinsOverTheSystemProperty() throws IOException {
        Path fromEnv = executable("from-env", script("7.0.15"));
        Path fromProperty = executable("from-property", script("7.0.15"));
        assertEquals(
                fromEnv.toAbsolutePath(),
                RedisBinary.locate(
                        env(fromEnv), props(RedisBinary.SYSTEM_PROPERTY, fromProperty.toString()), dir.resolve("bin")));
    }

    /** A shell script that answers {@code --version} as redis-server does. */
    private static String script(String version) {
        return "#!/bin/sh\necho \"Redis server v=" + version + " sha=00000000:0 malloc=libc bits=64 build=0\"\n";
    }

    private Path executable(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        assertTrue(p.toFile().setExecutable(true, false));
        return p;
    }

    private Path bundle(Map<String, String> entries) throws IOException {
        Path jar = dir.resolve("bundle.jar");
        try (OutputStream out = Files.newOutputStream(jar);
                ZipOutputStream zip = new ZipOutputStream(out)) {
            for (Map.Entry<String, String> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue().getBytes(StandardCharsets.UTF_8));
                zip.closeEntry();
            }
        }
        return jar;
    }

    private static UnaryOperator<String> none() {
        return name -> null;
    }

    private static UnaryOperator<String> env(Path binary) {
        return name -> RedisBinary.ENV_VAR.equals(name) ? binary.toString() : null;
    }

    private static UnaryOperator<String> props(String... keyValues) {
        Map<String, String> map = new java.util.HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        return map::get;
    }
}
