package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan alloc signal [-s SIGNAL] [-task T] ALLOC [TASK]}: signals one task, or every task. */
@Command(name = "signal", description = "Signal a running allocation or task.")
public final class AllocSignalCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or a unique prefix of one.")
    String alloc;

    @Parameters(index = "1", arity = "0..1", paramLabel = "TASK", description = "The task to signal.")
    String taskArg;

    @Option(names = {"-task", "--task"}, description = "The task to signal.")
    String task;

    @Option(names = {"-s", "--s"}, description = "The signal to send (default SIGKILL, as Nomad).")
    String signal = "SIGKILL";

    public AllocSignalCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error signalling allocation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        AllocTask target = AllocTask.resolve(api, alloc, task != null ? task : taskArg, true);
        var body = io.caravan.api.json.NomadJson.mapper().createObjectNode();
        if (target.task() != null) {
            body.put("Task", target.task());
        }
        body.put("Signal", signal.startsWith("SIG") ? signal : "SIG" + signal);
        api.put("/v1/client/allocation/" + Json.pathSegment(target.allocId()) + "/signal", body);
        return 0;
    }
}
