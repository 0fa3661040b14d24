package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan service list}: the registered services' names and tags (with namespaces for {@code -namespace *}). */
@Command(name = "list", description = "List registered services.")
public final class ServiceListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the services in JSON format.")
    boolean json;

    @Parameters(arity = "0..*", hidden = true)
    List<String> args = List.of();

    public ServiceListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing service registrations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (!args.isEmpty()) {
            throw new UsageException("This command takes no arguments");
        }
        JsonNode namespaces = api.get("/v1/services");
        if (json) {
            ctx.out().println(Json.indent(namespaces));
            return 0;
        }
        boolean every = "*".equals(connection.namespace(ctx));
        Table table = every ? new Table("Service Name", "Namespace", "Tags") : new Table("Service Name", "Tags");
        for (JsonNode ns : namespaces) {
            for (JsonNode service : ns.path("Services")) {
                List<String> tags = new ArrayList<>();
                service.path("Tags").forEach(t -> tags.add(t.asText()));
                String tagText = "[" + String.join(",", tags) + "]";
                if (every) {
                    table.row(service.path("ServiceName").asText(), ns.path("Namespace").asText(), tagText);
                } else {
                    table.row(service.path("ServiceName").asText(), tagText);
                }
            }
        }
        if (table.isEmpty()) {
            ctx.out().println("No service registrations found");
            return 0;
        }
        table.print(ctx.out());
        return 0;
    }
}
