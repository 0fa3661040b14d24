package io.caravan.cli.command;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code caravan config}: only groups its subcommands. */
@Command(name = "config", description = "Interact with agent configuration.",
        synopsisSubcommandLabel = "<subcommand>")
public final class ConfigCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 1;
    }
}
