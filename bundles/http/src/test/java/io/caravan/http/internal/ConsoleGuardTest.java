package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.Identity;
import io.caravan.http.ConsoleAccess;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The web console's loopback guard against every spelling of its path, in Jetty as Felix HTTP sets it up: the guard
 * runs before a servlet at {@code /*} that picks "the console" by servlet path + path info, as Felix's dispatcher
 * does. The client's address is injected by a filter ahead of the guard (header {@code X-Test-Remote}), so one
 * loopback socket plays both a local and a remote client.
 */
class ConsoleGuardTest {
    private static final String ROOT = "/ui/console";
    private static final String REMOTE = "10.213.0.2";
    private static final String LOCAL = "127.0.0.1";

    /** Every way of writing the console's path that a server might resolve to it. */
    static final List<String> SPELLINGS = List.of("/ui/console", "/ui/console/", "/ui/console/bundles",
            "/ui/./console", "/./ui/console", "/ui/%63onsole", "/ui/cons%6Fle/bundles", "/ui/console;x",
            "/ui;a/console", "/ui/console%3bx", "/ui/x/../console", "/ui/console/../../ui/console", "/ui/console/.",
            "/ui/%2563onsole", "/ui/%252563onsole", "/ui/%2e/console", "/ui/x/%2e%2e/console", "/ui/x/%2E./console",
            "/ui/x/..;/console", "/ui//console", "//ui/console", "/ui\\console", "/ui%5cconsole", "/ui%2fconsole",
            "/ui%2Fconsole", "/ui/console%2f", "/UI/Console", "/ui/CONSOLE/bundles", "/ui/console.", "/ui/console./",
            "/ui/console%20", "/ui/console%00", "/%2e%2e/ui/console", "/../ui/console", "/ui/%u0063onsole");

    private static Server strict;
    private static Server loose;

    @BeforeAll
    static void start() throws Exception {
        strict = jetty(false);
        loose = jetty(true);
    }

    @AfterAll
    static void stop() throws Exception {
        strict.stop();
        loose.stop();
    }

    /**
     * @param unsafe Felix's {@code org.eclipse.jetty.UriComplianceMode=UNSAFE}: ambiguous URIs are decoded rather
     *               than refused, so only the guard stands between them and the console
     */
    private static Server jetty(boolean unsafe) throws Exception {
        return jetty(unsafe, new ConsoleGuard(HttpConfigs.of(Map.of())));
    }

    private static Server jetty(boolean unsafe, ConsoleGuard guard) throws Exception {
        Server server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        if (unsafe) {
            http.setUriCompliance(UriCompliance.UNSAFE);
        }
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        Filter remote = (request, response, chain) -> chain.doFilter(
                new HttpServletRequestWrapper((HttpServletRequest) request) {
                    @Override
                    public String getRemoteAddr() {
                        return getHeader("X-Test-Remote");
                    }
                }, response);
        context.addFilter(new FilterHolder(remote), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addFilter(new FilterHolder(guard), "/*",
                EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(new HttpServlet() {
            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                String path = request.getServletPath() + Optional.ofNullable(request.getPathInfo()).orElse("");
                response.setStatus(ConsoleGuard.isUnder(path, ROOT) ? 200 : 404);
                response.getWriter().write(ConsoleGuard.isUnder(path, ROOT) ? "console" : "not the console");
            }
        }), "/*");
        server.setHandler(context);
        server.start();
        if (unsafe) {
            server.getContainedBeans(ServletHandler.class).forEach(h -> h.setDecodeAmbiguousURIs(true));
        }
        return server;
    }

    private record Answer(int status, String body) {}

    /** The request line exactly as written: no client library normalises the path first. */
    private static Answer get(Server server, String path, String from) throws IOException {
        return get(server, path, from, "");
    }

    /** @param headers more header lines, each ending in CRLF */
    private static Answer get(Server server, String path, String from, String headers) throws IOException {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: test\r\nX-Test-Remote: " + from
                    + "\r\n" + headers + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            String all = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int status = Integer.parseInt(all.substring(9, 12));
            return new Answer(status, all.substring(all.indexOf("\r\n\r\n") + 4));
        }
    }

    @Test
    void noSpellingReachesTheConsoleFromARemoteClient() throws IOException {
        for (Server server : List.of(strict, loose)) {
            String mode = server == strict ? "default URI compliance" : "UNSAFE URI compliance";
            List<String> reachable = new ArrayList<>();
            for (String path : SPELLINGS) {
                Answer local = get(server, path, LOCAL);
                Answer remote = get(server, path, REMOTE);
                assertFalse(remote.body().contains("console") && remote.status() == 200,
                        mode + ": " + path + " reached the console remotely");
                assertTrue(remote.status() == 403 || remote.status() == 400, mode + ": " + path + " → " + remote);
                if (local.status() == 200) {
                    reachable.add(path);
                    assertEquals(new Answer(403, "Permission denied"), remote, mode + ": " + path);
                }
            }
            // The spellings are live: each of these reaches the console from this host, so the test can fail.
            assertTrue(reachable.containsAll(List.of("/ui/console", "/ui/./console", "/ui/%63onsole", "/ui/console;x",
                    "/ui/x/../console")), mode + ": " + reachable);
            if (server == loose) {
                assertTrue(reachable.containsAll(List.of("/ui/%2e/console", "/ui%2fconsole", "/ui/%u0063onsole")),
                        mode + ": " + reachable);
            }
        }
    }

    /** A resolver that knows two secrets: {@code mgmt} (management) and {@code client} (a client token). */
    private static final AclResolver TOKENS = secret -> switch (secret == null ? "" : secret) {
        case "mgmt" -> new Identity(Identity.Kind.TOKEN, "a-mgmt", "ops", Acl.MANAGEMENT);
        case "client" -> new Identity(Identity.Kind.TOKEN, "a-client", "dev", Acl.NONE);
        default -> throw new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token not found");
    };

    private static String basic(String password) {
        return "Authorization: Basic " + Base64.getEncoder().encodeToString(("anyone:" + password)
                .getBytes(StandardCharsets.UTF_8)) + "\r\n";
    }

    @Test
    void withAclsOnEverySpellingNeedsAManagementToken() throws Exception {
        ConsoleGuard guard = new ConsoleGuard(HttpConfigs.of(Map.of("acl_enabled", true)));
        guard.resolver = TOKENS;
        Server acl = jetty(true, guard);
        try {
            List<String> reachable = new ArrayList<>();
            for (String path : SPELLINGS) {
                Answer none = get(acl, path, LOCAL);
                Answer client = get(acl, path, LOCAL, basic("client"));
                Answer wrong = get(acl, path, LOCAL, "X-Nomad-Token: nonsense\r\n");
                Answer management = get(acl, path, LOCAL, basic("mgmt"));
                if (management.status() == 200) {
                    reachable.add(path);
                }
                assertFalse(none.status() == 200 || client.status() == 200 || wrong.status() == 200,
                        path + " reached the console without a management token");
                if (management.status() == 200) {
                    assertEquals(401, none.status(), path);
                    assertEquals(new Answer(403, "Permission denied"), client, path);
                    assertEquals(new Answer(403, "Permission denied"), wrong, path);
                }
            }
            assertTrue(reachable.containsAll(List.of("/ui/console", "/ui/./console", "/ui/%63onsole", "/ui/console;x",
                    "/ui/x/../console", "/ui/%2e/console")), reachable.toString());
            assertEquals(new Answer(200, "console"), get(acl, "/ui/console", LOCAL, "X-Nomad-Token: mgmt\r\n"));
            assertEquals(new Answer(200, "console"), get(acl, "/ui/console", LOCAL,
                    "Authorization: Bearer mgmt\r\n"));
            // The API is not the console's business: its own ACL checks apply there.
            assertEquals(new Answer(404, "not the console"), get(acl, "/v1/jobs", LOCAL));
            // And a remote client is refused before any token is looked at.
            assertEquals(new Answer(403, "Permission denied"), get(acl, "/ui/console", REMOTE, basic("mgmt")));
            guard.resolver = null;
            assertEquals(503, get(acl, "/ui/console", LOCAL, basic("mgmt")).status(), "no resolver yet");
        } finally {
            acl.stop();
        }
    }

    @Test
    void withAclsOffTheConsoleKeepsItsOwnLogin() throws IOException {
        assertEquals(new Answer(200, "console"), get(strict, "/ui/console", LOCAL));
    }

    @Test
    void theTokenComesFromBasicBearerOrTheNomadHeader() {
        assertEquals(Optional.of("s"), ConsoleAccess.token("s", null));
        assertEquals(Optional.of("s"), ConsoleAccess.token(null, "Bearer s"));
        assertEquals(Optional.of("p:q"), ConsoleAccess.token(null, basic("p:q").substring(15).trim()));
        assertEquals(Optional.empty(), ConsoleAccess.token(null, "Basic !!!"));
        assertEquals(Optional.empty(), ConsoleAccess.token(null, null));
        assertEquals(ConsoleAccess.Verdict.NO_TOKEN, ConsoleAccess.check(TOKENS, Optional.empty()));
        assertEquals(ConsoleAccess.Verdict.ALLOWED, ConsoleAccess.check(TOKENS, Optional.of("mgmt")));
        assertEquals(ConsoleAccess.Verdict.DENIED, ConsoleAccess.check(TOKENS, Optional.of("client")));
        assertEquals(ConsoleAccess.Verdict.DENIED, ConsoleAccess.check(TOKENS, Optional.of("x")));
    }

    @Test
    void remoteClientsStillReachTheApi() throws IOException {
        for (Server server : List.of(strict, loose)) {
            for (String path : List.of("/v1/jobs", "/v1/job/example", "/ui/", "/ui", "/", "/v1/consoles",
                    "/ui/consoleX", "/v1/job/./x")) {
                assertEquals(new Answer(404, "not the console"), get(server, path, REMOTE), path);
            }
        }
    }

    @Test
    void loopbackClientsAndAllowRemoteReachTheConsole() throws Exception {
        assertEquals(new Answer(200, "console"), get(strict, "/ui/console/bundles", LOCAL));
        assertEquals(new Answer(200, "console"), get(strict, "/ui/console", "::1"));
        HttpServletRequest request = request("/ui/console", "", "/ui/console");
        ConsoleGuard open = new ConsoleGuard(HttpConfigs.of(Map.of("console_allow_remote", true)));
        boolean[] passed = {false};
        open.doFilter(withRemote(request, REMOTE), null, (req, res) -> passed[0] = true);
        assertTrue(passed[0], "console.allow.remote lets remote clients through");
    }

    @Test
    void aPathTheContainerWillNotDecodeIsRefused() {
        HttpServletRequest ambiguous = (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getServletPath")) {
                        throw new IllegalArgumentException("Ambiguous URI encoding"); // what Jetty 12 throws
                    }
                    return method.getName().equals("getRequestURI") ? "/v1/jobs" : "";
                });
        assertTrue(ConsoleGuard.mayReachConsole(ambiguous, ROOT));
        assertFalse(ConsoleGuard.mayReachConsole(request("/v1/jobs", "", "/v1/jobs"), ROOT));
        assertTrue(ConsoleGuard.mayReachConsole(request("/v1/x", "", "/ui/%63onsole"), ROOT), "either reading counts");
        assertTrue(ConsoleGuard.mayReachConsole(request("/ui/console", "", "/v1/x"), ROOT), "either reading counts");
    }

    @Test
    void theLenientReadingOfAPath() {
        assertEquals(Optional.of("/ui/console"), ConsoleGuard.normalise("/ui/./console"));
        assertEquals(Optional.of("/ui/console"), ConsoleGuard.normalise("/UI//x/..;y/%2563onsole.;z/"));
        assertEquals(Optional.of("/ui/console/bundles"), ConsoleGuard.normalise("\\ui\\console%2F%62undles"));
        assertEquals(Optional.of("/v1/job/caf\u00e9"), ConsoleGuard.normalise("/v1/job/caf%C3%A9"));
        assertEquals(Optional.of("/v1/job/\ud83d\ude80"), ConsoleGuard.normalise("/v1/job/\ud83d\ude80"));
        assertEquals(Optional.of("/"), ConsoleGuard.normalise("/ui/.."));
        for (String unreadable : List.of("/..", "/ui/../..", "/%2e%2e/x", "/ui/%zz", "/ui/%6", "/ui/%C3", "/a%00b",
                "/ui/%25252563onsole", "/ui/%u0063onsole")) {
            assertEquals(Optional.empty(), ConsoleGuard.normalise(unreadable), unreadable);
        }
    }

    @Test
    void forwardedCallsNeverReachTheConsole() {
        assertTrue(HttpForwarding.isForwardable("/v1/jobs?index=5", ROOT));
        assertTrue(HttpForwarding.isForwardable("/v1/client/fs/cat/abc?path=/ui/console", ROOT));
        for (String uri : List.of("/ui/console", "/ui/console/bundles?x=1", "/v1/../ui/console", "/ui/%63onsole",
                "/v1/%2e%2e/ui/console")) {
            assertFalse(HttpForwarding.isForwardable(uri, ROOT), uri);
        }
    }

    @Test
    void loopbackIsDecidedByTheAddressAlone() {
        assertTrue(ConsoleGuard.isLoopback("127.0.0.1"));
        assertTrue(ConsoleGuard.isLoopback("127.1.2.3"));
        assertTrue(ConsoleGuard.isLoopback("0:0:0:0:0:0:0:1"));
        assertTrue(ConsoleGuard.isLoopback("::ffff:127.0.0.1"));
        assertFalse(ConsoleGuard.isLoopback("10.1.2.3"));
        assertFalse(ConsoleGuard.isLoopback(null));
    }

    /** A request as the container describes it: the path it dispatches on and the URI as sent. */
    private static HttpServletRequest request(String servletPath, String pathInfo, String uri) {
        return (HttpServletRequest) Proxy.newProxyInstance(ConsoleGuardTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getServletPath" -> servletPath;
                    case "getPathInfo" -> pathInfo;
                    case "getRequestURI" -> uri;
                    case "getContextPath" -> "";
                    case "getRemoteAddr" -> LOCAL;
                    default -> null;
                });
    }

    private static HttpServletRequest withRemote(HttpServletRequest request, String address) {
        return new HttpServletRequestWrapper(request) {
            @Override
            public String getRemoteAddr() {
                return address;
            }
        };
    }
}
