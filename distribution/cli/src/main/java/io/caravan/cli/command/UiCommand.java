package io.caravan.cli.command;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan ui [-authenticate] [-show-url] [<identifier>]}: Nomad's command. Opens the web UI (a job, allocation
 * or node found by ID prefix, as {@code status} finds it) in the browser when there is a display ({@code xdg-open});
 * without one, prints the URL. {@code -authenticate} exchanges the caller's token for a one-time token the UI signs in
 * with ({@code ?ott=}).
 */
@Command(name = "ui", description = {"Open the Caravan web UI in the default browser. An optional identifier may be",
        "given (a job, allocation or node ID, or a prefix of one) to open the page of that object."})
public final class UiCommand extends HttpCommand {
    /** The contexts the UI has pages for, in Nomad's order, and each one's path. */
    private static final Map<String, String> PAGES = Map.of("jobs", "/ui/jobs/", "allocs", "/ui/allocations/",
            "nodes", "/ui/clients/");
    private static final List<String> CONTEXTS = List.of("jobs", "allocs", "nodes");

    @Option(names = {"-authenticate", "--authenticate"},
            description = "Exchange your ACL token for a one-time token the web UI signs in with.")
    boolean authenticate;

    @Option(names = {"-show-url", "--show-url"},
            description = "Print the URL as well (with the one-time token, under -authenticate).")
    boolean showUrl;

    @Parameters(arity = "0..1", paramLabel = "<identifier>", description = "A job, allocation or node ID or prefix.")
    String id;

    public UiCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error opening the web UI";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String base = connection.resolve(ctx).address().replaceAll("/+$", "");
        String ott = null;
        if (authenticate) {
            try {
                ott = api.post("/v1/acl/token/onetime", NomadJson.mapper().createObjectNode())
                        .path("OneTimeToken").path("OneTimeSecretID").asText("");
            } catch (ApiException e) {
                ctx.err().println("Could not get one-time token: " + e.getMessage());
                return 1;
            }
        }
        String path = "/ui/";
        if (id != null) {
            path = page(api);
            if (path == null) {
                return 1;
            }
        }
        String url = base + path;
        String full = ott == null || ott.isEmpty() ? url : url + "?ott=" + URLEncoder.encode(ott,
                StandardCharsets.UTF_8);
        ctx.out().println("Opening URL \"" + url + "\"" + (full.equals(url) ? "" : " with one-time token"));
        boolean display = ctx.env("DISPLAY", "WAYLAND_DISPLAY") != null;
        if (showUrl || !display) {
            ctx.out().println("URL for web UI: " + full);
        }
        if (!display) {
            return 0;
        }
        try {
            Process opener = new ProcessBuilder("xdg-open", full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            opener.getOutputStream().close();
            return 0;
        } catch (IOException e) {
            ctx.err().println("Error opening URL: " + e.getMessage());
            return 1;
        }
    }

    /** The UI path of the one job, allocation or node {@link #id} names; null (and a message) when there is none. */
    private String page(ApiClient api) throws ApiException {
        JsonNode matches = StatusCommand.searchAll(api, id);
        String match = null;
        String fullId = null;
        int single = 0;
        for (String context : CONTEXTS) {
            JsonNode ids = matches.path(context);
            if (ids.size() == 1) {
                match = context;
                fullId = ids.get(0).asText();
                single++;
            } else if (ids.size() > 0 && id.equals(ids.get(0).asText())) {
                match = context;
                fullId = id;
                break;
            }
            if (single > 1 || ids.size() > 1) {
                multipleMatches(matches);
                return null;
            }
        }
        if (match == null) {
            ctx.err().println("Unable to resolve ID: \"" + id + "\"");
            return null;
        }
        String path = PAGES.get(match) + fullId;
        if (match.equals("jobs")) {
            String namespace = connection.namespace(ctx);
            // Nomad's UI names a job outside the default namespace as <id>@<namespace>.
            path = "default".equals(namespace) ? path : path + "@" + namespace;
        }
        return path;
    }

    private void multipleMatches(JsonNode matches) {
        ctx.err().println("Multiple matches found for id \"" + id + "\"");
        for (String context : CONTEXTS) {
            JsonNode ids = matches.path(context);
            if (ids.isEmpty()) {
                continue;
            }
            List<String> all = new ArrayList<>();
            ids.forEach(v -> all.add(v.asText()));
            ctx.err().println("\n" + Character.toUpperCase(context.charAt(0)) + context.substring(1) + ":");
            ctx.err().println(String.join(", ", all));
        }
    }
}
