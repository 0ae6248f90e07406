/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.RedlockListener;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configures a {@link RedlockClient} from the {@code redlock.*} properties ({@link RedlockProperties}), unless
 * the application defines its own {@code RedlockClient} bean or sets {@code redlock.enabled=false}.
 *
 * <p>The client is built from {@link RedlockProperties#toConfigBuilder()}, then every {@link RedlockListener} bean
 * is added as a listener, then every {@link RedlockConfigCustomizer} bean adjusts the builder, both in order. The
 * bean is closed with the application context. Creating it checks the topology unless
 * {@code redlock.check-topology=false}, which blocks for up to one connect timeout per node that does not answer; with
 * {@code redlock.strict-topology=true} a warning fails the context.
 *
 * <p>A setting that cannot work fails startup with a {@link RedlockPropertyException} naming its {@code redlock.*}
 * property, and so does a duration given without a unit ({@code lease-time: 30}; only {@code 0} may omit it). Spring
 * Boot reports either, and a value that cannot be read at all, as a failure analysis: the property, what is wrong,
 * the allowed values, where the value came from and what to change.
 *
 * <p>The health indicator ({@code RedlockHealthContributorAutoConfiguration}) and the Spring Integration lock
 * registry ({@code RedlockIntegrationAutoConfiguration}) are separate auto-configurations that apply to any
 * {@code RedlockClient} bean, this one or the application's.
 */
@AutoConfiguration
@ConditionalOnClass(RedlockClient.class)
@ConditionalOnBooleanProperty(name = "redlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedlockProperties.class)
public class RedlockAutoConfiguration {

    /**
     * Creates the auto-configuration.
     */
    public RedlockAutoConfiguration() {}

    /**
     * Refuses a duration without a unit in the {@code redlock.*} properties when they are bound: {@code lease-time: 30}
     * fails startup with a {@link RedlockPropertyException} asking for {@code 30s} or {@code 30ms}, instead of being
     * read as 30 milliseconds. A bare {@code 0} is accepted. Other properties of the application are left alone.
     *
     * @param environment resolves placeholders in the values
     * @return the advisor, applied by Spring Boot to every {@code @ConfigurationProperties} binding
     */
    @Bean
    public static ConfigurationPropertiesBindHandlerAdvisor redlockDurationUnits(Environment environment) {
        return new RedlockDurationUnits(environment);
    }

    /**
     * The client, built from the properties, the listener beans and the customizers.
     *
     * @param properties the {@code redlock.*} properties
     * @param listeners {@link RedlockListener} beans, added in order
     * @param customizers {@link RedlockConfigCustomizer} beans, applied in order after the listeners
     * @param sslBundles the application's SSL bundles, for {@code redlock.tls.bundle}
     * @param environment for {@code spring.application.name}, the client's name unless {@code redlock.client-name}
     *     gives one
     * @return a started client; the context closes it
     * @throws RedlockPropertyException if a setting is invalid, naming the {@code redlock.*} property
     * @throws IllegalStateException if {@code redlock.strict-topology} is on and the topology check found a problem
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RedlockClient redlockClient(
            RedlockProperties properties,
            ObjectProvider<RedlockListener> listeners,
            ObjectProvider<RedlockConfigCustomizer> customizers,
            ObjectProvider<org.springframework.boot.ssl.SslBundles> sslBundles,
            Environment environment) {
        RedlockConfig config;
        boolean customized = customizers.orderedStream().findAny().isPresent();
        try {
            RedlockConfig.Builder builder = properties.toConfigBuilder();
            String application = environment.getProperty("spring.application.name");
            if (properties.getClientName() == null && application != null && !application.isBlank()) {
                builder.clientName(
                        application.length() > RedlockConfig.MAX_CLIENT_NAME_LENGTH
                                ? application.substring(0, RedlockConfig.MAX_CLIENT_NAME_LENGTH)
                                : application);
            }
            String bundle = properties.getTls().getBundle();
            if (bundle != null && !bundle.isBlank()) {
                builder.sslContext(sslContext(bundle, properties, sslBundles.getIfAvailable()));
            }
            listeners.orderedStream().forEach(builder::listener);
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            config = builder.build();
        } catch (IllegalArgumentException e) {
            throw describe(e, customized);
        }
        return RedlockClient.create(config);
    }

    /** The TLS context of the named SSL bundle ({@code redlock.tls.bundle}); store files may not be given too. */
    private static javax.net.ssl.SSLContext sslContext(
            String name, RedlockProperties properties, org.springframework.boot.ssl.SslBundles bundles) {
        RedlockProperties.Tls tls = properties.getTls();
        if (tls.getTrustStore() != null || tls.getKeyStore() != null) {
            throw new IllegalArgumentException(
                    "sslContext: give either redlock.tls.bundle or redlock.tls.trust-store / key-store, not both");
        }
        if (bundles == null) {
            throw new IllegalArgumentException("sslContext: redlock.tls.bundle=" + name + " but the application has"
                    + " no SSL bundles (spring.ssl.bundle.*)");
        }
        try {
            return bundles.getBundle(name).createSslContext();
        } catch (org.springframework.boot.ssl.NoSuchSslBundleException e) {
            throw new IllegalArgumentException("sslContext: no SSL bundle named '" + name + "'; define it under"
                    + " spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name);
        }
    }

    /**
     * Names the property behind a builder's message: "perNodeTimeout: must be below leaseTime ..." becomes
     * "redlock.per-node-timeout: must be below redlock.lease-time ...".
     */
    static RedlockPropertyException describe(IllegalArgumentException e, boolean customized) {
        RedlockPropertyException described =
                e instanceof RedlockPropertyException known ? known : RedlockPropertyException.of(e);
        return customized && described.property().isPresent()
                ? described.withMoreAction("If a RedlockConfigCustomizer bean sets it, correct it there.")
                : described;
    }
}
