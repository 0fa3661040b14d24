package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan var list [-json|-q|-t TEMPLATE|-out json|table|terse] [-per-page N] [-page-token T] [-filter F]
 * [PREFIX]}: the variables' metadata (never their items); the next page's token goes to standard error.
 */
@Command(name = "list", description = "List variable metadata.")
public final class VarListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Print the list as JSON.")
    boolean json;

    @Option(names = {"-q", "--q"}, description = "Print only the paths (namespace|path for -namespace *).")
    boolean quiet;

    @Option(names = {"-t", "--t"}, paramLabel = "<template>",
            description = "Print each variable with this template (field references and index only).")
    String template;

    @Option(names = {"-out", "--out"}, paramLabel = "json|table|terse",
            description = "Output format: json as -json, terse as -q, table (the default).")
    String out;

    @Option(names = {"-per-page", "--per-page"}, paramLabel = "<n>", description = "How many results per page.")
    int perPage;

    @Option(names = {"-page-token", "--page-token"}, paramLabel = "<token>", description = "Where to start.")
    String pageToken;

    @Option(names = {"-filter", "--filter"}, paramLabel = "<expression>",
            description = "A filter expression on the variables' metadata.")
    String filter;

    @Parameters(arity = "0..*", paramLabel = "PREFIX", description = "Only paths that start with this.")
    List<String> args = List.of();

    public VarListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving vars";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() > 1) {
            throw new UsageException("This command takes flags and either no arguments or one: <prefix>");
        }
        if (out != null) {
            switch (out) {
                case "json" -> json = true;
                case "terse" -> quiet = true;
                case "table" -> { }
                default -> throw new UsageException(
                        "Invalid value for \"-out\"; valid values are [json, table, terse]");
            }
        }
        String namespace = connection.namespace(ctx);
        if (filter != null && !filter.isEmpty()) {
            ctx.err().println("Filter queries require a full scan of the data; use prefix searching where possible");
        }
        Map<String, String> query = new LinkedHashMap<>();
        query.put("namespace", namespace);
        query.put("prefix", args.isEmpty() ? "" : args.get(0));
        query.put("filter", filter);
        query.put("per_page", perPage > 0 ? Integer.toString(perPage) : "");
        query.put("next_token", pageToken);
        ApiClient.Answer response = api.call("GET", "/v1/vars", query, null);
        JsonNode vars = response.body();
        String nextToken = response.nextToken();
        if (json) {
            JsonNode items = quiet ? quietJson(vars, namespace) : vars;
            JsonNode printed = items;
            if (perPage > 0) {
                ObjectNode wrapped = NomadJson.mapper().createObjectNode();
                wrapped.set("Data", items);
                ObjectNode meta = wrapped.putObject("QueryMeta");
                meta.put("LastIndex", response.index());
                meta.put("NextToken", nextToken == null ? "" : nextToken);
                printed = wrapped;
            }
            ctx.out().println(Json.indent(printed));
            return 0;
        }
        if (quiet) {
            vars.forEach(v -> ctx.out().println(namespace.equals("*")
                    ? v.path("Namespace").asText() + "|" + v.path("Path").asText() : v.path("Path").asText()));
        } else if (template != null && !template.isEmpty()) {
            try {
                for (JsonNode v : vars) {
                    ctx.out().print(Vars.template(v, template));
                }
                ctx.out().println();
            } catch (IllegalArgumentException e) {
                ctx.err().println(e.getMessage());
                return 1;
            }
        } else if (vars.isEmpty()) {
            ctx.out().println(Vars.NONE_MATCHING);
        } else {
            List<JsonNode> sorted = new ArrayList<>();
            vars.forEach(sorted::add);
            sorted.sort((a, b) -> {
                int ns = a.path("Namespace").asText().compareTo(b.path("Namespace").asText());
                return ns != 0 ? ns : a.path("Path").asText().compareTo(b.path("Path").asText());
            });
            Table table = new Table("Namespace", "Path", "Last Updated");
            sorted.forEach(v -> table.row(v.path("Namespace").asText(), v.path("Path").asText(),
                    Nomad.date(v.path("ModifyTime").asLong(), ctx.zone())));
            table.print(ctx.out());
        }
        if (nextToken != null && !nextToken.isEmpty()) {
            ctx.err().println("Next page token: " + nextToken);
        }
        return 0;
    }

    private static JsonNode quietJson(JsonNode vars, String namespace) {
        ArrayNode list = NomadJson.mapper().createArrayNode();
        for (JsonNode v : vars) {
            if (namespace.equals("*")) {
                ObjectNode pair = list.addObject();
                pair.put("Namespace", v.path("Namespace").asText());
                pair.put("Path", v.path("Path").asText());
            } else {
                list.add(v.path("Path").asText());
            }
        }
        return list;
    }
}
