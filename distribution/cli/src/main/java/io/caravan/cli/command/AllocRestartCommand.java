package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan alloc restart [-all-tasks] [-task T] ALLOC [TASK]}: restarts tasks in place, on their client. */
@Command(name = "restart", description = "Restart a running allocation or task.")
public final class AllocRestartCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or a unique prefix of one.")
    String alloc;

    @Parameters(index = "1", arity = "0..1", paramLabel = "TASK", description = "The task to restart.")
    String taskArg;

    @Option(names = {"-task", "--task"}, description = "The task to restart.")
    String task;

    @Option(names = {"-all-tasks", "--all-tasks"}, description = "Restart every task, dead ones included.")
    boolean allTasks;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public AllocRestartCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Failed to restart allocation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String named = task != null ? task : taskArg;
        if (allTasks && named != null) {
            throw new UsageException("The -all-tasks option is not allowed when restarting a specific task.");
        }
        AllocTask target = AllocTask.resolve(api, alloc, named, true);
        var body = io.caravan.api.json.NomadJson.mapper().createObjectNode();
        if (target.task() != null) {
            body.put("TaskName", target.task());
        }
        body.put("AllTasks", allTasks);
        api.put("/v1/client/allocation/" + Json.pathSegment(target.allocId()) + "/restart", body);
        ctx.out().println("Restarted " + (target.task() != null ? "task \"" + target.task() + "\" of " : "")
                + "allocation \"" + (verbose ? target.allocId() : target.allocId().substring(0, 8)) + "\"");
        return 0;
    }
}
