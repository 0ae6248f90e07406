/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The container backend: the same workload against five {@code redis:7} containers, one of them paused with
 * {@code docker pause}. Runs only when asked for with {@code -Dchaos.backend=testcontainers} and a Docker engine is
 * reachable; otherwise it is skipped with a message saying which of the two is missing. The default backend is the
 * embedded redis-server processes every other scenario uses.
 */
class ContainerBackendTest {

    @Test
    void workloadAgainstRedisContainers() throws Exception {
        Assumptions.assumeTrue(
                "testcontainers".equals(System.getProperty("chaos.backend")),
                "container backend not requested: run with -Dchaos.backend=testcontainers to use redis:7 containers");
        Assumptions.assumeTrue(
                DockerClientFactory.instance().isDockerAvailable(),
                "-Dchaos.backend=testcontainers was given but no Docker engine is reachable from this machine");
        long seed = ChaosTestBase.seed("containers");
        List<GenericContainer<?>> containers = new ArrayList<>();
        try {
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);
                c.start();
                containers.add(c);
                uris.add("redis://" + c.getHost() + ":" + c.getMappedPort(6379));
            }
            History history = new History();
            GenericContainer<?> victim = containers.get((int) Math.floorMod(seed, 5L));
            Nemesis nemesis = new Nemesis()
                    .at(
                            Duration.ofSeconds(1),
                            "docker pause " + victim.getContainerId(),
                            () -> DockerClientFactory.instance()
                                    .client()
                                    .pauseContainerCmd(victim.getContainerId())
                                    .exec())
                    .at(
                            Duration.ofSeconds(3),
                            "docker unpause " + victim.getContainerId(),
                            () -> DockerClientFactory.instance()
                                    .client()
                                    .unpauseContainerCmd(victim.getContainerId())
                                    .exec());
            nemesis.start(System.nanoTime());
            LockWorkload.Result result =
                    LockWorkload.run(uris, new LockWorkload.Settings().duration(Duration.ofSeconds(5)), history, seed);
            nemesis.join(Duration.ofSeconds(30));
            assertTrue(new MutualExclusionChecker().check(history).isValid());
            assertTrue(result.crashes().isEmpty(), result.crashes()::toString);
            try (RedlockClient c = RedlockClient.create(uris.toArray(new String[0]))) {
                try (Lease l = c.redLock("containers").tryAcquire().orElseThrow()) {
                    assertTrue(l.isValid());
                }
            }
        } finally {
            containers.forEach(GenericContainer::stop);
        }
    }
}
