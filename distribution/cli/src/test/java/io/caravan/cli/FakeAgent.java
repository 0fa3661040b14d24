package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;

/** A real HTTP (or HTTPS) server on a free loopback port that answers canned bodies and records every request. */
final class FakeAgent implements AutoCloseable {

    record Request(String method, String path, String query, String token, String body) {}

    private record Reply(int status, String body) {}

    private static final Reply NOT_FOUND = new Reply(404, "404 page not found\n"); // Go's ServeMux text

    private final HttpServer server;
    private final Map<String, Reply> replies = new ConcurrentHashMap<>();
    private final Map<String, Deque<Reply>> sequences = new ConcurrentHashMap<>();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    /** Sent as X-Nomad-Index; grows with every request, as a busy cluster's would, unless frozen. */
    private final AtomicLong index = new AtomicLong(100);
    private volatile boolean frozenIndex;

    /** Subjects of the client certificates presented, one per request over HTTPS (none: "-"). */
    private final List<String> clientSubjects = new CopyOnWriteArrayList<>();

    FakeAgent() throws IOException {
        server = HttpServer.create(new InetSocketAddress(loopback(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /**
     * Over HTTPS with {@code tls}; {@code needClientAuth}: refuses clients without a certificate it trusts;
     * {@code protocols}: only these (none given: the JDK's).
     */
    FakeAgent(SSLContext tls, boolean needClientAuth, String... protocols) throws IOException {
        HttpsServer https = HttpsServer.create(new InetSocketAddress(loopback(), 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(tls) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = tls.getDefaultSSLParameters();
                p.setNeedClientAuth(needClientAuth);
                if (protocols.length > 0) {
                    p.setProtocols(protocols);
                }
                params.setSSLParameters(p);
            }
        });
        server = https;
        server.createContext("/", this::handle);
        server.start();
    }

    FakeAgent json(String path, String body) {
        return reply(path, 200, body);
    }

    /** Answers {@code path}; a {@code path?query} answers only requests with exactly that query string. */
    FakeAgent reply(String path, int status, String body) {
        replies.put(path, new Reply(status, body));
        return this;
    }

    /** Answers {@code path} with each body in turn, then keeps answering the last one (a state that evolves). */
    FakeAgent sequence(String path, String... bodies) {
        Deque<Reply> queue = new ArrayDeque<>();
        for (String body : bodies) {
            queue.add(new Reply(200, body));
        }
        sequences.put(path, queue);
        replies.put(path, queue.getLast());
        return this;
    }

    /** Answers every request with the same X-Nomad-Index, as an agent that ignores blocking queries would. */
    FakeAgent frozenIndex() {
        frozenIndex = true;
        return this;
    }

    String address() {
        return (server instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:" + server.getAddress().getPort();
    }

    List<String> clientSubjects() {
        return List.copyOf(clientSubjects);
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    /** The last request for {@code path}; fails the test when there was none. */
    Request last(String path) {
        Request found = null;
        for (Request r : requests) {
            if (r.path().equals(path)) {
                found = r;
            }
        }
        if (found == null) {
            fail("no request for " + path + "; got " + requests);
        }
        return found;
    }

    private void handle(HttpExchange exchange) throws IOException {
        URI uri = exchange.getRequestURI();
        if (exchange instanceof HttpsExchange secure) {
            try {
                clientSubjects.add(secure.getSSLSession().getPeerPrincipal().getName());
            } catch (SSLPeerUnverifiedException e) {
                clientSubjects.add("-");
            }
        }
        String requestBody = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        requests.add(new Request(exchange.getRequestMethod(), uri.getPath(), uri.getRawQuery(),
                exchange.getRequestHeaders().getFirst("X-Nomad-Token"), requestBody));
        Deque<Reply> queue = sequences.get(uri.getPath());
        Reply next = queue == null ? null : queue.poll();
        // A reply for the path with this exact query string wins over the path's.
        Reply reply = next != null ? next : replies.getOrDefault(uri.getPath() + "?" + uri.getRawQuery(),
                replies.getOrDefault(uri.getPath(), NOT_FOUND));
        byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type",
                reply.status() < 400 ? "application/json" : "text/plain; charset=utf-8");
        exchange.getResponseHeaders().set("X-Nomad-Index", Long.toString(frozenIndex ? index.get() : index.incrementAndGet()));
        exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** A loopback port nothing listens on (bound, then released). */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, loopback())) {
            return socket.getLocalPort();
        }
    }

    private static InetAddress loopback() throws IOException {
        return InetAddress.getByName("127.0.0.1");
    }
}
