/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * How this client speaks TLS to {@code rediss://} nodes: the context (trusted authorities, the client's own key for
 * mutual TLS) and whether the server's certificate must name the host the node was given by. Immutable.
 */
public final class TlsSetup {

    private final SSLContext context;
    private final boolean verifyHostname;
    private final String description;

    private TlsSetup(SSLContext context, boolean verifyHostname, String description) {
        this.context = context;
        this.verifyHostname = verifyHostname;
        this.description = description;
    }

    /**
     * The context of the settings given: a caller's context as is, else one from the trust store (or the JDK's
     * default authorities) and the key store (or no client certificate).
     *
     * @throws IllegalArgumentException naming the field, if a store cannot be read or holds nothing usable
     */
    public static TlsSetup of(
            SSLContext given,
            Path trustStore,
            char[] trustPassword,
            Path keyStore,
            char[] keyPassword,
            boolean verify) {
        if (given != null) {
            return new TlsSetup(given, verify, "sslContext=" + given.getProtocol() + ", verifyHostname=" + verify);
        }
        if (trustStore == null && keyStore == null) {
            try {
                return new TlsSetup(
                        SSLContext.getDefault(), verify, "the JDK's default trust, verifyHostname=" + verify);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("the JDK has no default TLS context: " + e.getMessage(), e);
            }
        }
        try {
            TrustManagerFactory tmf = null;
            if (trustStore != null) {
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(load("tlsTrustStore", trustStore, trustPassword, true));
            }
            KeyManagerFactory kmf = null;
            if (keyStore != null) {
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                KeyStore keys = load("tlsKeyStore", keyStore, keyPassword, false);
                try {
                    kmf.init(keys, keyPassword == null ? new char[0] : keyPassword);
                } catch (GeneralSecurityException e) {
                    throw new IllegalArgumentException("tlsKeyStore: cannot read the private key in " + keyStore
                            + " with the password given (" + e.getClass().getSimpleName() + ")");
                }
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return new TlsSetup(
                    ctx,
                    verify,
                    "tlsTrustStore=" + (trustStore == null ? "the JDK's default" : trustStore) + ", tlsKeyStore="
                            + (keyStore == null ? "none" : keyStore) + ", verifyHostname=" + verify);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * Reads a PKCS#12 or JKS store, or (for trust) PEM certificates.
     *
     * @throws IllegalArgumentException naming the field: unreadable, wrong password, or nothing in it
     */
    private static KeyStore load(String field, Path file, char[] password, boolean trust) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(field + ": " + file + " is not a readable file");
        }
        try {
            if (trust && isPem(file)) {
                KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
                ks.load(null, null);
                List<? extends Certificate> certs;
                try (InputStream in = Files.newInputStream(file)) {
                    certs = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
                }
                if (certs.isEmpty()) {
                    throw new IllegalArgumentException(field + ": " + file + " holds no PEM certificate");
                }
                for (int i = 0; i < certs.size(); i++) {
                    ks.setCertificateEntry("ca-" + i, certs.get(i));
                }
                return ks;
            }
            KeyStore ks;
            try {
                ks = KeyStore.getInstance(file.toFile(), password);
            } catch (IOException e) {
                // The JDK reports a wrong password as an IOException caused by UnrecoverableKeyException.
                throw new IllegalArgumentException(field + ": cannot open " + file + " ("
                        + (e.getCause() instanceof java.security.UnrecoverableKeyException
                                ? "wrong password"
                                : e.getMessage())
                        + "); give a PKCS#12 or JKS store" + (trust ? " or PEM certificates" : "")
                        + " and its password");
            }
            if (ks.size() == 0) {
                throw new IllegalArgumentException(field + ": " + file + " is empty");
            }
            return ks;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    field + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                            + "); give a PKCS#12 or JKS store" + (trust ? " or PEM certificates" : ""));
        }
    }

    private static boolean isPem(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(64);
            return new String(head, StandardCharsets.US_ASCII).contains("-----BEGIN");
        }
    }

    /** A client-mode engine for one node; the server's certificate must name {@code host} if verification is on. */
    SSLEngine engine(String host, int port) {
        SSLEngine engine = context.createSSLEngine(stripBrackets(host), port);
        engine.setUseClientMode(true);
        engine.setSSLParameters(parameters(host));
        return engine;
    }

    /** The parameters a connection to {@code host} uses: host name verification and SNI for a DNS name. */
    public SSLParameters parameters(String host) {
        SSLParameters p = context.getDefaultSSLParameters();
        String h = stripBrackets(host);
        if (verifyHostname) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!isIpLiteral(h)) {
            try {
                p.setServerNames(List.of(new SNIHostName(h)));
            } catch (IllegalArgumentException e) {
                // Not a valid DNS name for SNI (an odd host alias): connect without SNI.
            }
        }
        return p;
    }

    /** The context, for clients that open their own sockets. */
    public SSLContext context() {
        return context;
    }

    public boolean verifyHostname() {
        return verifyHostname;
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static boolean isIpLiteral(String h) {
        return h.contains(":") || h.matches("[0-9.]+");
    }

    /**
     * What went wrong with a TLS connection, as a sentence a user can act on; null if {@code e} is not a TLS failure
     * this recognises. Never includes a credential: only the node's name and the JDK's certificate diagnostics.
     */
    static String explain(String node, Throwable e) {
        String all = chain(e);
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertificateExpiredException) {
                return "TLS handshake with " + node + " failed: the server's certificate has expired (" + t.getMessage()
                        + "); renew the server's certificate";
            }
            if (t instanceof CertificateNotYetValidException) {
                return "TLS handshake with " + node + " failed: the server's certificate is not valid yet ("
                        + t.getMessage() + "); check the server's certificate and both machines' clocks";
            }
        }
        String lower = all.toLowerCase(Locale.ROOT);
        if (lower.contains("no subject alternative") || lower.contains("no name matching")) {
            return "TLS handshake with " + node + " failed: the server's certificate does not name this host ("
                    + firstLine(all) + "); connect by a name the certificate lists, or turn host name verification "
                    + "off (tlsVerifyHostname(false))";
        }
        if (lower.contains("pkix path") || lower.contains("unable to find valid certification path")) {
            return "TLS handshake with " + node + " failed: the server's certificate is not signed by a trusted "
                    + "authority; give the authority's certificate with tlsTrustStore (redlock.tls.trust-store)";
        }
        if (lower.contains("certificate_required")
                || lower.contains("bad_certificate")
                || lower.contains("handshake_failure") && lower.contains("received fatal alert")) {
            return "TLS handshake with " + node + " failed: the server refused this client's certificate or needs "
                    + "one (" + firstLine(all) + "); give a client certificate with tlsKeyStore "
                    + "(redlock.tls.key-store) signed by an authority the server trusts";
        }
        if (lower.contains("unsupported or unrecognized ssl message") || lower.contains("plaintext connection")) {
            return "TLS handshake with " + node + " failed: the server answered in plain text, it does not speak "
                    + "TLS on this port; use redis:// for it, or the server's TLS port";
        }
        if (e instanceof javax.net.ssl.SSLException) {
            return "TLS with " + node + " failed: " + firstLine(all);
        }
        return null;
    }

    private static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (b.length() > 0) {
                b.append(" <- ");
            }
            b.append(t.getMessage());
        }
        return b.toString();
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    @Override
    public String toString() {
        return "TLS{" + description + "}";
    }
}
