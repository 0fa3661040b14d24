package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan operator root keyring list [-verbose]}: the root keys' metadata. */
@Command(name = "list", description = "List the root keys.")
public final class OperatorRootKeyringListCommand extends HttpCommand {
    @Option(names = {"-verbose", "--verbose"}, description = "Show full key IDs.")
    boolean verbose;

    public OperatorRootKeyringListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "error";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        OperatorRootKeyringCommand.print(ctx, api.get(OperatorRootKeyringCommand.KEYS), verbose);
        return 0;
    }
}
