/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.redlock.RedlockClient;
import dev.redlock.testkit.RedisServer;
import dev.redlock.testkit.TlsCertificates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code rediss://} nodes from Spring properties, against real TLS-only servers: trust from {@code redlock.tls.*}
 * store files or from a Spring Boot SSL bundle, and a bad setting fails the context naming the property.
 */
class RedlockTlsPropertiesTest {

    private static TlsCertificates certs;
    private static final List<RedisServer> SERVERS = new ArrayList<>();

    @BeforeAll
    static void start() {
        certs = TlsCertificates.generate();
        for (int i = 0; i < 3; i++) {
            SERVERS.add(RedisServer.startTls(certs));
        }
    }

    @AfterAll
    static void stop() {
        SERVERS.forEach(RedisServer::close);
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RedlockAutoConfiguration.class))
            .withPropertyValues(
                    TestNodes.properties(SERVERS.stream().map(RedisServer::uri).toList()));

    private static void takesALock(RedlockClient client) throws InterruptedException {
        dev.redlock.AcquireResult r =
                client.redLock("spring-tls").attempt(Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(r.acquired()).as(r.toString()).isTrue();
        r.lease().orElseThrow().release();
    }

    @Test
    void trustStorePropertiesReachTlsNodes() {
        runner.withPropertyValues(
                        "redlock.tls.trust-store=" + certs.trustStore(),
                        "redlock.tls.trust-store-password=" + certs.storePassword())
                .run(context -> takesALock(context.getBean(RedlockClient.class)));
    }

    @Test
    void aSpringSslBundleReachesTlsNodes() {
        runner.withPropertyValues(
                        "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certs.caCertificate(),
                        "redlock.tls.bundle=redis")
                .run(context -> takesALock(context.getBean(RedlockClient.class)));
    }

    @Test
    void badTlsSettingsFailNamingTheProperty() {
        runner.withPropertyValues("redlock.tls.trust-store=/no/such/truststore.p12")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "redlock.tls.trust-store: /no/such/truststore.p12 is not a readable file"));
        runner.withPropertyValues("redlock.tls.bundle=missing")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("redlock.tls.bundle: no SSL bundle named 'missing'"));
    }
}
