/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.integration;

import dev.redlock.RedlockClient;
import dev.redlock.spring.RedlockAutoConfiguration;
import dev.redlock.spring.RedlockProperties;
import dev.redlock.spring.RedlockPropertyException;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Auto-configures a {@link RedlockLockRegistry} when Spring Integration is on the classpath and a
 * {@link RedlockClient} bean exists, unless the application defines a {@link LockRegistry} of its own or sets
 * {@code redlock.integration.enabled=false}. Its leases live for {@code redlock.integration.lease-time} (default:
 * {@code redlock.lease-time}).
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(RedlockClient.class)
@ConditionalOnBooleanProperty(name = "redlock.integration.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockProperties.class)
public class RedlockIntegrationAutoConfiguration {

    /**
     * Creates the auto-configuration.
     */
    public RedlockIntegrationAutoConfiguration() {}

    /**
     * The lock registry.
     *
     * @param client the client whose nodes hold the locks
     * @param properties the {@code redlock.integration.*} settings
     * @return the registry
     * @throws RedlockPropertyException if {@code redlock.integration.lease-time} can never yield a lease with the
     *     client's settings
     */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    public RedlockLockRegistry redlockLockRegistry(RedlockClient client, RedlockProperties properties) {
        Duration leaseTime = properties.getIntegration().getLeaseTime();
        if (leaseTime == null) {
            return new RedlockLockRegistry(client);
        }
        try {
            return new RedlockLockRegistry(client, leaseTime);
        } catch (IllegalArgumentException e) {
            throw RedlockPropertyException.of("redlock.integration.lease-time", e);
        }
    }
}
