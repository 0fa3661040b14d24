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
        ConfigValidation.Result result = ConfigValidation.check(paths);
        if (result.problems().isEmpty()) {
            // Valid, but said out loud: keys that load yet change nothing.
            result.unsupported().forEach(u -> ctx.err().println(u.position() + ": warning: " + u.key()
                    + " is not supported yet and has no effect: " + u.reason()));
            ctx.out().println("Configuration is valid!");
            return 0;
        }
        result.problems().forEach(ctx.err()::println);
        return 1;
    }
}
