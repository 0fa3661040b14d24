package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan event stream [-topic Topic:Key]... [-index N]}: tails {@code /v1/event/stream} and prints it as the
 * agent sends it (NDJSON, {@code {}} heartbeats included) until the agent ends it or the user interrupts. Caravan's
 * addition; with Nomad the same is {@code nomad operator api /v1/event/stream}.
 */
@Command(name = "stream", description = "Stream the cluster's events as NDJSON (one line per Raft index).")
public final class EventStreamCommand extends HttpCommand {

    @Option(names = {"-topic", "--topic"}, paramLabel = "<Topic:Key>",
            description = "A topic to subscribe to, e.g. Job:* or Allocation:<id>; repeat for more. Default: all"
                    + " topics (needs a management token).")
    List<String> topics = List.of();

    @Option(names = {"-index", "--index"}, paramLabel = "<index>", defaultValue = "0",
            description = "Start at the first buffered event at or after this Raft index (0: the whole buffer).")
    long index;

    @Parameters(arity = "0..*", hidden = true)
    List<String> args = List.of();

    public EventStreamCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error streaming events";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (!args.isEmpty()) {
            throw new UsageException("This command takes no arguments");
        }
        if (index < 0) {
            throw new UsageException("-index must be 0 or more");
        }
        Map<String, String> query = new LinkedHashMap<>();
        if (index > 0) {
            query.put("index", Long.toString(index));
        }
        api.copy("/v1/event/stream", query, "topic", topics, new TextSink(ctx.out()));
        ctx.out().flush();
        return 0;
    }
}
