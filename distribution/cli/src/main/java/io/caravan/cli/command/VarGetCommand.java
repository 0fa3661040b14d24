package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan var get [-item K] [-out ...] PATH}: prints a variable, or one item's value without a newline. */
@Command(name = "get", description = "Read a variable.")
public final class VarGetCommand extends HttpCommand {

    @Option(names = {"-item", "--item"}, paramLabel = "<key>", description = "Print only this item's value.")
    String item;

    @Option(names = {"-out", "--out"}, paramLabel = "go-template|hcl|json|none|table",
            description = "How to print the variable. Default: table on a terminal, json otherwise.")
    String out;

    @Option(names = {"-template", "--template"}, paramLabel = "<template>",
            description = "The template for -out go-template.")
    String template;

    @Parameters(arity = "0..*", paramLabel = "PATH", description = "The variable's path.")
    List<String> args = List.of();

    public VarGetCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving variable";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String format = out != null ? out : Vars.terminal() ? "table" : "json";
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <path>");
        }
        Vars.checkOut(format, template, true);
        String namespace = connection.namespace(ctx);
        if (namespace.equals("*")) {
            ctx.err().println(Vars.ERR_WILDCARD);
            return 1;
        }
        ApiClient.Answer answer = api.call("GET", Vars.url(args.get(0)), Map.of("namespace", namespace), null, 404);
        if (answer.status() == 404) {
            ctx.err().println(Vars.NOT_FOUND);
            return 1;
        }
        JsonNode variable = answer.body();
        if (item != null && !item.isEmpty()) {
            JsonNode value = variable.path("Items").get(item);
            if (value == null) {
                ctx.err().println("Variable does not contain \"" + item + "\" item");
                return 1;
            }
            ctx.out().print(value.asText());
            ctx.out().flush();
            return 0;
        }
        switch (format) {
            case "none" -> { }
            case "table" -> Vars.table(ctx.out(), variable, ctx.zone());
            default -> {
                try {
                    ctx.out().println(Vars.render(variable, format, template));
                } catch (IllegalArgumentException e) {
                    ctx.err().println(e.getMessage());
                    return 1;
                }
            }
        }
        return 0;
    }
}
