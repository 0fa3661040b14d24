package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;

/**
 * Nomad's structured job diff ({@code JobDiff}) for {@code job plan}: Added, Deleted, Edited or None for the job,
 * each task group and task (matched by name), with the changed scalar fields ({@code Fields}: Name, Old, New) and
 * nested blocks ({@code Objects}, recursively). Computed generically on the jobs' JSON, so every field Nomad users
 * know diffs by its own name; fields the server sets (versions, indexes, status) never show.
 */
final class JobDiffs {
    /** Set by the server, not by the user: never part of a diff. */
    private static final Set<String> SERVER_FIELDS = Set.of("Version", "Status", "StatusDescription", "Stable",
            "SubmitTime", "CreateIndex", "ModifyIndex", "JobModifyIndex", "Stop", "TaskGroups", "Tasks",
            "NomadTokenID", "VersionTag");

    record FieldDiff(String type, String name, String old, @com.fasterxml.jackson.annotation.JsonProperty("New")
            String newValue, List<String> annotations) {}

    record ObjectDiff(String type, String name, List<FieldDiff> fields, List<ObjectDiff> objects) {}

    record TaskDiff(String type, String name, List<FieldDiff> fields, List<ObjectDiff> objects,
                    List<String> annotations) {}

    record GroupDiff(String type, String name, List<FieldDiff> fields, List<ObjectDiff> objects, List<TaskDiff> tasks,
                     Map<String, Long> updates) {}

    record JobDiff(String type, @com.fasterxml.jackson.annotation.JsonProperty("ID") String id,
                   List<FieldDiff> fields, List<ObjectDiff> objects, List<GroupDiff> taskGroups) {}

    private JobDiffs() {
    }

    /** @param before the stored job, or null (or stopped) when the plan adds it */
    static JobDiff diff(Job before, Job after, Map<String, Map<String, Long>> updates) {
        JsonNode old = before == null || Boolean.TRUE.equals(before.stop()) ? NullNode.getInstance() : tree(before);
        JsonNode now = tree(after);
        List<FieldDiff> fields = new ArrayList<>();
        List<ObjectDiff> objects = new ArrayList<>();
        compare(old, now, fields, objects);
        List<GroupDiff> groups = new ArrayList<>();
        Map<String, JsonNode[]> byName = byName(old.path("TaskGroups"), now.path("TaskGroups"));
        boolean groupsChanged = false;
        for (Map.Entry<String, JsonNode[]> g : byName.entrySet()) {
            GroupDiff group = group(g.getKey(), g.getValue()[0], g.getValue()[1],
                    updates.getOrDefault(g.getKey(), Map.of()));
            groupsChanged |= !group.type().equals("None");
            groups.add(group);
        }
        String type = old.isNull() ? "Added" : fields.isEmpty() && objects.isEmpty() && !groupsChanged ? "None"
                : "Edited";
        return new JobDiff(type, after.id(), fields, objects, groups);
    }

    private static GroupDiff group(String name, JsonNode old, JsonNode now, Map<String, Long> updates) {
        List<FieldDiff> fields = new ArrayList<>();
        List<ObjectDiff> objects = new ArrayList<>();
        compare(old, now, fields, objects);
        List<TaskDiff> tasks = new ArrayList<>();
        boolean tasksChanged = false;
        for (Map.Entry<String, JsonNode[]> t : byName(old.path("Tasks"), now.path("Tasks")).entrySet()) {
            List<FieldDiff> tf = new ArrayList<>();
            List<ObjectDiff> to = new ArrayList<>();
            JsonNode a = t.getValue()[0];
            JsonNode b = t.getValue()[1];
            compare(a, b, tf, to);
            String type = kind(a, b, tf, to);
            tasksChanged |= !type.equals("None");
            tasks.add(new TaskDiff(type, t.getKey(), tf, to, List.of()));
        }
        String type = old.isNull() ? "Added" : now.isNull() ? "Deleted"
                : fields.isEmpty() && objects.isEmpty() && !tasksChanged ? "None" : "Edited";
        return new GroupDiff(type, name, fields, objects, tasks, updates);
    }

    /** Scalars become fields, objects and lists of objects become object diffs, lists of scalars fields. */
    private static void compare(JsonNode old, JsonNode now, List<FieldDiff> fields, List<ObjectDiff> objects) {
        Set<String> names = new LinkedHashSet<>();
        old.fieldNames().forEachRemaining(names::add);
        now.fieldNames().forEachRemaining(names::add);
        for (String name : names.stream().sorted().toList()) {
            if (SERVER_FIELDS.contains(name)) {
                continue;
            }
            JsonNode a = old.path(name);
            JsonNode b = now.path(name);
            if (isScalar(a) && isScalar(b)) {
                field(name, a, b).ifPresent(fields::add);
            } else if (a.isArray() || b.isArray()) {
                list(name, a, b, fields, objects);
            } else {
                object(name, a, b).ifPresent(objects::add);
            }
        }
    }

