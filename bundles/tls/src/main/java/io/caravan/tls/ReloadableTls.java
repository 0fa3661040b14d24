package io.caravan.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * One TLS identity that can be swapped while in use. The {@link SSLContext} is built once; its key and trust managers
 * read the material in force at each handshake, so after {@link #reload} new connections present the new
 * certificate and trust the new CA while open connections carry on untouched (nothing is closed or rebuilt).
 *
 * <p>Peers are checked against the CA only (no host names: agents dial addresses, as Nomad's agents do); with
 * {@code verify_server_hostname} a server must also carry {@code server.<region>.nomad}. {@link #serverPeers} gives a
 * trust manager that demands the server name in both directions, for ports only servers may use (Raft).
 */
public final class ReloadableTls {
    private final TlsSettings settings;
    private final SSLContext context;
    private final SSLContext selfContext;
    private final AtomicLong generations = new AtomicLong();
    /** The material by generation: the current one and the one before, so a handshake that chose an alias before a
     *  swap still finds its certificate and key together. */
    private final Map<String, Generation> byAlias = new ConcurrentHashMap<>();
    private volatile Generation current;

    private record Generation(String alias, TlsMaterial material, X509TrustManager authorities) {}

    public ReloadableTls(TlsSettings settings, TlsMaterial material) {
        this.settings = settings;
        install(material);
        context = context(new Trust(Peers.BY_SETTINGS));
        selfContext = context(new Trust(Peers.ANY_ROLE));
    }

    private SSLContext context(Trust trust) {
        try {
            SSLContext c = SSLContext.getInstance("TLS");
            c.init(new KeyManager[] {new Keys()}, new TrustManager[] {trust}, null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no TLS", e);
        }
    }

    /** Which roles a peer may have, beyond a chain to the CA. */
    private enum Peers {
        /** any certificate the CA signed */
        ANY_ROLE,
        /** a dialled server must name {@code server.<region>.nomad} when {@code verify_server_hostname} is on */
        BY_SETTINGS,
        /** every peer, in both directions, must name {@code server.<region>.nomad} */
        SERVERS_ONLY
    }

    public TlsSettings settings() {
        return settings;
    }

    public TlsMaterial material() {
        return current.material();
    }

    /** The context every listener and dialler of this agent uses: new handshakes see the latest material. */
    public SSLContext context() {
        return context;
    }

    /**
     * For calls this agent makes to its own listener (forwarded API calls): the CA is checked, the role is not, since
     * a client agent's own certificate names {@code client.<region>.nomad}.
     */
    public SSLContext selfContext() {
        return selfContext;
    }

    /** Puts new material in force for every handshake from now on. */
    public synchronized void reload(TlsMaterial material) {
        Generation before = current;
        install(material);
        byAlias.keySet().removeIf(a -> !a.equals(current.alias()) && (before == null || !a.equals(before.alias())));
    }

    private void install(TlsMaterial material) {
        Generation g = new Generation("caravan-" + generations.incrementAndGet(), material,
                authorities(material.authorities()));
        byAlias.put(g.alias(), g);
        current = g;
    }

    /** Protocols and suites from {@code tls_min_version} and {@code tls_cipher_suites}, for an engine or a socket. */
    public SSLParameters parameters() {
        SSLParameters p = context.getDefaultSSLParameters();
        p.setProtocols(settings.protocols());
        String[] suites = settings.jdkCipherSuites();
        if (suites != null) {
            p.setCipherSuites(suites);
        }
        return p;
    }

    /** A trust manager for the current CA; {@code serverPeersOnly}: every peer must be a server of the region. */
    public X509ExtendedTrustManager trustManager(boolean serverPeersOnly) {
        return new Trust(serverPeersOnly ? Peers.SERVERS_ONLY : Peers.BY_SETTINGS);
    }

    /** The key manager presenting the current certificate. */
    public X509ExtendedKeyManager keyManager() {
        return new Keys();
    }

    /** Whether the peer certificate (a verified chain's leaf) names a server of this region. */
    public boolean isServer(X509Certificate leaf) {
        return hasDnsName(leaf, settings.serverName());
    }

    /** Whether the certificate carries {@code name} as a DNS subject alternative name. */
    public static boolean hasDnsName(X509Certificate certificate, String name) {
        try {
            var names = certificate.getSubjectAlternativeNames();
            if (names == null) {
                return false;
            }
            for (List<?> entry : names) {
                if (Integer.valueOf(2).equals(entry.get(0)) && name.equalsIgnoreCase(String.valueOf(entry.get(1)))) {
                    return true;
                }
            }
            return false;
        } catch (CertificateParsingException e) {
            return false;
        }
    }

    private static X509TrustManager authorities(List<X509Certificate> cas) {
        if (cas.isEmpty()) {
            return null;
        }
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                store.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
            f.init(store);
            for (TrustManager t : f.getTrustManagers()) {
                if (t instanceof X509TrustManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("no X.509 trust manager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot build the CA trust store", e);
        }
    }

    /** Verifies chains against the CA in force; the JDK's host-name check is not applied (see the class comment). */
    private final class Trust extends X509ExtendedTrustManager {
        private final Peers peers;

        Trust(Peers peers) {
            this.peers = peers;
        }

        private X509TrustManager authorities() throws CertificateException {
            X509TrustManager t = current.authorities();
            if (t == null) {
                throw new CertificateException("no CA is configured (tls.ca_file) to verify the peer's certificate");
            }
            return t;
        }

        private void check(X509Certificate[] chain, String authType, boolean peerIsServer) throws CertificateException {
            if (peerIsServer) {
                authorities().checkServerTrusted(chain, authType);
            } else {
                authorities().checkClientTrusted(chain, authType);
            }
            boolean nameRequired = peers == Peers.SERVERS_ONLY
                    || (peers == Peers.BY_SETTINGS && peerIsServer && settings.verifyServerHostname());
            if (nameRequired && !isServer(chain[0])) {
                throw new CertificateException("the peer's certificate does not name " + settings.serverName()
                        + (peers == Peers.SERVERS_ONLY ? " (only servers may connect)" : " (verify_server_hostname)"));
            }
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType, false);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType, false);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType, false);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            check(chain, authType, true);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            X509TrustManager t = current.authorities();
            return t == null ? new X509Certificate[0] : t.getAcceptedIssuers();
        }
    }

    /** Presents the current certificate under an alias naming its generation (see {@link #byAlias}). */
    private final class Keys extends X509ExtendedKeyManager {
        private String alias(String... keyTypes) {
            Generation g = current;
            PrivateKey key = g.material().key();
            if (key == null) {
                return null;
            }
            for (String type : keyTypes) {
                if (type != null && suits(key.getAlgorithm(), type)) {
                    return g.alias();
                }
            }
            return null;
        }

        /** The JDK asks by key type: "EC", "RSA", "RSASSA-PSS", "EdDSA", or TLS 1.2's "EC_EC" style names. */
        private static boolean suits(String keyAlgorithm, String type) {
            String wanted = type.contains("_") ? type.substring(0, type.indexOf('_')) : type;
            return wanted.equalsIgnoreCase(keyAlgorithm)
                    || (wanted.equals("RSASSA-PSS") && keyAlgorithm.equals("RSA"))
                    || (wanted.equals("EdDSA") && keyAlgorithm.startsWith("Ed"));
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return alias(keyType);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers, SSLEngine engine) {
            return alias(keyTypes);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return alias(keyType);
        }

        @Override
        public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
            return alias(keyTypes);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            String a = alias(keyType);
            return a == null ? null : new String[] {a};
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return getServerAliases(keyType, issuers);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            Generation g = byAlias.get(alias);
            return g == null ? null : g.material().chain().toArray(X509Certificate[]::new);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            Generation g = byAlias.get(alias);
            return g == null ? null : g.material().key();
        }
    }

    /** The verified leaf certificate of the peer of a finished handshake, or null when it presented none. */
    public static X509Certificate peerLeaf(SSLSession session) {
        try {
            var certs = session.getPeerCertificates();
            return certs.length > 0 && certs[0] instanceof X509Certificate x ? x : null;
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            return null;
        }
    }
}
