/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority, a server certificate and a client certificate, made when a test runs (nothing is checked
 * in), written as PEM files for {@code redis-server} and as PKCS#12 stores for Java clients.
 *
 * <p>The server certificate names {@code 127.0.0.1} and {@code localhost} unless other names are given; its validity
 * can be set to the past to test expiry. Two instances have different authorities, so one's trust store does not
 * trust the other's server. Keys are EC P-256. Immutable once made; safe to share between threads.
 */
public final class TlsCertificates {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    /** The password of the PKCS#12 stores: test material only. */
    private static final String STORE_PASSWORD = "changeit";

    private final Path dir;
    private final X509Certificate ca;
    private final X509Certificate server;
    private final X509Certificate client;
    private final KeyPair clientKeys;

    private TlsCertificates(
            Path dir, X509Certificate ca, X509Certificate server, X509Certificate client, KeyPair clientKeys) {
        this.dir = dir;
        this.ca = ca;
        this.server = server;
        this.client = client;
        this.clientKeys = clientKeys;
    }

    /**
     * Makes a new authority with a server certificate for {@code 127.0.0.1} and {@code localhost}, valid from a day
     * ago for a day, and a client certificate, in a new directory under {@code target/tls}.
     *
     * @return the material
     * @throws IllegalStateException if the certificates cannot be made or written
     */
    public static TlsCertificates generate() {
        return builder().build();
    }

    /**
     * Returns a builder for material with other server names or validity.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings of the server certificate. Not thread-safe. */
    public static final class Builder {
        private final List<String> serverNames = new ArrayList<>(List.of("127.0.0.1", "localhost"));
        private Instant notBefore = Instant.now().minus(Duration.ofDays(1));
        private Instant notAfter = Instant.now().plus(Duration.ofDays(1));

        private Builder() {}

        /**
         * Sets the names the server certificate lists (IP addresses or DNS names), replacing the defaults.
         *
         * @param names the subject alternative names
         * @return this builder
         */
        public Builder serverNames(String... names) {
            serverNames.clear();
            serverNames.addAll(List.of(names));
            return this;
        }

        /**
         * Makes the server certificate expired: valid from two days ago until one day ago.
         *
         * @return this builder
         */
        public Builder expiredServer() {
            notBefore = Instant.now().minus(Duration.ofDays(2));
            notAfter = Instant.now().minus(Duration.ofDays(1));
            return this;
        }

        /**
         * Makes and writes the material.
         *
         * @return the material
         * @throws IllegalStateException if it cannot be made or written
         */
        public TlsCertificates build() {
            try {
                Path dir = Files.createTempDirectory(
                        Files.createDirectories(Path.of("target", "tls").toAbsolutePath()), "certs-");
                Instant now = Instant.now();
                KeyPair caKeys = keyPair();
                X500Name caName = new X500Name("CN=redlock test CA " + SERIAL.get());
                X509Certificate ca = sign(
                        caName,
                        caKeys,
                        caName,
                        caKeys.getPublic(),
                        now.minus(Duration.ofDays(1)),
                        now.plus(Duration.ofDays(2)),
                        true,
                        null,
                        null);
                KeyPair serverKeys = keyPair();
                X509Certificate server = sign(
                        caName,
                        caKeys,
                        new X500Name("CN=redis-server"),
                        serverKeys.getPublic(),
                        notBefore,
                        notAfter,
                        false,
                        serverNames,
                        KeyPurposeId.id_kp_serverAuth);
                KeyPair clientKeys = keyPair();
                X509Certificate client = sign(
                        caName,
                        caKeys,
                        new X500Name("CN=redlock client"),
                        clientKeys.getPublic(),
                        now.minus(Duration.ofDays(1)),
                        now.plus(Duration.ofDays(1)),
                        false,
                        null,
                        KeyPurposeId.id_kp_clientAuth);
                TlsCertificates t = new TlsCertificates(dir, ca, server, client, clientKeys);
                pem(dir.resolve("ca.crt"), ca);
                pem(dir.resolve("server.crt"), server);
                pem(dir.resolve("server.key"), new JcaPKCS8Generator(serverKeys.getPrivate(), null));
                pem(dir.resolve("client.crt"), client);
                pem(dir.resolve("client.key"), new JcaPKCS8Generator(clientKeys.getPrivate(), null));
                t.store(dir.resolve("truststore.p12"), false);
                t.store(dir.resolve("keystore.p12"), true);
                return t;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write test certificates", e);
            } catch (GeneralSecurityException | OperatorCreationException e) {
                throw new IllegalStateException("cannot make test certificates", e);
            }
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256, RANDOM);
        return g.generateKeyPair();
    }