    private static java.util.Optional<ObjectDiff> object(String name, JsonNode a, JsonNode b) {
        List<FieldDiff> fields = new ArrayList<>();
        List<ObjectDiff> objects = new ArrayList<>();
        compare(a.isObject() ? a : NullNode.getInstance(), b.isObject() ? b : NullNode.getInstance(), fields, objects);
        String type = kind(a.isObject() ? a : NullNode.getInstance(), b.isObject() ? b : NullNode.getInstance(),
                fields, objects);
        return type.equals("None") ? java.util.Optional.empty()
                : java.util.Optional.of(new ObjectDiff(type, name, fields, objects));
    }

    private static void list(String name, JsonNode a, JsonNode b, List<FieldDiff> fields, List<ObjectDiff> objects) {
        List<JsonNode> before = elements(a);
        List<JsonNode> after = elements(b);
        // A list is a set as far as the diff goes (Nomad's view of datacenters, constraints, ports …).
        for (JsonNode gone : before) {
            if (!after.contains(gone)) {
                add(name, gone, NullNode.getInstance(), fields, objects);
            }
        }
        for (JsonNode added : after) {
            if (!before.contains(added)) {
                add(name, NullNode.getInstance(), added, fields, objects);
            }
        }
    }

    private static void add(String name, JsonNode a, JsonNode b, List<FieldDiff> fields, List<ObjectDiff> objects) {
        if (isScalar(a) && isScalar(b)) {
            field(name, a, b).ifPresent(fields::add);
        } else {
            object(singular(name), a, b).ifPresent(objects::add);
        }
    }

    private static java.util.Optional<FieldDiff> field(String name, JsonNode a, JsonNode b) {
        String old = text(a);
        String now = text(b);
        if (Objects.equals(old, now)) {
            return java.util.Optional.empty();
        }
        String type = a.isNull() || a.isMissingNode() ? "Added" : b.isNull() || b.isMissingNode() ? "Deleted" : "Edited";
        return java.util.Optional.of(new FieldDiff(type, name, old, now, List.of()));
    }

    private static String kind(JsonNode a, JsonNode b, List<?> fields, List<?> objects) {
        if (a.isNull() || a.isMissingNode()) {
            return b.isNull() || b.isMissingNode() ? "None" : "Added";
        }
        if (b.isNull() || b.isMissingNode()) {
            return "Deleted";
        }
        return fields.isEmpty() && objects.isEmpty() ? "None" : "Edited";
    }

    private static Map<String, JsonNode[]> byName(JsonNode old, JsonNode now) {
        Map<String, JsonNode[]> out = new LinkedHashMap<>();
        for (JsonNode n : elements(now)) {
            out.computeIfAbsent(n.path("Name").asText(), k -> new JsonNode[] {NullNode.getInstance(), null})[1] = n;
        }
        for (JsonNode o : elements(old)) {
            out.computeIfAbsent(o.path("Name").asText(), k -> new JsonNode[2])[0] = o;
        }
        out.values().forEach(pair -> {
            if (pair[0] == null) {
                pair[0] = NullNode.getInstance();
            }
            if (pair[1] == null) {
                pair[1] = NullNode.getInstance();
            }
        });
        return out;
    }

    private static List<JsonNode> elements(JsonNode list) {
        List<JsonNode> out = new ArrayList<>();
        if (list != null && list.isArray()) {
            for (Iterator<JsonNode> it = list.elements(); it.hasNext(); ) {
                out.add(it.next());
            }
        }
        return out;
    }

    private static boolean isScalar(JsonNode n) {
        return n.isNull() || n.isMissingNode() || n.isValueNode();
    }

    private static String text(JsonNode n) {
        return n.isNull() || n.isMissingNode() ? "" : n.asText();
    }

    /** {@code Constraints} → {@code Constraint}, as Nomad names the objects of a list. */
    private static String singular(String name) {
        if (name.endsWith("ies")) {
            return name.substring(0, name.length() - 3) + "y";
        }
        return name.endsWith("s") ? name.substring(0, name.length() - 1) : name;
    }

    /** The job without its job-level {@code Update}: Nomad's diff leaves it out, the groups carry the strategy. */
    private static JsonNode tree(Job job) {
        com.fasterxml.jackson.databind.node.ObjectNode tree = NomadJson.mapper().valueToTree(job);
        tree.remove("Update");
        return tree;
    }
}
