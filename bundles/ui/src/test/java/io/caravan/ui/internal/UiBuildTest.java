package io.caravan.ui.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * What the npm build put in the bundle, read the way {@link UiServlet} reads it (class-path resources): an
 * index.html that names a script and a style sheet under {@code assets/}, and both files there.
 */
class UiBuildTest {
    private static final Pattern ASSET = Pattern.compile("\"/ui(/assets/[^\"]+)\"");

    private static String read(String path) throws IOException {
        try (InputStream in = UiServlet.class.getResourceAsStream(UiServlet.ROOT + path)) {
            assertNotNull(in, UiServlet.ROOT + path + " is in the bundle");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void indexNamesTheBuiltScriptAndStyleSheet() throws IOException {
        String index = read(UiServlet.INDEX);
        assertTrue(index.contains("<div id=\"app\">"), index);
        Matcher assets = ASSET.matcher(index);
        int scripts = 0;
        int styles = 0;
        while (assets.find()) {
            String asset = assets.group(1);
            assertTrue(UiServlet.isPlainName(asset.substring(UiServlet.ASSETS.length())), asset);
            String body = read(asset);
            if (asset.endsWith(".js")) {
                scripts++;
                assertTrue(body.length() > 10_000, "the bundled app (Preact, htm and the pages): " + body.length());
                assertTrue(body.contains("/v1/jobs"), "the bundle holds the pages' code");
            } else if (asset.endsWith(".css")) {
                styles++;
                assertTrue(body.contains("@media"), "the style sheet has its phone layout");
            }
        }
        assertEquals(1, scripts, index);
        assertEquals(1, styles, index);
        assertFalse(index.contains("%APP_JS%") || index.contains("%STYLE_CSS%"), "placeholders replaced: " + index);
    }

    @Test
    void assetNamesAreSingleFileNames() {
        assertTrue(UiServlet.isPlainName("app-24QC2I3B.js"));
        assertFalse(UiServlet.isPlainName(""));
        assertFalse(UiServlet.isPlainName("../index.html"));
        assertFalse(UiServlet.isPlainName("x/app.js"));
        assertFalse(UiServlet.isPlainName("..js"));
        assertFalse(UiServlet.isPlainName("noextension"));
    }

    @Test
    void contentTypesByExtension() {
        assertEquals("text/javascript; charset=utf-8", UiServlet.contentType("/assets/app-X.js"));
        assertEquals("text/css; charset=utf-8", UiServlet.contentType("/assets/style-X.CSS"));
        assertEquals("text/html; charset=utf-8", UiServlet.contentType("/index.html"));
        assertEquals("application/octet-stream", UiServlet.contentType("/assets/x.bin"));
    }
}
