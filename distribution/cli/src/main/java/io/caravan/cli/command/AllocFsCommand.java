package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan alloc fs [-stat] ALLOC [PATH]}: lists a directory of the allocation ({@code Mode Size Modified
 * Time Name}, as Nomad) or prints a file; {@code -stat} shows one entry's details instead; {@code -f} prints a file
 * and keeps printing what is appended to it ({@code /v1/client/fs/stream}) until interrupted.
 */
@Command(name = "fs", description = "Inspect the contents of an allocation directory.")
public final class AllocFsCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or a unique prefix of one.")
    String alloc;

    @Parameters(index = "1", arity = "0..1", paramLabel = "PATH", description = "A path in the allocation dir.")
    String path;

    @Option(names = {"-stat", "--stat"}, description = "Show the file's details instead of its content.")
    boolean stat;

    @Option(names = {"-f", "--f"}, description = "Keep printing what is appended to the file, until interrupted.")
    boolean follow;

    public AllocFsCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reading the allocation directory";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String allocId = AllocTask.resolve(api, alloc, null, true).allocId();
        String target = path == null || path.isEmpty() ? "/" : path;
        String id = Json.pathSegment(allocId);
        JsonNode info = api.get("/v1/client/fs/stat/" + id, Map.of("path", target));
        if (follow && (stat || info.path("IsDir").asBoolean())) {
            throw new UsageException("-f follows a file: " + target + (stat ? " (not with -stat)" : " is a directory"));
        }
        if (stat) {
            print(List.of(info));
        } else if (info.path("IsDir").asBoolean()) {
            List<JsonNode> entries = new ArrayList<>();
            api.get("/v1/client/fs/ls/" + id, Map.of("path", target)).forEach(entries::add);
            print(entries);
        } else if (follow) {
            api.copy("/v1/client/fs/stream/" + id, Map.of("path", target, "offset", "0", "origin", "start",
                    "follow", "true", "plain", "true"), new TextSink(ctx.out()));
        } else {
            api.copy("/v1/client/fs/cat/" + id, Map.of("path", target), new TextSink(ctx.out()));
        }
        ctx.out().flush();
        return 0;
    }

    private void print(List<JsonNode> entries) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("Mode", "Size", "Modified Time", "Name"));
        for (JsonNode e : entries) {
            String name = Json.text(e.get("Name")) + (e.path("IsDir").asBoolean() ? "/" : "");
            rows.add(List.of(Json.text(e.get("FileMode")), Json.text(e.get("Size")), Json.text(e.get("ModTime")),
                    name));
        }
        Table.format(rows, "  ").forEach(ctx.out()::println);
    }
}
