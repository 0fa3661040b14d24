package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;

/** {@code caravan system gc}: a garbage collection now, every threshold ignored (management token). */
@Command(name = "gc", description = "Run the system garbage collection now.")
public final class SystemGcCommand extends HttpCommand {

    public SystemGcCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error running system garbage-collection";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        api.put("/v1/system/gc");
        return 0;
    }
}
