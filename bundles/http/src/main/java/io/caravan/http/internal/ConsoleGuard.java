package io.caravan.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.caravan.api.acl.AclResolver;
import io.caravan.http.ConsoleAccess;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.servlet.whiteboard.Preprocessor;

/**
 * Keeps the OSGi web console to this host: the API may listen on every interface, but the console (which can
 * install bundles) answers only loopback clients unless {@code console.allow.remote} is set.
 *
 * <p>A remote request is refused when either of two readings of its path lands under the console: the path the
 * container dispatches on (servlet path + path info: decoded, path parameters dropped, dot segments resolved; Felix
 * picks the servlet by it), and the raw request URI read as leniently as any server might read it (decoded until
 * nothing changes, {@code \} as {@code /}, path parameters and trailing dots dropped, case folded). A path that
 * cannot be read at all (malformed encoding, {@code ..} above the root, control characters) is refused too: where it
 * leads is not knowable, so it is not let through.
 *
 * <p>With ACLs enabled, a request that may reach the console (by the same readings) must also present a management
 * token ({@link ConsoleAccess}): none is a 401 that asks for Basic credentials, any other token a 403.
 */
@Component(service = Preprocessor.class, configurationPid = "io.caravan.http")
public final class ConsoleGuard implements Preprocessor {
    /** {@code %252563} is three encodings of {@code c}; anything still encoded after that is deliberately obscure. */
    private static final int MAX_DECODES = 3;

    private volatile HttpConfig config;
    /** Present when ACLs are enabled and this agent can resolve tokens. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile AclResolver resolver;

    @Activate
    public ConsoleGuard(HttpConfig config) {
        this.config = config;
    }

    @Modified
    void modified(HttpConfig config) {
        this.config = config;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpConfig current = config;
        HttpServletRequest http = (HttpServletRequest) request;
        if (!current.console_allow_remote() && !isLoopback(http.getRemoteAddr())
                && mayReachConsole(http, current.console_root())) {
            refuse((HttpServletResponse) response, ConsoleAccess.Verdict.DENIED);
            return;
        }
        if (current.acl_enabled() && mayReachConsole(http, current.console_root())) {
            ConsoleAccess.Verdict verdict = ConsoleAccess.check(resolver,
                    ConsoleAccess.token(http.getHeader("X-Nomad-Token"), http.getHeader("Authorization")));
            if (verdict != ConsoleAccess.Verdict.ALLOWED) {
                refuse((HttpServletResponse) response, verdict);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    private static void refuse(HttpServletResponse out, ConsoleAccess.Verdict verdict) throws IOException {
        out.setStatus(verdict.status());
        if (verdict == ConsoleAccess.Verdict.NO_TOKEN) {
            out.setHeader("WWW-Authenticate", "Basic realm=\"" + ConsoleAccess.REALM + "\", charset=\"UTF-8\"");
        }
        out.setContentType("text/plain; charset=utf-8");
        out.getWriter().write(verdict.message());
    }

    /** True unless both readings of the request's path are known to lead somewhere other than the console. */
    static boolean mayReachConsole(HttpServletRequest request, String consoleRoot) {
        String dispatched;
        try {
            dispatched = Objects.toString(request.getServletPath(), "") + Objects.toString(request.getPathInfo(), "");
        } catch (IllegalArgumentException e) {
            return true; // Jetty will not decode an ambiguous URI; nothing here can say where it leads
        }
        return mayBeUnder(dispatched, consoleRoot)
                || mayBeUnder(request.getRequestURI(), Objects.toString(request.getContextPath(), "") + consoleRoot);
    }

    /** Whether {@code path}, however it is read, may be {@code root} or below it. */
    static boolean mayBeUnder(String path, String root) {
        String folded = normalise(root).orElseThrow(() -> new IllegalArgumentException("bad console root " + root));
        return normalise(path).map(p -> isUnder(p, folded)).orElse(true);
    }

    static boolean isUnder(String path, String root) {
        return path.equals(root) || path.startsWith(root.endsWith("/") ? root : root + "/");
    }

    /**
     * The most permissive reading of a request path: percent-decoded repeatedly, backslashes as slashes, empty and
     * {@code .} segments dropped, {@code ..} resolved, each segment's {@code ;parameters} and trailing dots and
     * spaces dropped, lower case. Empty when the path cannot be read: malformed or too deeply nested encoding,
     * control characters, or a {@code ..} that would climb above the root.
     */
    static Optional<String> normalise(String path) {
        String decoded = path;
        for (int round = 0; decoded.indexOf('%') >= 0; round++) {
            if (round == MAX_DECODES) {
                return Optional.empty();
            }
            decoded = percentDecode(decoded);
            if (decoded == null) {
                return Optional.empty();
            }
        }
        Deque<String> segments = new ArrayDeque<>();
        for (String raw : decoded.replace('\\', '/').split("/", -1)) {
            int parameters = raw.indexOf(';');
            String segment = parameters < 0 ? raw : raw.substring(0, parameters);
            if (segment.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                return Optional.empty();
            }
            if (segment.equals("..")) {
                if (segments.pollLast() == null) {
                    return Optional.empty();
                }
                continue;
            }
            segment = stripTrailingDotsAndSpaces(segment);
            if (!segment.isEmpty()) {
                segments.addLast(segment.toLowerCase(Locale.ROOT));
            }
        }
        return Optional.of("/" + String.join("/", segments));
    }

    /** {@code console.} and {@code console%20} name {@code console} on some file systems and servers. */
    private static String stripTrailingDotsAndSpaces(String segment) {
        int end = segment.length();
        while (end > 0 && (segment.charAt(end - 1) == '.' || segment.charAt(end - 1) == ' ')) {
            end--;
        }
        return segment.substring(0, end);
    }

    /** One round of {@code %XX} decoding as UTF-8; null for a malformed escape or invalid UTF-8. */
    private static String percentDecode(String s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    return null;
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else {
                int next = s.indexOf('%', i);
                byte[] plain = s.substring(i, next < 0 ? s.length() : next).getBytes(StandardCharsets.UTF_8);
                bytes.write(plain, 0, plain.length);
                i = (next < 0 ? s.length() : next) - 1;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static boolean isLoopback(String address) {
        if (address == null) {
            return false; // getByName(null) would answer loopback
        }
        try {
            // A literal address from the socket: no name lookup happens.
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void init(FilterConfig filterConfig) {
    }

    @Override
    public void destroy() {
    }
}
