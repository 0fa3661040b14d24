package io.caravan.cli.command;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code caravan server}: only groups its subcommands. */
@Command(name = "server", description = "Interact with servers.", synopsisSubcommandLabel = "<subcommand>")
public final class ServerCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    /** No subcommand given: print the usage to stderr and fail, as Nomad does. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 1;
    }
}