    private static X509Certificate sign(
            X500Name issuer,
            KeyPair issuerKeys,
            X500Name subject,
            java.security.PublicKey key,
            Instant from,
            Instant to,
            boolean isCa,
            List<String> names,
            KeyPurposeId purpose)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(
                issuer, BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(from), Date.from(to), subject, key);
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
        if (isCa) {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
        }
        if (names != null && !names.isEmpty()) {
            GeneralName[] gn = new GeneralName[names.size()];
            for (int i = 0; i < gn.length; i++) {
                String n = names.get(i);
                gn[i] = isIpLiteral(n)
                        ? new GeneralName(GeneralName.iPAddress, n)
                        : new GeneralName(GeneralName.dNSName, n);
            }
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(gn));
        }
        ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate());
        return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    }

    private static boolean isIpLiteral(String name) {
        if (!name.matches("[0-9.]+") && !name.contains(":")) {
            return false;
        }
        try {
            InetAddress.getByName(name); // a literal: no lookup
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void pem(Path file, Object object) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, UTF_8);
                JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(object);
        }
    }

    /** A private key as PKCS#8 ({@code BEGIN PRIVATE KEY}), with its curve, which every OpenSSL reads. */
    private static void pem(Path file, JcaPKCS8Generator key) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, UTF_8);
                JcaPEMWriter pem = new JcaPEMWriter(w)) {
            pem.writeObject(key);
        }
    }

    private void store(Path file, boolean withClientKey) throws IOException, GeneralSecurityException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        if (withClientKey) {
            ks.setKeyEntry(
                    "client", clientKeys.getPrivate(), STORE_PASSWORD.toCharArray(), new Certificate[] {client, ca});
        } else {
            ks.setCertificateEntry("ca", ca);
        }
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, STORE_PASSWORD.toCharArray());
        }
    }

    /**
     * Returns the directory holding the files.
     *
     * @return the absolute directory
     */
    public Path dir() {
        return dir;
    }

    /**
     * Returns the authority's certificate, PEM ({@code tls-ca-cert-file} of the server).
     *
     * @return the file
     */
    public Path caCertificate() {
        return dir.resolve("ca.crt");
    }

    /**
     * Returns the server's certificate, PEM.
     *
     * @return the file
     */
    public Path serverCertificate() {
        return dir.resolve("server.crt");
    }

    /**
     * Returns the server's private key, PEM (PKCS#8).
     *
     * @return the file
     */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** The client's certificate, PEM, made for client authentication (a cluster node's outgoing bus links). */
    Path clientCertificate() {
        return dir.resolve("client.crt");
    }

    /** The client's private key, PEM (PKCS#8). */
    Path clientKey() {
        return dir.resolve("client.key");
    }

    /**
     * Returns a PKCS#12 trust store holding the authority's certificate.
     *
     * @return the file; its password is {@link #storePassword()}
     */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /**
     * Returns a PKCS#12 key store holding the client's key and certificate chain, for mutual TLS.
     *
     * @return the file; its password is {@link #storePassword()}
     */
    public Path keyStore() {
        return dir.resolve("keystore.p12");
    }

    /**
     * Returns the password of both stores.
     *
     * @return the password
     */
    public String storePassword() {
        return STORE_PASSWORD;
    }

    /**
     * Returns the authority's certificate.
     *
     * @return the certificate
     */
    public X509Certificate authority() {
        return ca;
    }

    /**
     * Returns a TLS context that trusts the authority and presents the client certificate when asked.
     *
     * @return a new context
     * @throws IllegalStateException if the context cannot be made
     */
    public SSLContext clientContext() {
        return context(true);
    }

    /**
     * Returns a TLS context that presents the client certificate and accepts any server certificate: for the kit's
     * own connections to servers whose certificates are meant to fail (expired, for another host). Never for the
     * code under test.
     *
     * @return a new context
     * @throws IllegalStateException if the context cannot be made
     */
    public SSLContext uncheckedClientContext() {
        return context(false);
    }

    private SSLContext context(boolean checked) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            javax.net.ssl.TrustManager[] trustManagers =
                    checked ? tmf.getTrustManagers() : new javax.net.ssl.TrustManager[] {new AnyServer()};
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            PrivateKey key = clientKeys.getPrivate();
            keys.setKeyEntry("client", key, STORE_PASSWORD.toCharArray(), new Certificate[] {client, ca});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, STORE_PASSWORD.toCharArray());
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), trustManagers, RANDOM);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a TLS context from the test certificates", e);
        }
    }

    /**
     * Accepts every server certificate (the kit's own health checks only). Extended, so that the JDK adds no host name
     * check of its own when the connection asks for one.
     */
    private static final class AnyServer extends javax.net.ssl.X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            throw new UnsupportedOperationException("client side only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, java.net.Socket socket) {
            throw new UnsupportedOperationException("client side only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine) {
            throw new UnsupportedOperationException("client side only");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            // Deliberately accepts: see uncheckedClientContext.
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, java.net.Socket socket) {
            // Deliberately accepts: see uncheckedClientContext.
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, javax.net.ssl.SSLEngine engine) {
            // Deliberately accepts: see uncheckedClientContext.
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    @Override
    public String toString() {
        return "TlsCertificates[" + dir + "]";
    }
}
