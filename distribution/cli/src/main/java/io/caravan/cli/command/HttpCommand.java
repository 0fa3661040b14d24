package io.caravan.cli.command;

import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Base of every command that talks to the agent: connection options, API errors as one line + exit 1, and
 * misused flags as Nomad reports them (the problem, then "For additional help try 'caravan ... -h'").
 */
public abstract class HttpCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    protected final Context ctx;

    protected HttpCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public final Integer call() {
        try {
            return run(new ApiClient(connection.resolve(ctx)));
        } catch (UsageException e) {
            return e.report(ctx.err(), spec);
        } catch (ApiException e) {
            ctx.err().println(errorPrefix() + ": " + e.getMessage());
            return errorExitCode();
        }
    }

    /** Nomad's wording for a failed query of this command, e.g. {@code "Error querying agent info"}. */
    protected abstract String errorPrefix();

    /** The exit code of a failed call: 1, as for most Nomad commands ({@code job plan} uses 255). */
    protected int errorExitCode() {
        return 1;
    }

    protected abstract int run(ApiClient api) throws ApiException, UsageException;
}
