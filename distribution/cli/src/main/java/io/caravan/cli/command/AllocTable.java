package io.caravan.cli.command;

import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;

/**
 * Nomad's allocation list, shared by {@code job status} and {@code node status}: short IDs and "5m ago" times, or
 * with {@code -verbose} full IDs, the evaluation and absolute times. Takes list stubs ({@code JobVersion}) as well
 * as full allocations ({@code Job.Version}).
 */
final class AllocTable {
    private AllocTable() {
    }

    /** The table's lines, or Nomad's "No allocations placed". */
    static List<String> lines(JsonNode allocs, boolean verbose, boolean nodeNameColumn, ZoneId zone) {
        if (allocs == null || allocs.isEmpty()) {
            return List.of("No allocations placed");
        }
        List<String> header = new ArrayList<>(List.of("ID"));
        if (verbose) {
            header.add("Eval ID");
        }
        header.add("Node ID");
        if (verbose && nodeNameColumn) {
            header.add("Node Name");
        }
        header.addAll(List.of("Task Group", "Version", "Desired", "Status", "Created", "Modified"));
        Table table = new Table(header.toArray(String[]::new)).placeholder(Nomad.NONE);
        Instant now = Instant.now();
        for (JsonNode a : allocs) {
            List<String> row = new ArrayList<>(List.of(Nomad.id(Json.text(a.get("ID")), verbose)));
            if (verbose) {
                row.add(Nomad.id(Json.text(a.get("EvalID")), true));
            }
            row.add(Nomad.id(Json.text(a.get("NodeID")), verbose));
            if (verbose && nodeNameColumn) {
                row.add(Json.text(a.get("NodeName")));
            }
            long created = a.path("CreateTime").asLong();
            long modified = a.path("ModifyTime").asLong();
            row.addAll(List.of(Json.text(a.get("TaskGroup")), version(a), Json.text(a.get("DesiredStatus")),
                    Json.text(a.get("ClientStatus")),
                    verbose ? Nomad.date(created, zone) : Nomad.ago(created, now),
                    verbose ? Nomad.date(modified, zone) : Nomad.ago(modified, now)));
            table.row(row);
        }
        return table.lines();
    }

    private static String version(JsonNode alloc) {
        JsonNode version = alloc.has("JobVersion") ? alloc.get("JobVersion") : alloc.path("Job").get("Version");
        return Long.toString(version == null ? 0 : version.asLong());
    }
}
