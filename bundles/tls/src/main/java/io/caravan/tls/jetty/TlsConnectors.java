package io.caravan.tls.jetty;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;

import io.caravan.tls.ReloadableTls;
import org.eclipse.jetty.io.AbstractConnection;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.ssl.SslHandshakeListener;
import org.eclipse.jetty.server.AbstractConnectionFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.DetectorConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection factories of a port served over TLS with the agent's {@link ReloadableTls}: the context is the
 * reloadable one (so rotated certificates apply to new connections with no restart), protocols and suites are
 * {@code tls_min_version} and {@code tls_cipher_suites}. A caller speaking plain HTTP gets what Go's servers answer
 * ({@code 400 Client sent an HTTP request to an HTTPS server.}) instead of a TLS alert it cannot read — or, when
 * plain text is allowed ({@code rpc_upgrade_mode}), is served in plain text.
 */
public final class TlsConnectors {
    private static final Logger LOG = LoggerFactory.getLogger(TlsConnectors.class);
    static final byte[] PLAIN_REFUSAL = ("HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Connection: close\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
            .getBytes(StandardCharsets.US_ASCII);

    /**
     * A refused handshake (no client certificate, another CA, a protocol below {@code tls_min_version}) is a WARN
     * naming the peer, as Nomad logs it: Jetty keeps it at DEBUG, where an operator would not see a misconfigured
     * client or an intruder.
     */
    private static final SslHandshakeListener REFUSALS_LOGGED = new SslHandshakeListener() {
        @Override
        public void handshakeFailed(Event event, Throwable failure) {
            EndPoint endPoint = event.getEndPoint();
            LOG.atWarn().addKeyValue("peer", endPoint == null ? "?" : endPoint.getRemoteSocketAddress())
                    .addKeyValue("local", endPoint == null ? "?" : endPoint.getLocalSocketAddress())
                    .addKeyValue("error", failure.getMessage()).log("TLS handshake refused");
        }
    };

    private TlsConnectors() {
    }

    /**
     * @param http            the HTTP factory behind TLS (its configuration gets the customizer that exposes the
     *                        peer's certificate, see {@link #peer})
     * @param needClientAuth  refuse, at the handshake, a peer without a certificate signed by the CA
     * @param allowPlain      serve plain-text connections too (Nomad's {@code rpc_upgrade_mode})
     */
    public static ConnectionFactory[] factories(ReloadableTls tls, HttpConnectionFactory http, boolean needClientAuth,
                                                boolean allowPlain) {
        HttpConfiguration config = http.getHttpConfiguration();
        // No SNI rules: agents are dialled by address, and certificates name roles (server.global.nomad), not hosts.
        config.addCustomizer(new SecureRequestCustomizer(false, false, -1, false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setSslContext(tls.context());
        ssl.setNeedClientAuth(needClientAuth);
        ssl.setIncludeProtocols(tls.settings().protocols());
        String[] suites = tls.settings().jdkCipherSuites();
        if (suites != null) {
            ssl.setIncludeCipherSuites(suites);
        }
        ssl.setEndpointIdentificationAlgorithm(null);
        ssl.setRenegotiationAllowed(false);
        SslConnectionFactory tlsFactory = new SslConnectionFactory(ssl, http.getProtocol());
        tlsFactory.addBean(REFUSALS_LOGGED);
        DetectorConnectionFactory detector = new DetectorConnectionFactory(tlsFactory);
        // What follows the detector in the list serves a connection that is not TLS.
        return allowPlain ? new ConnectionFactory[] {detector, http}
                : new ConnectionFactory[] {detector, new PlainRefusal(), http};
    }

    /** The peer's certificate (verified at the handshake) for a request on a TLS connection, or null. */
    public static X509Certificate peer(Request request) {
        if (request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE) instanceof EndPoint.SslSessionData data) {
            X509Certificate[] certs = data.peerCertificates();
            return certs == null || certs.length == 0 ? null : certs[0];
        }
        return null;
    }

    /** Whether the request came over TLS. */
    public static boolean secure(Request request) {
        return request.getAttribute(EndPoint.SslSessionData.ATTRIBUTE) != null;
    }

    /** Answers a plain-text request on a TLS port with a readable 400 and closes. */
    private static final class PlainRefusal extends AbstractConnectionFactory {
        PlainRefusal() {
            super("plain-text-refusal");
        }

        @Override
        public Connection newConnection(Connector connector, EndPoint endPoint) {
            return configure(new Refusal(endPoint, connector), connector, endPoint);
        }
    }

    /**
     * An {@link Connection.UpgradeTo}: the detector hands over the bytes it read while detecting, and refuses to
     * switch to a connection that cannot take them (the client then saw the connection close with no answer).
     */
    private static final class Refusal extends AbstractConnection implements Connection.UpgradeTo {
        Refusal(EndPoint endPoint, Connector connector) {
            super(endPoint, connector.getExecutor());
        }

        @Override
        public void onUpgradeTo(ByteBuffer buffer) {
            // the request's first bytes: not read, the answer is the same whatever they say
        }

        @Override
        public void onOpen() {
            super.onOpen();
            getEndPoint().write(Callback.from(getEndPoint()::close, failure -> getEndPoint().close()),
                    ByteBuffer.wrap(PLAIN_REFUSAL));
        }

        @Override
        public void onFillable() {
            // nothing more is read: the answer is written and the connection closes
        }
    }
}
