package io.caravan.cli.command;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan namespace status NAME}: the namespace's fields, then its metadata, as Nomad prints them. */
@Command(name = "status", description = "Display a namespace's status.")
public final class NamespaceStatusCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the namespace in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "<namespace>", description = "The namespace's name.")
    List<String> args = List.of();

    public NamespaceStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving namespace";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <namespace>");
        }
        JsonNode ns = api.get("/v1/namespace/" + Json.pathSegment(args.get(0)));
        if (json) {
            ctx.out().println(Json.indent(ns));
            return 0;
        }
        Nomad.keyValues(ctx.out(), "Name", Json.text(ns.get("Name")), "Description", Json.text(ns.get("Description")),
                "Quota", Json.text(ns.get("Quota")));
        JsonNode meta = ns.path("Meta");
        if (meta.isObject() && !meta.isEmpty()) {
            ctx.out().println();
            ctx.out().println("Namespace Metadata");
            List<String> pairs = new java.util.ArrayList<>();
            for (String key : Json.sortedFieldNames(meta)) {
                pairs.add(key);
                pairs.add(Json.text(meta.get(key)));
            }
            Nomad.keyValues(ctx.out(), pairs.toArray(String[]::new));
        }
        return 0;
    }
}
