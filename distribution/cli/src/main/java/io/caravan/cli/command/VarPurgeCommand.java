package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan var purge [-check-index N] PATH}: deletes a variable, as a check-and-set with the index. */
@Command(name = "purge", description = "Purge a variable.")
public final class VarPurgeCommand extends HttpCommand {

    @Option(names = {"-check-index", "--check-index"}, paramLabel = "<index>",
            description = "Delete only if the variable's modify index is this (0: only if it does not exist).")
    String checkIndex;

    @Parameters(arity = "0..*", paramLabel = "PATH", description = "The variable's path.")
    List<String> args = List.of();

    public VarPurgeCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error purging variable";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <path>");
        }
        Long index = null;
        if (checkIndex != null && !checkIndex.isEmpty()) {
            try {
                index = Long.parseUnsignedLong(checkIndex);
            } catch (NumberFormatException e) {
                boolean digits = checkIndex.chars().allMatch(Character::isDigit);
                ctx.err().println("Invalid -check-index value \"" + checkIndex + "\": "
                        + (digits ? "out of range for uint64" : "not parsable as uint64"));
                return 1;
            }
        }
        String namespace = connection.namespace(ctx);
        if (namespace.equals("*")) {
            ctx.err().println(Vars.ERR_WILDCARD);
            return 1;
        }
        String path = args.get(0);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("namespace", namespace);
        if (index != null) {
            query.put("cas", Long.toString(index));
        }
        ApiClient.Answer answer = api.call("DELETE", Vars.url(path), query, null, 409);
        if (answer.status() == 409) {
            Vars.casConflict(ctx.err(), index == null ? 0 : index, answer.body(), ctx.zone());
            return 1;
        }
        ctx.out().println("Successfully purged variable \"" + path + "\"!");
        return 0;
    }
}
