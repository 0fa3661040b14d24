package io.caravan.cli.command;

import picocli.CommandLine.Option;

/** {@code -h}, {@code -help} and {@code --help} on every command, as Nomad accepts all three. */
public final class HelpOption {
    @Option(names = {"-h", "-help", "--help"}, usageHelp = true, description = "Show this help and exit.")
    boolean help;
}
