package io.caravan.cli.command;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * Nomad's deployment output, shared by the {@code deployment} commands, {@code job deployments}, {@code job status}
 * and the deployment monitor: the list, one deployment's {@code key = value} block and its "Deployed" group table,
 * and the ID lookup.
 */
final class Deployments {
    private static final int UUID_LENGTH = 36;

    private Deployments() {
    }

    /** Nomad's formatDeployments: the table in the server's order, or "No deployments found". */
    static List<String> list(JsonNode deployments, boolean verbose) {
        if (deployments == null || !deployments.isArray() || deployments.isEmpty()) {
            return List.of("No deployments found");
        }
        Table table = new Table("ID", "Job ID", "Job Version", "Status", "Description");
        for (JsonNode d : deployments) {
            table.row(Nomad.id(Json.text(d.get("ID")), verbose), Json.text(d.get("JobID")),
                    Long.toString(d.path("JobVersion").asLong()), Json.text(d.get("Status")),
                    Json.text(d.get("StatusDescription")));
        }
        return table.lines();
    }

    /**
     * Nomad's formatDeployment: ID, Job ID, Job Version, Status, Description, then "Deployed" and the groups; with
     * {@code withJob} false the shorter block {@code job status} shows under "Latest Deployment" (no job lines).
     * A JSON null (a job without deployments) is "No deployment found".
     */
    static List<String> details(JsonNode d, boolean verbose, boolean withJob, ZoneId zone) {
        if (d == null || d.isNull() || d.isMissingNode()) {
            return List.of("No deployment found");
        }
        List<List<String>> high = new ArrayList<>();
        high.add(List.of("ID", Nomad.id(Json.text(d.get("ID")), verbose)));
        if (withJob) {
            high.add(List.of("Job ID", Json.text(d.get("JobID"))));
            high.add(List.of("Job Version", Long.toString(d.path("JobVersion").asLong())));
        }
        high.add(List.of("Status", Json.text(d.get("Status"))));
        high.add(List.of("Description", Json.text(d.get("StatusDescription"))));
        List<String> lines = new ArrayList<>();
        StringWriter kv = new StringWriter();
        try (PrintWriter w = new PrintWriter(kv)) {
            Nomad.keyValues(w, high);
        }
        kv.toString().lines().forEach(lines::add);
        JsonNode groups = d.path("TaskGroups");
        if (!groups.isObject() || groups.isEmpty()) {
            return lines;
        }
        lines.add("");
        lines.add("Deployed");
        lines.addAll(groups(groups, zone));
        return lines;
    }

    /**
     * Nomad's formatDeploymentGroups: sorted by name; "Auto Revert" only when a group reverts, "Promoted" and
     * "Canaries" only when a group wants canaries, "Progress Deadline" only when a group has one.
     */
    static List<String> groups(JsonNode groups, ZoneId zone) {
        boolean autoRevert = false;
        boolean canaries = false;
        boolean progressDeadline = false;
        for (String name : Json.sortedFieldNames(groups)) {
            JsonNode g = groups.get(name);
            autoRevert |= g.path("AutoRevert").asBoolean();
            canaries |= g.path("DesiredCanaries").asLong() > 0;
            progressDeadline |= g.path("ProgressDeadline").asLong() != 0;
        }
        List<String> header = new ArrayList<>(List.of("Task Group"));
        if (autoRevert) {
            header.add("Auto Revert");
        }
        if (canaries) {
            header.add("Promoted");
        }
        header.add("Desired");
        if (canaries) {
            header.add("Canaries");
        }
        header.addAll(List.of("Placed", "Healthy", "Unhealthy"));
        if (progressDeadline) {
            header.add("Progress Deadline");
        }
        Table table = new Table(header.toArray(String[]::new));
        for (String name : Json.sortedFieldNames(groups)) {
            JsonNode g = groups.get(name);
            List<String> row = new ArrayList<>(List.of(name));
            if (autoRevert) {
                row.add(Boolean.toString(g.path("AutoRevert").asBoolean()));
            }
            boolean wantsCanaries = g.path("DesiredCanaries").asLong() > 0;
            if (canaries) {
                row.add(wantsCanaries ? Boolean.toString(g.path("Promoted").asBoolean()) : "N/A");
            }
            row.add(Long.toString(g.path("DesiredTotal").asLong()));
            if (canaries) {
                row.add(Long.toString(g.path("DesiredCanaries").asLong()));
            }
            row.add(Long.toString(g.path("PlacedAllocs").asLong()));
            row.add(Long.toString(g.path("HealthyAllocs").asLong()));
            row.add(Long.toString(g.path("UnhealthyAllocs").asLong()));
            if (progressDeadline) {
                String by = Nomad.time(g.get("RequireProgressBy"), zone);
                row.add(by.isEmpty() ? "N/A" : by);
            }
            table.row(row);
        }
        return table.lines();
    }

    /** Whether any group of the deployment reverts on failure (Nomad's hasAutoRevert). */
    static boolean autoReverts(JsonNode d) {
        for (JsonNode g : d.path("TaskGroups")) {
            if (g.path("AutoRevert").asBoolean()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Nomad's getDeployment: a full ID is read directly; anything shorter is a prefix of at least two characters,
     * looked up with {@code ?prefix=}; an exact match wins over longer ones. Several matches are printed to
     * {@code err} as Nomad does ("Prefix matched multiple deployments" and their table) and give null.
     *
     * @throws ApiException when the deployment cannot be read or nothing matches
     */
    static JsonNode lookup(ApiClient api, String prefixOrId, boolean verbose, PrintWriter err) throws ApiException {
        String id = prefixOrId.strip();
        if (id.length() == UUID_LENGTH) {
            return api.get("/v1/deployment/" + Json.pathSegment(id));
        }
        if (id.length() < 2) {
            throw new ApiException("Identifier must contain at least two characters.");
        }
        JsonNode matches = api.get("/v1/deployments", Map.of("prefix", id));
        if (!matches.isArray() || matches.isEmpty()) {
            throw new ApiException("Deployment ID " + Nomad.quote(id) + " matched no deployments");
        }
        for (JsonNode m : matches) {
            if (id.equals(Json.text(m.get("ID")))) {
                return m;
            }
        }
        if (matches.size() == 1) {
            return matches.get(0);
        }
        err.println("Prefix matched multiple deployments");
        err.println();
        list(matches, verbose).forEach(err::println);
        return null;
    }
}
