package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan namespace apply [-description D] <input>}: as Nomad's, {@code <input>} is a specification file (HCL,
 * or JSON with {@code -json}), {@code -} for one on standard input, or else the name of the namespace to create or
 * update (an existing namespace keeps what the flags do not change).
 */
@Command(name = "apply", description = {"Create or update a namespace.",
        "<input> is a namespace specification file ('-' reads it from standard input) or a namespace name."})
public final class NamespaceApplyCommand extends HttpCommand {

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "An optional human readable description for the namespace.")
    String description;

    @Option(names = {"-quota", "--quota"}, paramLabel = "<quota>",
            description = "A quota to attach to the namespace (Caravan has no quotas: the agent refuses it).")
    String quota;

    @Option(names = {"-json", "--json"}, description = "Parse the input as JSON rather than HCL.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "<input>", description = "A specification file, '-', or a name.")
    List<String> args = List.of();

    public NamespaceApplyCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error applying namespace specification";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <input>");
        }
        String input = args.get(0);
        ObjectNode ns;
        if (InputFile.STDIN.equals(input) || Files.isRegularFile(ctx.file(input))) {
            try {
                String name = InputFile.STDIN.equals(input) ? "<stdin>" : input;
                String text = InputFile.STDIN.equals(input) ? InputFile.read(ctx, input)
                        : Files.readString(ctx.file(input));
                ns = NamespaceSpec.parse(text, name, json);
            } catch (IOException e) {
                ctx.err().println("Error parsing namespace specification: " + InputFile.reason(e));
                return 1;
            }
        } else {
            ns = existing(api, input);
            ns.put("Name", input);
        }
        if (description != null) {
            ns.put("Description", description);
        }
        if (quota != null) {
            ns.put("Quota", quota);
        }
        String name = Json.text(ns.get("Name"));
        if (name.isEmpty()) {
            ctx.err().println("Namespace name required");
            return 1;
        }
        api.put("/v1/namespace/" + Json.pathSegment(name), ns);
        ctx.out().println("Successfully applied namespace \"" + name + "\"!");
        return 0;
    }

    /** The namespace as stored, so that applying it by name changes only what the flags say; empty if new. */
    private static ObjectNode existing(ApiClient api, String name) throws ApiException {
        try {
            JsonNode found = api.get("/v1/namespace/" + Json.pathSegment(name));
            ObjectNode ns = NomadJson.mapper().createObjectNode();
            ns.set("Description", found.path("Description"));
            if (found.path("Meta").isObject()) {
                ns.set("Meta", found.get("Meta"));
            }
            return ns;
        } catch (ApiException e) {
            if (e.getMessage().startsWith("Unexpected response code: 404")) {
                return NomadJson.mapper().createObjectNode();
            }
            throw e;
        }
    }
}
