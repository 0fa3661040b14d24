package io.caravan.cli.format;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A plan's {@code Diff} as Nomad's {@code job plan} prints it (without colour): markers {@code +}, {@code -} and
 * {@code +/-} for added, deleted and edited parts, names aligned under the widest marker, values aligned under the
 * widest field name, task groups with their scheduler update counts, e.g.
 *
 * <pre>
 * +/- Job: "web"
 * +/- Task Group: "cache" (1 create, 2 in-place update)
 *   +/- Count: "1" =&gt; "3" (forces create)
 *       Task: "redis"
 * </pre>
 *
 * Field, object and task details of an added or deleted part are shown only with {@code verbose}, as Nomad does.
 */
public final class JobDiff {
    private final boolean verbose;

    private JobDiff(boolean verbose) {
        this.verbose = verbose;
    }

    /** The diff's text, without trailing newline. */
    public static String format(JsonNode jobDiff, boolean verbose) {
        return new JobDiff(verbose).job(jobDiff).strip();
    }

    private String job(JsonNode job) {
        String type = type(job);
        StringBuilder out = new StringBuilder(marker(type)).append("Job: ")
                .append(Nomad.quote(Json.text(job.get("ID")))).append('\n');
        int[] longest = longest(job);
        int longestField = longest[0];
        int longestMarker = longest[1];
        for (JsonNode group : job.path("TaskGroups")) {
            longestMarker = Math.max(longestMarker, marker(type(group)).length());
        }
        if (type.equals("Edited") || verbose) {
            String fieldsAndObjects = aligned(job, 0, longestField, longestMarker);
            out.append(fieldsAndObjects);
            if (!fieldsAndObjects.isEmpty()) {
                out.append('\n');
            }
        }
        for (JsonNode group : job.path("TaskGroups")) {
            out.append(group(group, longestMarker - marker(type(group)).length())).append('\n');
        }
        return out.toString();
    }

    private String group(JsonNode group, int groupPrefix) {
        String type = type(group);
        StringBuilder out = new StringBuilder(marker(type)).append(" ".repeat(groupPrefix)).append("Task Group: ")
                .append(Nomad.quote(Json.text(group.get("Name"))));
        List<String> updates = new ArrayList<>();
        JsonNode counts = group.path("Updates");
        for (String kind : Json.sortedFieldNames(counts)) {
            updates.add(counts.get(kind).asLong() + " " + kind);
        }
        if (!updates.isEmpty()) {
            out.append(" (").append(String.join(", ", updates)).append(')');
        }
        out.append('\n');
        int[] longest = longest(group);
        int longestMarker = longest[1];
        for (JsonNode task : group.path("Tasks")) {
            longestMarker = Math.max(longestMarker, marker(type(task)).length());
        }
        int start = groupPrefix + 2;
        if (type.equals("Edited") || verbose) {
            String fieldsAndObjects = aligned(group, start, longest[0], longestMarker);
            out.append(fieldsAndObjects);
            if (!fieldsAndObjects.isEmpty()) {
                out.append('\n');
            }
        }
        for (JsonNode task : group.path("Tasks")) {
            out.append(task(task, start, longestMarker - marker(type(task)).length())).append('\n');
        }
        return out.toString();
    }

    private String task(JsonNode task, int start, int taskPrefix) {
        String type = type(task);
        StringBuilder out = new StringBuilder(" ".repeat(start)).append(marker(type)).append(" ".repeat(taskPrefix))
                .append("Task: ").append(Nomad.quote(Json.text(task.get("Name"))));
        annotations(out, task);
        if (type.equals("None") || type.isEmpty() || ((type.equals("Added") || type.equals("Deleted")) && !verbose)) {
            return out.toString();
        }
        out.append('\n');
        int[] longest = longest(task);
        return out.append(aligned(task, start + 2, longest[0], longest[1])).toString();
    }

    private String object(JsonNode object, int start, int keyPrefix) {
        String marker = marker(type(object));
        StringBuilder out = new StringBuilder(" ".repeat(start)).append(marker).append(" ".repeat(keyPrefix))
                .append(Json.text(object.get("Name"))).append(" {\n");
        int[] longest = longest(object);
        out.append(aligned(object, start + keyPrefix + 2, longest[0], longest[1]));
        return out.append('\n').append(" ".repeat(start + marker.length() + keyPrefix)).append('}').toString();
    }

    private static String field(JsonNode field, int start, int keyPrefix, int valuePrefix) {
        String type = type(field);
        StringBuilder out = new StringBuilder(" ".repeat(start)).append(marker(type)).append(" ".repeat(keyPrefix))
                .append(Json.text(field.get("Name"))).append(": ").append(" ".repeat(valuePrefix));
        String before = Nomad.quote(Json.text(field.get("Old")));
        String after = Nomad.quote(Json.text(field.get("New")));
        out.append(switch (type) {
            case "Deleted" -> before;
            case "Edited" -> before + " => " + after;
            default -> after;
        });
        annotations(out, field);
        return out.toString();
    }

    /** The fields, then the objects, of {@code diff}, one per line (no newline after the last). */
    private String aligned(JsonNode diff, int start, int longestField, int longestMarker) {
        List<String> parts = new ArrayList<>();
        for (JsonNode field : diff.path("Fields")) {
            parts.add(field(field, start, longestMarker - marker(type(field)).length(),
                    longestField - Json.text(field.get("Name")).length()));
        }
        for (JsonNode object : diff.path("Objects")) {
            parts.add(object(object, start, longestMarker - marker(type(object)).length()));
        }
        return String.join("\n", parts);
    }

    /** {@code [longest field name, longest marker]} among a diff's fields and objects. */
    private static int[] longest(JsonNode diff) {
        int field = 0;
        int marker = 0;
        for (JsonNode f : diff.path("Fields")) {
            field = Math.max(field, Json.text(f.get("Name")).length());
            marker = Math.max(marker, marker(type(f)).length());
        }
        for (JsonNode o : diff.path("Objects")) {
            marker = Math.max(marker, marker(type(o)).length());
        }
        return new int[] {field, marker};
    }

    private static void annotations(StringBuilder out, JsonNode diff) {
        JsonNode annotations = diff.path("Annotations");
        if (annotations.isArray() && !annotations.isEmpty()) {
            out.append(" (").append(Json.join(annotations, ", ")).append(')');
        }
    }

    private static String type(JsonNode diff) {
        return Json.text(diff.get("Type"));
    }

    /** The marker and the space after it; empty for unchanged parts. */
    private static String marker(String type) {
        return switch (type) {
            case "Added" -> "+ ";
            case "Deleted" -> "- ";
            case "Edited" -> "+/- ";
            default -> "";
        };
    }
}
