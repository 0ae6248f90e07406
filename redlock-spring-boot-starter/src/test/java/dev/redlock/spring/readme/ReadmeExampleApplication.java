/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.readme;

import java.util.UUID;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The README's example application: the auto-configured client and lock registry, and leader election for the
 * {@code report-scheduler} role.
 */
@SpringBootApplication
public class ReadmeExampleApplication {

    /**
     * Elects one instance of the application as {@code report-scheduler}; the role is the lock's name. The default
     * heartbeat (500 ms) is well under a third of {@code redlock.integration.lease-time} (10 s).
     *
     * @param lockRegistry the auto-configured {@code RedlockLockRegistry}
     * @return the initiator, started with the context
     */
    @Bean
    public LockRegistryLeaderInitiator leaderInitiator(LockRegistry lockRegistry) {
        return new LockRegistryLeaderInitiator(
                lockRegistry, new DefaultCandidate(UUID.randomUUID().toString(), "report-scheduler"));
    }
}
