package io.caravan.ui.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLConnection;
import java.util.Locale;
import java.util.Map;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/**
 * Serves the cluster UI's built files (this bundle's {@code META-INF/ui} folder) at {@code /ui/*}. Paths under
 * {@code /ui/assets/} are files with content-hashed names, cached for a year; any other path is a page of the
 * single-page app and answers {@code index.html}, always revalidated, so that a bookmarked {@code /ui/jobs/x} opens.
 * The web console's longer pattern ({@code /ui/console/*}) still wins for its paths, and with this bundle stopped
 * {@code /ui/} falls back to the API servlet's redirect to the console.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/ui/*")
public final class UiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    /** Where the build puts the UI in this bundle: not a package name, so bnd does not take it for one. */
    static final String ROOT = "/META-INF/ui";
    static final String ASSETS = "/assets/";
    static final String INDEX = "/index.html";
    static final String IMMUTABLE = "public, max-age=31536000, immutable";
    static final String REVALIDATE = "no-cache";
    private static final Map<String, String> TYPES = Map.of(
            "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8",
            "html", "text/html; charset=utf-8",
            "svg", "image/svg+xml",
            "png", "image/png",
            "ico", "image/x-icon",
            "txt", "text/plain; charset=utf-8");

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        serve(request, response, true);
    }

    @Override
    protected void doHead(HttpServletRequest request, HttpServletResponse response) throws IOException {
        serve(request, response, false);
    }

    private void serve(HttpServletRequest request, HttpServletResponse response, boolean body) throws IOException {
        String path = request.getPathInfo() == null ? "/" : request.getPathInfo();
        if (path.startsWith(ASSETS)) {
            URL asset = isPlainName(path.substring(ASSETS.length())) ? resource(path) : null;
            if (asset == null) {
                response.sendError(404);
                return;
            }
            send(asset, path, IMMUTABLE, response, body);
            return;
        }
        URL index = resource(INDEX);
        if (index == null) {
            response.sendError(500, "The UI bundle was built without its index.html");
            return;
        }
        send(index, INDEX, REVALIDATE, response, body);
    }

    /** One file name (no folders, no dot segments): assets are a flat folder, nothing else is served from it. */
    static boolean isPlainName(String name) {
        return !name.isEmpty() && name.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)+") && !name.contains("..");
    }

    static String contentType(String path) {
        String extension = path.substring(path.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return TYPES.getOrDefault(extension, "application/octet-stream");
    }

    private URL resource(String path) {
        return UiServlet.class.getResource(ROOT + path);
    }

    private static void send(URL file, String path, String cache, HttpServletResponse response, boolean body)
            throws IOException {
        URLConnection connection = file.openConnection();
        response.setStatus(200);
        response.setContentType(contentType(path));
        response.setHeader("Cache-Control", cache);
        response.setHeader("X-Content-Type-Options", "nosniff");
        long length = connection.getContentLengthLong();
        if (length >= 0) {
            response.setContentLengthLong(length);
        }
        if (!body) {
            return;
        }
        try (InputStream in = connection.getInputStream(); OutputStream out = response.getOutputStream()) {
            in.transferTo(out);
        }
    }
}
