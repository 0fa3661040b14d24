package io.caravan.cli;

import java.util.concurrent.Callable;

import io.caravan.cli.command.HelpOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** The top-level {@code caravan} command; its subcommands are added by {@link Main}. */
@Command(name = "caravan", versionProvider = CaravanCommand.VersionProvider.class,
        description = "A Nomad-compatible workload orchestrator.",
        synopsisSubcommandLabel = "<command>")
public final class CaravanCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Option(names = {"-v", "-version", "--version"}, versionHelp = true, description = "Print the version and exit.")
    boolean version;

    @Spec
    CommandSpec spec;

    /** No command given: like Nomad, print the usage to stderr and fail. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 1;
    }

    static final class VersionProvider implements IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {Version.banner()};
        }
    }
}
