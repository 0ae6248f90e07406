/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.actuate;

import dev.redlock.RedlockClient;
import dev.redlock.spring.RedlockAutoConfiguration;
import dev.redlock.spring.RedlockProperties;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures the {@code redlock} health indicator ({@link RedlockHealthIndicator}) when Spring Boot Actuator is
 * on the classpath and a {@link RedlockClient} bean exists. Switched off with
 * {@code management.health.redlock.enabled=false}; replaced by a bean named {@code redlockHealthIndicator}.
 */
@AutoConfiguration(after = RedlockAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(RedlockClient.class)
@ConditionalOnEnabledHealthIndicator("redlock")
@EnableConfigurationProperties(RedlockProperties.class)
public class RedlockHealthContributorAutoConfiguration {

    /**
     * Creates the auto-configuration.
     */
    public RedlockHealthContributorAutoConfiguration() {}

    /**
     * The health indicator, reported as {@code redlock}.
     *
     * @param client the client
     * @param properties the {@code redlock.health.*} settings
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "redlockHealthIndicator")
    public RedlockHealthIndicator redlockHealthIndicator(RedlockClient client, RedlockProperties properties) {
        return new RedlockHealthIndicator(client, properties.getHealth().getTopologyCheckInterval());
    }
}
