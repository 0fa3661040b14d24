package io.caravan.cli.http;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

import io.caravan.tls.Credential;
import io.caravan.tls.Pem;
import io.caravan.tls.TlsException;

/**
 * How the CLI talks HTTPS to an agent, as Nomad's {@code -ca-cert}, {@code -ca-path}, {@code -client-cert},
 * {@code -client-key}, {@code -tls-server-name} and {@code -tls-skip-verify}. Without a CA the JDK's trusted roots
 * apply. The agent's certificate must name the host of the address, or {@code serverName} when given (only that
 * name then, as Go checks it); {@code skipVerify} accepts any certificate.
 *
 * @param caCert     a PEM file of CA certificates (wins over {@code caPath}, as in Nomad), or null
 * @param caPath     a directory whose every file is a PEM file of CA certificates, or null
 * @param clientCert the certificate to present (mutual TLS), or null; needs {@code clientKey}
 * @param clientKey  its private key, or null
 * @param serverName the name the agent's certificate must carry (also sent as SNI), or null
 * @param skipVerify accept any certificate from the agent
 */
public record ClientTls(Path caCert, Path caPath, Path clientCert, Path clientKey, String serverName,
                        boolean skipVerify) {
    public static final ClientTls NONE = new ClientTls(null, null, null, null, null, false);
    private static final char[] NO_PASSWORD = new char[0];

    /** Reads the files and builds the context; a bad file is a {@link TlsException} naming it. */
    SSLContext context() throws TlsException {
        if (this.equals(NONE)) {
            try {
                return SSLContext.getDefault();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("the JDK has no default TLS context", e);
            }
        }
        if ((clientCert == null) != (clientKey == null)) {
            throw new TlsException(null, "Both client cert and client key must be provided");
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers(), new TrustManager[] {trustManager()}, null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build the TLS context: " + e.getMessage(), e);
        }
    }

    /** The requested server name as SNI, when there is one the JDK can send. */
    SSLParameters parameters(SSLParameters defaults) {
        if (serverName != null) {
            try {
                defaults.setServerNames(List.of(new SNIHostName(serverName)));
            } catch (IllegalArgumentException e) {
                // Not a host name SNI can carry (e.g. an IP address): the certificate check below still applies.
            }
        }
        return defaults;
    }

    private KeyManager[] keyManagers() throws TlsException, GeneralSecurityException, IOException {
        if (clientCert == null) {
            return null;
        }
        Credential credential = Credential.load(clientCert, clientKey);
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", credential.key(), NO_PASSWORD, credential.chain().toArray(X509Certificate[]::new));
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, NO_PASSWORD);
        return factory.getKeyManagers();
    }

    private X509ExtendedTrustManager trustManager() throws TlsException, GeneralSecurityException, IOException {
        if (skipVerify) {
            return new TrustAll();
        }
        KeyStore roots = null;   // the JDK's trusted roots
        List<X509Certificate> cas = authorities();
        if (!cas.isEmpty()) {
            roots = KeyStore.getInstance("PKCS12");
            roots.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                roots.setCertificateEntry("ca-" + i, cas.get(i));
            }
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(roots);
        X509ExtendedTrustManager pkix = null;
        for (TrustManager t : factory.getTrustManagers()) {
            if (t instanceof X509ExtendedTrustManager x) {
                pkix = x;
            }
        }
        if (pkix == null) {
            throw new IllegalStateException("the JDK has no PKIX trust manager");
        }
        // Without -tls-server-name the JDK checks the address's host itself (HttpClient asks for HTTPS
        // identification); with it, only that name counts, so the chain is checked without the engine's host.
        return serverName == null ? pkix : new ServerNameTrust(pkix, serverName);
    }

    private List<X509Certificate> authorities() throws TlsException, IOException {
        if (caCert != null) {
            return Pem.certificates(caCert);
        }
        if (caPath == null) {
            return List.of();
        }
        if (!Files.isDirectory(caPath)) {
            throw new TlsException(caPath, "not a directory");
        }
        List<X509Certificate> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(caPath)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                out.addAll(Pem.certificates(file));
            }
        }
        return out;
    }

    /** Whether the certificate names {@code name}: a DNS name (a leading {@code *.} covers one label) or an IP. */
    static boolean names(X509Certificate certificate, String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        try {
            if (certificate.getSubjectAlternativeNames() == null) {
                return false;
            }
            for (List<?> san : certificate.getSubjectAlternativeNames()) {
                String value = String.valueOf(san.get(1)).toLowerCase(Locale.ROOT);
                if (value.equals(wanted)) {
                    return true;
                }
                int dot = wanted.indexOf('.');
                if (Integer.valueOf(2).equals(san.get(0)) && value.startsWith("*.") && dot > 0
                        && value.substring(1).equals(wanted.substring(dot))) {
                    return true;
                }
            }
        } catch (CertificateParsingException e) {
            return false;
        }
        return false;
    }

    /** The CA check of the JDK, then the agent's certificate against {@code -tls-server-name} alone. */
    private static final class ServerNameTrust extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager pkix;
        private final String serverName;

        ServerNameTrust(X509ExtendedTrustManager pkix, String serverName) {
            this.pkix = pkix;
            this.serverName = serverName;
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            pkix.checkServerTrusted(chain, authType);   // the two-argument form checks no host name
            if (!names(chain[0], serverName)) {
                throw new CertificateException("the agent's certificate is not valid for " + serverName
                        + " (-tls-server-name)");
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            pkix.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            pkix.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            pkix.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return pkix.getAcceptedIssuers();
        }
    }

    /**
     * {@code -tls-skip-verify}: any certificate, any name. An {@link X509ExtendedTrustManager}, or the JDK would wrap
     * it and check the host name anyway.
     */
    private static final class TrustAll extends X509ExtendedTrustManager {
        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
