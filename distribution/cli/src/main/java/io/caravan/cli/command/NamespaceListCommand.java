package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan namespace list}: {@code GET /v1/namespaces}, names and descriptions as Nomad prints them. */
@Command(name = "list", description = "List namespaces.")
public final class NamespaceListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the namespaces in their JSON format.")
    boolean json;

    public NamespaceListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving namespaces";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode namespaces = api.get("/v1/namespaces");
        if (json) {
            ctx.out().println(Json.indent(namespaces));
            return 0;
        }
        if (namespaces.isEmpty()) {
            ctx.out().println("No namespaces found");
            return 0;
        }
        Table table = new Table("Name", "Description");
        namespaces.forEach(ns -> table.row(Json.text(ns.get("Name")), Json.text(ns.get("Description"))));
        table.print(ctx.out());
        return 0;
    }
}
