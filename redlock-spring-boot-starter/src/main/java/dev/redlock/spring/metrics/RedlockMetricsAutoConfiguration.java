/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.metrics;

import dev.redlock.RedlockClient;
import dev.redlock.micrometer.RedlockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Meters for the Redlock client when Micrometer and {@code redlock-micrometer} are on the classpath and the
 * application has a {@link MeterRegistry}: a {@link RedlockMetrics} bean, which the client auto-configuration adds as
 * a listener like every {@link dev.redlock.RedlockListener} bean, and its gauges bound to the {@link RedlockClient}
 * bean once every singleton exists. (An application's own client bean gets the gauges; it hears the other meters if it
 * adds the {@code RedlockMetrics} bean as its listener.)
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        },
        beforeName = "dev.redlock.spring.RedlockAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, RedlockMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
public class RedlockMetricsAutoConfiguration {

    /**
     * Creates the auto-configuration.
     */
    public RedlockMetricsAutoConfiguration() {}

    /**
     * The meters' listener.
     *
     * @param registry the application's meter registry
     * @return the listener, added to the auto-configured client
     */
    @Bean
    @ConditionalOnMissingBean
    public RedlockMetrics redlockMetrics(MeterRegistry registry) {
        return new RedlockMetrics(registry);
    }

    /**
     * Binds the gauges of held and watched leases to the client bean, once it exists.
     *
     * @param metrics the meters' listener
     * @param client the client bean, if any
     * @return the binder, run after every singleton was created
     */
    @Bean
    public SmartInitializingSingleton redlockMetricsGauges(
            RedlockMetrics metrics, ObjectProvider<RedlockClient> client) {
        return () -> client.ifAvailable(metrics::bindTo);
    }
}
