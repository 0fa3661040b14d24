package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;

/** {@code caravan system reconcile summaries}: every job summary counted again (management token). */
@Command(name = "summaries", description = "Reconcile the summaries of all registered jobs.")
public final class SystemReconcileSummariesCommand extends HttpCommand {

    public SystemReconcileSummariesCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reconciling job summaries";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        api.put("/v1/system/reconcile/summaries");
        ctx.out().println("Successfully reconciled job summaries");
        return 0;
    }
}
