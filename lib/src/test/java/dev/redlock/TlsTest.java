/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.testkit.RedisServer;
import dev.redlock.testkit.TlsCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code rediss://} nodes over the library's own non-blocking client, against real TLS-only redis-server processes
 * with certificates made for the test: locks, release notifications and mutual TLS work as on plain nodes, and every
 * way a TLS connection can fail (unknown authority, expired certificate, a certificate for another host, a missing
 * client certificate, TLS and plain text on the wrong ports) fails fast, names the node, says what to do, and never
 * shows the password.
 */
class TlsTest {

    private static final String PASSWORD = "tls-s3cret-pw";

    private static TlsCertificates certs;
    private static TlsCertificates otherAuthority;
    private static final List<RedisServer> SERVERS = new ArrayList<>();
    private static List<RedisServer> tls;

    private final List<RedlockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        certs = TlsCertificates.generate();
        otherAuthority = TlsCertificates.generate();
        tls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tls.add(started(RedisServer.startTls(certs, false, List.of("--requirepass", PASSWORD))));
        }
    }

    private static RedisServer started(RedisServer s) {
        SERVERS.add(s);
        return s;
    }

    @AfterAll
    static void stopServers() {
        SERVERS.forEach(RedisServer::close);
        SERVERS.clear();
    }

    @AfterEach
    void closeClients() {
        clients.forEach(RedlockClient::close);
        clients.clear();
    }

    private static String uri(RedisServer s) {
        return "rediss://:" + PASSWORD + "@127.0.0.1:" + s.port();
    }

    private static List<String> uris(List<RedisServer> servers) {
        List<String> u = new ArrayList<>();
        servers.forEach(s -> u.add(uri(s)));
        return u;
    }

    private RedlockClient client(List<String> uris, Consumer<RedlockConfig.Builder> tweak) {
        RedlockConfig.Builder b = RedlockConfig.builder()
                .nodes(uris)
                .restartQuarantine(false)
                .checkTopology(false)
                .perNodeTimeout(Duration.ofMillis(200))
                .connectTimeout(Duration.ofSeconds(2))
                .leaseTime(Duration.ofSeconds(10))
                .retryDelay(Duration.ofMillis(5));
        tweak.accept(b);
        RedlockClient c = RedlockClient.create(b.build());
        clients.add(c);
        return c;
    }

    private RedlockClient trusting(List<String> uris) {
        return client(uris, b -> b.tlsTrustStore(certs.trustStore(), certs.storePassword()));
    }

    // ------------------------------------------------------------------------------------------------ it works

    @Test
    void locksOverTlsNodesAreGrantedExtendedAndReleased() throws Exception {
        RedlockClient c = trusting(uris(tls));
        QuorumLock lock = c.redLock("tls-basic");
        Lease lease =
                lock.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10)).orElseThrow();
        String key = lock.key();
        long holding =
                tls.stream().filter(s -> lease.token().equals(s.get(key))).count();
        // A node that answered after the round had its majority holds the token too.
        assertTrue(holding >= lease.acquisition().granted(), "the token is on every TLS node that granted it");
        assertTrue(lease.extend(Duration.ofSeconds(20)).succeeded(), "extended over TLS");
        assertTrue(lease.release().completion().join().released() >= 2, "released over TLS");
        for (RedisServer s : tls) {
            assertFalse(s.exists(key));
        }
    }

    /**
     * A new client's first round does not race its own TLS handshakes: creating the client waits (at most the connect
     * timeout) until each node's first connection is ready. Seen failing before: the contract suite's first
     * {@code tryAcquireAsync(ZERO)} over TLS timed out on all five nodes while their handshakes ran.
     */
    @Test
    void aNewClientsFirstRoundFindsItsTlsConnectionsReady() throws Exception {
        RedlockClient c = trusting(uris(tls));
        AcquireResult first = c.multiLock("tls-first").attempt(Duration.ZERO, Duration.ofSeconds(10));
        assertTrue(first.acquired(), first::toString);
        first.lease().orElseThrow().release();
    }

    @Test
    void aPemAuthorityFileIsATrustStoreToo() throws Exception {
        RedlockClient c = client(uris(tls), b -> b.tlsTrustStore(certs.caCertificate(), null));
        assertTrue(c.redLock("tls-pem")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .isPresent());
    }

    @Test
    void aCallersSslContextIsUsedAsIs() throws Exception {
        RedlockClient c = client(uris(tls), b -> b.sslContext(certs.clientContext()));
        assertTrue(c.redLock("tls-context")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .isPresent());
    }

    /**
     * Waiters on TLS nodes are woken by the releases they hear, not by polling: they retry only every 30 s, so a
     * waiter that gets the lock within seconds heard the release (before TLS nodes had their own client, they had no
     * notifications at all and this waited 30 s).
     */
    @Test
    void waitersOnTlsNodesAreWokenByReleases() throws Exception {
        RedlockClient holder = trusting(uris(tls));
        RedlockClient waiter = client(
                uris(tls),
                b -> b.tlsTrustStore(certs.trustStore(), certs.storePassword())
                        .retryDelay(Duration.ofSeconds(30))
                        .retryJitter(0));
        Lease lease = holder.redLock("tls-notify")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(60))
                .orElseThrow();
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.redLock("tls-notify").tryAcquire(Duration.ofSeconds(25), Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        String key = holder.redLock("tls-notify").key();
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribed(key) == 3);
        lease.release();
        Optional<Lease> got = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(got.isPresent(), "the waiter got the lock once it heard the release");
        got.get().release();
    }

    /** How many TLS nodes have a subscriber on some channel of the key. */
    private static int subscribed(String key) {
        int n = 0;
        for (RedisServer s : tls) {
            try (var j = s.client()) {
                if (!j.pubsubChannels(key + "*").isEmpty()) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void mutualTlsPresentsTheClientCertificateAndFailsClearlyWithoutOne() throws Exception {
        RedisServer mtls = started(RedisServer.startTls(certs, true, List.of("--requirepass", PASSWORD)));
        RedlockClient with = client(
                List.of(uri(mtls)),
                b -> b.tlsTrustStore(certs.trustStore(), certs.storePassword())
                        .tlsKeyStore(certs.keyStore(), certs.storePassword()));
        assertTrue(with.redLock("mtls")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .isPresent());

        RedlockClient without = trusting(List.of(uri(mtls)));
        String why = failureOf(without);
        assertTrue(why.contains("client certificate") && why.contains("tlsKeyStore"), why);
    }

    // ------------------------------------------------------------------------------------------------ failures

    /**
     * The text of the node's failure, once a round reports it (the first rounds may only see the connection still
     * being set up). Every failure must come within the connect timeout (2 s), name the node and hide the password.
     */
    private static String failureOf(RedlockClient c) {
        String[] last = {""};
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(50))
                .conditionEvaluationListener(e -> {
                    if (e.getRemainingTimeInMS() <= 100) {
                        System.out.println("last failure seen: " + last[0]);
                    }
                })
                .until(() -> {
                    AcquireResult r = c.redLock("tls-failure").attempt(Duration.ZERO, Duration.ofSeconds(10));
                    assertFalse(r.acquired(), "no lock through a failed TLS connection");
                    NodeOutcome n = r.lastRound().nodes().get(0);
                    last[0] = n.error().map(Throwable::getMessage).orElse("");
                    return last[0].contains("TLS ") || last[0].contains("rediss://");
                });
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // A server that says nothing (a TLS client on a plain port) is given up at the connect timeout; the rounds
        // in between may only see their own timeout, and the next connection attempt may take one more.
        assertTrue(
                tookMs < 2 * 2_000 + 1_500, "reported within the connect timeout, not after a hang: " + tookMs + " ms");
        assertTrue(last[0].contains("127.0.0.1:"), "names the node: " + last[0]);
        assertFalse(last[0].contains(PASSWORD), "never the password: " + last[0]);
        return last[0];
    }

    @Test
    void aCertificateFromAnUnknownAuthorityIsRefusedWithTheRemedy() throws Exception {
        RedlockClient c = client(
                uris(tls.subList(0, 1)),
                b -> b.tlsTrustStore(otherAuthority.trustStore(), otherAuthority.storePassword()));
        String why = failureOf(c);
        assertTrue(why.contains("not signed by a trusted authority") && why.contains("tlsTrustStore"), why);
    }

    @Test
    void theJdksDefaultTrustRefusesAPrivateAuthority() throws Exception {
        RedlockClient c = client(uris(tls.subList(0, 1)), b -> {});
        String why = failureOf(c);
        assertTrue(why.contains("not signed by a trusted authority"), why);
    }

    @Test
    void anExpiredServerCertificateIsRefused() throws Exception {
        TlsCertificates expired = TlsCertificates.builder().expiredServer().build();
        RedisServer s = started(RedisServer.startTls(expired, false, List.of("--requirepass", PASSWORD)));
        RedlockClient c = client(List.of(uri(s)), b -> b.tlsTrustStore(expired.trustStore(), expired.storePassword()));
        String why = failureOf(c);
        assertTrue(why.contains("expired"), why);
    }

    @Test
    void aCertificateForAnotherHostIsRefusedUnlessVerificationIsOff() throws Exception {
        TlsCertificates elsewhere =
                TlsCertificates.builder().serverNames("redis.example.org").build();
        RedisServer s = started(RedisServer.startTls(elsewhere, false, List.of("--requirepass", PASSWORD)));
        RedlockClient c =
                client(List.of(uri(s)), b -> b.tlsTrustStore(elsewhere.trustStore(), elsewhere.storePassword()));
        String why = failureOf(c);
        assertTrue(why.contains("does not name this host") && why.contains("tlsVerifyHostname"), why);

        RedlockClient unverified = client(
                List.of(uri(s)),
                b -> b.tlsTrustStore(elsewhere.trustStore(), elsewhere.storePassword())
                        .tlsVerifyHostname(false));
        assertTrue(unverified
                .redLock("tls-any-host")
                .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .isPresent());
    }

    @Test
    void aPlainClientOnATlsPortIsToldToUseRediss() throws Exception {
        RedlockClient c = client(
                List.of("redis://:" + PASSWORD + "@127.0.0.1:" + tls.get(0).port()), b -> {});
        String why = failureOf(c);
        assertTrue(why.contains("rediss://"), why);
    }

    @Test
    void aTlsClientOnAPlainPortIsToldTheServerSpeaksPlainText() throws Exception {
        RedisServer plain = started(RedisServer.start(List.of("--requirepass", PASSWORD)));
        RedlockClient c = client(
                List.of("rediss://:" + PASSWORD + "@127.0.0.1:" + plain.port()),
                b -> b.tlsTrustStore(certs.trustStore(), certs.storePassword()));
        String why = failureOf(c);
        assertTrue(why.contains("not speak TLS on this port") && why.contains("redis://"), why);
    }

    // ------------------------------------------------------------------------------------------------ configuration

    @Test
    void unusableTlsSettingsFailAtBuildNamingTheField() throws Exception {
        Path missing = Path.of("target", "no-such-truststore.p12");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> RedlockConfig.builder()
                        .nodes(uri(tls.get(0)))
                        .tlsTrustStore(missing, "x")
                        .build());
        assertTrue(
                e.getMessage().startsWith("tlsTrustStore: ") && e.getMessage().contains("not a readable file"),
                e.getMessage());

        IllegalArgumentException wrong = assertThrows(
                IllegalArgumentException.class,
                () -> RedlockConfig.builder()
                        .nodes(uri(tls.get(0)))
                        .tlsKeyStore(certs.keyStore(), "not-the-password")
                        .build());
        assertTrue(wrong.getMessage().startsWith("tlsKeyStore: "), wrong.getMessage());
        assertFalse(wrong.getMessage().contains("not-the-password"), wrong.getMessage());

        IllegalArgumentException both = assertThrows(
                IllegalArgumentException.class,
                () -> RedlockConfig.builder()
                        .nodes(uri(tls.get(0)))
                        .sslContext(certs.clientContext())
                        .tlsTrustStore(certs.trustStore(), certs.storePassword())
                        .build());
        assertTrue(both.getMessage().startsWith("sslContext: "), both.getMessage());
    }
}
