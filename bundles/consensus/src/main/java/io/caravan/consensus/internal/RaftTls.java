package io.caravan.consensus.internal;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Instant;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

import io.caravan.tls.ReloadableTls;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;

/**
 * Mutual TLS on the Raft port: this process's key pair (EC P-256, generated at start, only ever in memory) with its
 * {@link PeerCertificate}, and a trust manager that accepts exactly the peers whose certificate is bound to the same
 * secret. Used on every gRPC channel Ratis opens or accepts (server, admin, client). With the agent's TLS
 * ({@code tls.rpc}), {@link #parameters(ReloadableTls)} replaces it.
 */
final class RaftTls {
    /** Only in memory; a key store needs some password. */
    private static final char[] STORE_PASSWORD = "caravan-raft".toCharArray();

    private final KeyManager keyManager;
    private final X509ExtendedTrustManager trustManager;
    private final X509Certificate certificate;

    private RaftTls(KeyManager keyManager, X509ExtendedTrustManager trustManager, X509Certificate certificate) {
        this.keyManager = keyManager;
        this.trustManager = trustManager;
        this.certificate = certificate;
    }

    /** A new key pair and certificate bound to {@code secret}; peers are checked against the same secret. */
    static RaftTls generate(byte[] secret) {
        return generate(secret, secret, Instant.now());
    }

    /**
     * @param certificateSecret what this process's certificate is bound to
     * @param trustedSecret what peers' certificates must be bound to; differs from the first only in tests
     */
    static RaftTls generate(byte[] certificateSecret, byte[] trustedSecret, Instant now) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair keys = generator.generateKeyPair();
            X509Certificate certificate = PeerCertificate.create(keys, certificateSecret, now);
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("raft", keys.getPrivate(), STORE_PASSWORD, new X509Certificate[] {certificate});
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, STORE_PASSWORD);
            return new RaftTls(factory.getKeyManagers()[0],
                    new PeerTrustManager(trustedSecret.clone(), Clock.systemUTC()), certificate);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("Cannot create the Raft TLS identity", e);
        }
    }

    X509Certificate certificate() {
        return certificate;
    }

    X509ExtendedTrustManager trustManager() {
        return trustManager;
    }

    /** The Ratis parameters that put every gRPC channel (server, admin, client) under mutual TLS. */
    Parameters parameters() {
        return parameters(GrpcTlsConfig.newBuilder().setKeyManager(keyManager).setTrustManager(trustManager));
    }

    /**
     * Mutual TLS with the agent's certificate ({@code tls.rpc}) instead: peers must chain to its CA and be servers of
     * the region ({@code server.<region>.nomad}) in both directions, so a client's certificate opens no Raft channel.
     * The managers read the certificates in force at each handshake: a reload applies to new channels.
     * {@code tls_min_version} and {@code tls_cipher_suites} apply here as on the RPC and HTTP ports.
     */
    static Parameters parameters(ReloadableTls agent) {
        GrpcTlsConfig.Builder tls = GrpcTlsConfig.newBuilder().setKeyManager(agent.keyManager())
                .setTrustManager(agent.trustManager(true));
        tls.setProtocols(agent.settings().protocols());
        String[] suites = agent.settings().jdkCipherSuites();
        if (suites != null) {
            tls.setCipherSuites(suites);
        }
        return parameters(tls);
    }

    private static Parameters parameters(GrpcTlsConfig.Builder builder) {
        // The JDK's TLS, not OpenSSL: the bundle leaves netty's native libraries out (STACK.md §5).
        GrpcTlsConfig tls = builder.setMutualTls(true).setSslProvider(SslProvider.JDK).build();
        Parameters p = new Parameters();
        GrpcConfigKeys.TLS.setConf(p, tls);
        GrpcConfigKeys.Server.setTlsConf(p, tls);
        GrpcConfigKeys.Admin.setTlsConf(p, tls);
        GrpcConfigKeys.Client.setTlsConf(p, tls);
        return p;
    }

    /**
     * Checks a peer's certificate with {@link PeerCertificate#check}, both as server and as client. Extended, so that
     * the JDK does not add a hostname check: peers dial IP addresses, and the binding is the identity.
     */
    static final class PeerTrustManager extends X509ExtendedTrustManager {
        private final byte[] secret;
        private final Clock clock;

        PeerTrustManager(byte[] secret, Clock clock) {
            this.secret = secret;
            this.clock = clock;
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            PeerCertificate.check(chain, secret, clock.instant());
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];   // no CA: each peer certificate is its own issuer
        }
    }
}
