package io.caravan.cli.command;

import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan operator root keyring remove <key ID>}: removes an inactive root key. */
@Command(name = "remove", description = "Remove an inactive root key (the active one cannot be removed).")
public final class OperatorRootKeyringRemoveCommand extends HttpCommand {
    @Parameters(index = "0", paramLabel = "<key ID>", description = "The full ID of the key.")
    String keyId;

    public OperatorRootKeyringRemoveCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "error";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        api.delete("/v1/operator/keyring/key/" + keyId, Map.of());
        ctx.out().println("Removed encryption key " + keyId);
        return 0;
    }
}
