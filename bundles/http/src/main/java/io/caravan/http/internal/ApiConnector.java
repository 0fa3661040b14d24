package io.caravan.http.internal;

import io.caravan.tls.ReloadableTls;
import io.caravan.tls.jetty.TlsConnectors;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.ee10.servlet.ServletHandler;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API's listener, added to Felix's Jetty only once {@link ApiServlet} is live in it. Felix starts its own
 * connectors before its whiteboard registers any servlet, so a port it owned answered a bare 404 for a moment after
 * every (re)start; this one opens when the servlet can answer, and closes before the servlet goes. Felix's own
 * connector stays on a loopback port of the system's choosing.
 */
final class ApiConnector {
    private static final Logger LOG = LoggerFactory.getLogger(ApiConnector.class);
    private static final int HEADER_BYTES = 16 * 1024;

    private final ServiceRegistration<ConnectorFactory> registration;

    private ApiConnector(ServiceRegistration<ConnectorFactory> registration) {
        this.registration = registration;
    }

    /**
     * Opens {@code bindAddr} ({@code host:port}) on the container's server; Felix adds it at once.
     *
     * @param tls the agent's TLS when {@code tls.http} is on (HTTPS, with client certificates required by
     *     {@code verify_https_client}), else null
     */
    static ApiConnector open(BundleContext bundle, String bindAddr, ReloadableTls tls) {
        int colon = bindAddr.lastIndexOf(':');
        String host = bindAddr.substring(0, colon).replace("[", "").replace("]", "");
        int port = Integer.parseInt(bindAddr.substring(colon + 1));
        ConnectorFactory factory = (Server server) -> connector(server, host, port, tls);
        return new ApiConnector(bundle.registerService(ConnectorFactory.class, factory, null));
    }

    /** As Felix configures its own connectors by default: 16 KiB headers, a Date header, no Server header. */
    private static Connector connector(Server server, String host, int port, ReloadableTls tls) {
        HttpConfiguration http = new HttpConfiguration();
        http.setRequestHeaderSize(HEADER_BYTES);
        http.setResponseHeaderSize(HEADER_BYTES);
        http.setSendDateHeader(true);
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        // Nomad's clients escape the "/" of child job IDs (parent/periodic-1700000000) as %2F in paths; the router
        // splits the raw path before decoding, so such a segment stays one ID.
        http.setUriCompliance(UriCompliance.DEFAULT.with("nomad-job-ids",
                UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR));
        // ...and the servlet layer decodes such a path rather than refusing it, as Felix sets it for its lenient
        // modes. ConsoleGuard reads every request both decoded and raw, so the console stays guarded.
        server.getContainedBeans(ServletHandler.class).forEach(h -> h.setDecodeAmbiguousURIs(true));
        HttpConnectionFactory plain = new HttpConnectionFactory(http);
        ServerConnector connector = tls == null ? new ServerConnector(server, plain)
                : new ServerConnector(server, TlsConnectors.factories(tls, plain,
                        tls.settings().verifyHttpsClient(), false));
        connector.setHost(host);
        connector.setPort(port);
        LOG.atInfo().addKeyValue("address", host + ":" + port).addKeyValue("tls", tls != null)
                .addKeyValue("verify_https_client", tls != null && tls.settings().verifyHttpsClient())
                .log("HTTP API listening");
        return connector;
    }

    void close() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping
        }
    }
}
