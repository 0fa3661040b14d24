package io.caravan.http.internal;

import java.net.URI;

import jakarta.servlet.Servlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Test helper: a servlet at {@code /v1/*} in Jetty 12, the container Felix HTTP runs it in, on a free port. */
final class TestJetty {
    private TestJetty() {
    }

    static Server start(Servlet servlet) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, "/v1/*");
        server.setHandler(context);
        server.start();
        return server;
    }

    static int port(Server server) {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    static URI base(Server server) {
        return URI.create("http://127.0.0.1:" + port(server));
    }
}
