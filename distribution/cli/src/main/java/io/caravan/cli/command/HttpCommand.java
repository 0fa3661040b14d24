package io.caravan.cli.command;

import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Mixin;

/** Base of every command that talks to the agent: connection options, and API errors as one line + exit 1. */
public abstract class HttpCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Mixin
    HelpOption help;

    protected final Context ctx;

    protected HttpCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public final Integer call() {
        try {
            return run(new ApiClient(connection.resolve(ctx)));
        } catch (ApiException e) {
            ctx.err().println(errorPrefix() + ": " + e.getMessage());
            return errorExitCode();
        }
    }

    /** The exit code of a failed call: 1, as for most Nomad commands ({@code job plan} uses 255). */
    protected int errorExitCode() {
        return 1;
    }

    /** Nomad's wording for a failed query of this command, e.g. {@code "Error querying agent info"}. */
    protected abstract String errorPrefix();

    protected abstract int run(ApiClient api) throws ApiException;
}
