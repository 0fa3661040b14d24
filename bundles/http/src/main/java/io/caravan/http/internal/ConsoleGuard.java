package io.caravan.http.internal;

import java.io.IOException;
import java.net.InetAddress;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.servlet.whiteboard.Preprocessor;

/**
 * Keeps the OSGi web console to this host: the API may listen on every interface, but the console (which can
 * install bundles) answers only loopback clients unless {@code console.allow.remote} is set.
 */
@Component(service = Preprocessor.class, configurationPid = "io.caravan.http")
public final class ConsoleGuard implements Preprocessor {
    private volatile HttpConfig config;

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
        if (!current.console_allow_remote() && isUnder(http.getRequestURI(), current.console_root())
                && !isLoopback(http.getRemoteAddr())) {
            HttpServletResponse out = (HttpServletResponse) response;
            out.setStatus(403);
            out.setContentType("text/plain; charset=utf-8");
            out.getWriter().write("Permission denied");
            return;
        }
        chain.doFilter(request, response);
    }

    static boolean isUnder(String path, String root) {
        return path.equals(root) || path.startsWith(root.endsWith("/") ? root : root + "/");
    }

    static boolean isLoopback(String address) {
        try {
            // A literal address from the socket: no name lookup happens.
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void init(jakarta.servlet.FilterConfig filterConfig) {
    }

    @Override
    public void destroy() {
    }
}
