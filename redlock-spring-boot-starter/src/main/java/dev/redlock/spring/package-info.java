/**
 * Spring Boot auto-configuration for Redlock: a {@link dev.redlock.RedlockClient} bean built from the
 * {@code redlock.*} properties ({@link dev.redlock.spring.RedlockProperties}), adjustable with
 * {@link dev.redlock.spring.RedlockConfigCustomizer} beans.
 */
package dev.redlock.spring;
