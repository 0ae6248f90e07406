/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.testkit.RedisBinary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/** The machine and the software versions a comparison ran on, for the report header. */
record Machine(
        int cores, String cpu, String os, String jvm, String maxHeap, String redis, String redisson, String jedis) {

    static Machine describe() {
        Runtime rt = Runtime.getRuntime();
        String jvm = System.getProperty("java.vm.name") + " " + Runtime.version() + " ("
                + System.getProperty("java.vm.vendor") + ")";
        String os = System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch");
        String explicitRedis = System.getenv(RedisBinary.ENV_VAR);
        String redis = explicitRedis != null && !explicitRedis.isBlank()
                ? "redis-server from " + RedisBinary.ENV_VAR + "=" + explicitRedis
                : "redis-server " + RedisBinary.VERSION + " (embedded-redis binary)";
        return new Machine(
                rt.availableProcessors(),
                cpuModel(),
                os,
                jvm,
                (rt.maxMemory() >> 20) + " MiB",
                redis,
                mavenVersion("org.redisson", "redisson"),
                mavenVersion("redis.clients", "jedis"));
    }

    String markdown() {
        return "Machine: " + cores + " cores (" + cpu + "), " + os + "; JVM: " + jvm + ", max heap " + maxHeap
                + ".\nServers: 5 x " + redis + " on loopback, no persistence. Clients: Redisson " + redisson
                + ", Jedis " + jedis + ".";
    }

    private static String cpuModel() {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        try {
            if (Files.isReadable(cpuinfo)) {
                for (String line : Files.readAllLines(cpuinfo)) {
                    if (line.startsWith("model name")) {
                        return line.substring(line.indexOf(':') + 1).trim();
                    }
                }
            }
        } catch (IOException e) {
            return "CPU model unknown: " + e.getMessage();
        }
        return "CPU model unknown";
    }

    /** The version recorded in a dependency's {@code pom.properties}, which the shaded jar keeps. */
    private static String mavenVersion(String group, String artifact) {
        String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Machine.class.getResourceAsStream(resource)) {
            if (in == null) {
                return "(version unknown)";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "(version unknown)");
        } catch (IOException e) {
            return "(version unreadable: " + e.getMessage() + ")";
        }
    }
}
