package io.caravan.cli.command;

import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import io.caravan.cli.Version;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code caravan version}: local only, no agent needed. */
@Command(name = "version", description = "Print the Caravan version.")
public final class VersionCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    private final Context ctx;

    public VersionCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        ctx.out().println(Version.banner());
        return 0;
    }
}
