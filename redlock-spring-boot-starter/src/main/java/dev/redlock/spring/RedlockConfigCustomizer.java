/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import dev.redlock.RedlockConfig;

/**
 * A bean that adjusts the {@link RedlockConfig.Builder} from which the auto-configured
 * {@link dev.redlock.RedlockClient} is built, after the {@code redlock.*} properties and the
 * {@link dev.redlock.RedlockListener} beans were applied. Use it for settings that have no property: nodes given as
 * the application's own clients ({@link RedlockConfig.Builder#node(String, dev.redlock.NodeTransport)}, e.g. Jedis through {@code redlock-jedis}), the async executor,
 * the wall clock, or listeners that are not beans.
 *
 * <pre>{@code
 * @Bean
 * RedlockConfigCustomizer redlockExecutor(Executor applicationTaskExecutor) {
 *     return builder -> builder.asyncExecutor(applicationTaskExecutor);
 * }
 * }</pre>
 *
 * <p>Customizers run in {@link org.springframework.core.annotation.Order @Order} /
 * {@link org.springframework.core.Ordered} order. A customizer must not depend on the {@code RedlockClient} bean it
 * helps to build.
 */
@FunctionalInterface
public interface RedlockConfigCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder, holding the properties' settings; its setters validate at once
     */
    void customize(RedlockConfig.Builder builder);
}
