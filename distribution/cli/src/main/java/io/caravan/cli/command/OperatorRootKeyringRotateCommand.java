package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan operator root keyring rotate [-full] [-verbose]}: a new active root key. */
@Command(name = "rotate", description = "Generate a new active root key; the previous one stays to verify.")
public final class OperatorRootKeyringRotateCommand extends HttpCommand {
    static final String PATH = "/v1/operator/keyring/rotate";

    @Option(names = {"-full", "--full"},
            description = "Also re-encrypt every variable under the new key (in the background, on the leader).")
    boolean full;

    @Option(names = {"-verbose", "--verbose"}, description = "Show the full key ID.")
    boolean verbose;

    public OperatorRootKeyringRotateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "error";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        var reply = api.put(PATH, full ? Map.of("full", "true") : Map.of(), null);
        OperatorRootKeyringCommand.print(ctx, List.of(reply.path("Key")), verbose);
        return 0;
    }
}
