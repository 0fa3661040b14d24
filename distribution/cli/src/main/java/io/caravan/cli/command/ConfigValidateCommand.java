package io.caravan.cli.command;

import java.util.List;
import java.util.concurrent.Callable;

import io.caravan.agent.config.ConfigValidation;
import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code caravan config validate PATH...}: checks agent configuration files locally, no agent needed. */
@Command(name = "validate", description = "Check agent configuration files (HCL or JSON) without an agent.")
public final class ConfigValidateCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Files or directories, merged in order.")
    List<String> paths;

    private final Context ctx;

    public ConfigValidateCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        List<String> problems = ConfigValidation.validate(paths);
        if (problems.isEmpty()) {
            ctx.out().println("Configuration is valid!");
            return 0;
        }
        problems.forEach(ctx.err()::println);
        return 1;
    }
}
