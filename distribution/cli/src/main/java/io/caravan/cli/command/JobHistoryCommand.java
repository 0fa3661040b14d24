package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.JobDiff;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job history ID}: the job's versions, newest first, as Nomad prints them; {@code -p} adds each
 * version's difference from its predecessor ({@code versions?diffs=true}), {@code -full} the whole job,
 * {@code -version} keeps one version.
 */
@Command(name = "history", description = "Display the versions of a job.")
public final class JobHistoryCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-p", "--p"}, description = "Display the difference between each version and its predecessor.")
    boolean diff;

    @Option(names = {"-full", "--full"}, description = "Display the full job definition of each version.")
    boolean full;

    @Option(names = {"-version", "--version"}, paramLabel = "VERSION", description = "Display only this version.")
    String version;

    public JobHistoryCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving job versions";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (json && (diff || full)) {
            throw new UsageException("-json and -t are exclusive with -p and -full");
        }
        Long only = null;
        if (version != null) {
            if (!version.matches("\\d{1,18}")) {
                ctx.err().println("Error parsing version value " + Nomad.quote(version) + ": invalid syntax");
                return 1;
            }
            only = Long.parseLong(version);
        }
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        JsonNode response = api.get("/v1/job/" + Json.pathSegment(jobId) + "/versions",
                diff ? Map.of("diffs", "true") : Map.of());
        JsonNode versions = response.path("Versions");
        JsonNode diffs = response.path("Diffs");
        int diffCount = diffs.isArray() ? diffs.size() : 0;
        // Diffs[i] compares Versions[i] (newer) with Versions[i + 1]; a server that sends none leaves them out.
        if (diffCount != 0 && versions.size() != diffCount + 1) {
            ctx.err().println("Number of job versions " + versions.size() + " doesn't match number of diffs "
                    + diffCount);
            return 1;
        }
        if (only != null) {
            for (int i = 0; i < versions.size(); i++) {
                if (versions.get(i).path("Version").asLong() == only) {
                    if (json) {
                        ctx.out().println(Json.indent(versions.get(i)));
                    } else {
                        print(versions.get(i), i < diffCount ? diffs.get(i) : null);
                    }
                    return 0;
                }
            }
            if (json) {
                ctx.out().println("null");
                return 0;
            }
            ctx.err().println("Error printing job history for non-existing job or job version");
            return 1;
        }
        if (json) {
            ctx.out().println(Json.indent(versions));
            return 0;
        }
        for (int i = 0; i < versions.size(); i++) {
            if (i > 0) {
                ctx.out().println();
            }
            print(versions.get(i), i < diffCount ? diffs.get(i) : null);
        }
        return 0;
    }

    /** Nomad's formatJobVersion: the {@code key = value} block, the diff and the full job under it. */
    private void print(JsonNode v, JsonNode jobDiff) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("Version", Json.text(v.get("Version"))));
        rows.add(List.of("Stable", Boolean.toString(v.path("Stable").asBoolean())));
        rows.add(List.of("Submit Date", Nomad.date(v.path("SubmitTime").asLong(), ctx.zone())));
        JsonNode tag = v.path("VersionTag");
        if (tag.hasNonNull("Name")) {
            rows.add(List.of("Tag Name", Json.text(tag.get("Name"))));
            if (!Json.text(tag.get("Description")).isEmpty()) {
                rows.add(List.of("Tag Description", Json.text(tag.get("Description"))));
            }
        }
        int header = rows.size();
        if (jobDiff != null) {
            rows.add(List.of("Diff", ""));
        }
        if (full) {
            rows.add(List.of("Full", "JSON Job:"));
        }
        List<String> lines = Table.format(rows, " = ");
        for (int i = 0; i < header; i++) {
            ctx.out().println(lines.get(i));
        }
        int next = header;
        if (jobDiff != null) {
            // Nomad's value starts on the next line: "Diff = " then the diff, unindented.
            ctx.out().println(lines.get(next++) + " ");
            ctx.out().println(JobDiff.format(jobDiff, false));
        }
        if (full) {
            ctx.out().println(lines.get(next));
            ctx.out().println(Json.indent(v));
        }
    }
}
