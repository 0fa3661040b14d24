package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;

/**
 * A submitted job made whole and checked, as Nomad's API canonicalises it: the defaults a user may leave out
 * (priority 50, the default namespace, restart and reschedule policies by job type, resources, log config) are
 * filled on the JSON tree, then every problem is reported at once with its field path. Pure.
 */
final class Jobs {
    static final Set<String> TYPES = Set.of("service", "batch", "system", "sysbatch");
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;

    private Jobs() {
    }

    /** {@code {"Job": {...}}} (or the bare job) as a canonical Job; a 400 listing every problem otherwise. */
    static Job canonical(JsonNode body, String region) {
        JsonNode node = body.has("Job") ? body.get("Job") : body;
        if (!(node instanceof ObjectNode job)) {
            throw CaravanException.badRequest("Job: missing job");
        }
        ObjectNode copy = job.deepCopy();
        defaults(copy, region);
        List<String> problems = validate(copy);
        if (!problems.isEmpty()) {
            throw CaravanException.badRequest(problems.size() + " error" + (problems.size() == 1 ? "" : "s")
                    + " in the job:\n* " + String.join("\n* ", problems));
        }
        try {
            return NomadJson.mapper().treeToValue(copy, Job.class);
        } catch (JsonProcessingException e) {
            throw CaravanException.badRequest("Job: " + e.getOriginalMessage());
        }
    }

    static void defaults(ObjectNode job, String region) {
        putIfMissing(job, "Region", region);
        putIfMissing(job, "Namespace", "default");
        if (isMissing(job, "Name") && !isMissing(job, "ID")) {
            job.put("Name", job.get("ID").asText());
        }
        putIfMissing(job, "Type", "service");
        if (job.path("Priority").asInt(0) == 0) {
            job.put("Priority", 50); // unset or 0: the server's job_default_priority
        }
        putIfMissing(job, "NodePool", "default");
        putIfMissing(job, "AllAtOnce", false);
        if (!job.path("Datacenters").isArray() || job.path("Datacenters").isEmpty()) {
            job.putArray("Datacenters").add("*"); // Nomad ≥ 1.5: every datacenter
        }
        String type = job.path("Type").asText();
        boolean batchLike = type.equals("batch") || type.equals("sysbatch");
        if (job.get("TaskGroups") instanceof ArrayNode groups) {
            for (JsonNode g : groups) {
                if (g instanceof ObjectNode group) {
                    groupDefaults(group, type, batchLike);
                }
            }
        }
    }

    private static void groupDefaults(ObjectNode group, String type, boolean batchLike) {
        putIfMissing(group, "Count", 1);
        ObjectNode restart = object(group, "RestartPolicy");
        putIfMissing(restart, "Attempts", batchLike ? 3 : 2);
        putIfMissing(restart, "Interval", batchLike ? 24 * HOUR : 30 * MINUTE);
        putIfMissing(restart, "Delay", 15 * SECOND);
        putIfMissing(restart, "Mode", "fail");
        if (!type.equals("system") && !type.equals("sysbatch")) {
            ObjectNode reschedule = object(group, "ReschedulePolicy");
            putIfMissing(reschedule, "Attempts", batchLike ? 1 : 0);
            putIfMissing(reschedule, "Interval", batchLike ? 24 * HOUR : 0L);
            putIfMissing(reschedule, "Delay", batchLike ? 5 * SECOND : 30 * SECOND);
            putIfMissing(reschedule, "DelayFunction", batchLike ? "constant" : "exponential");
            putIfMissing(reschedule, "MaxDelay", batchLike ? 0L : HOUR);
            putIfMissing(reschedule, "Unlimited", !batchLike);
        }
        putIfMissing(object(group, "EphemeralDisk"), "SizeMB", 300);
        if (group.get("Tasks") instanceof ArrayNode tasks) {
            for (JsonNode t : tasks) {
                if (t instanceof ObjectNode task) {
                    putIfMissing(task, "KillTimeout", 5 * SECOND);
                    ObjectNode logs = object(task, "LogConfig");
                    putIfMissing(logs, "MaxFiles", 10);
                    putIfMissing(logs, "MaxFileSizeMB", 10);
                    ObjectNode resources = object(task, "Resources");
                    putIfMissing(resources, "CPU", 100);
                    putIfMissing(resources, "MemoryMB", 300);
                }
            }
        }
    }

    /** Every problem, with its path ({@code TaskGroups[0].Tasks[1].Driver}), in the order a reader meets them. */
    static List<String> validate(ObjectNode job) {
        List<String> problems = new ArrayList<>();
        String id = job.path("ID").asText("");
        if (id.isEmpty()) {
            problems.add("ID: missing job ID");
        } else if (id.chars().anyMatch(c -> Character.isWhitespace(c) || c == 0)) {
            problems.add("ID: job ID \"" + id + "\" contains a space or a null character");
        }
        if (job.path("Name").asText("").isEmpty()) {
            problems.add("Name: missing job name");
        }
        if (!TYPES.contains(job.path("Type").asText())) {
            problems.add("Type: invalid job type \"" + job.path("Type").asText() + "\"; must be one of service, batch, "
                    + "system, sysbatch");
        }
        int priority = job.path("Priority").asInt(-1);
        if (priority < 1 || priority > 100) {
            problems.add("Priority: job priority must be between 1 and 100, not " + job.path("Priority"));
        }
        JsonNode groups = job.path("TaskGroups");
        if (!groups.isArray() || groups.isEmpty()) {
            problems.add("TaskGroups: missing job task groups");
            return problems;
        }
        Set<String> groupNames = new java.util.HashSet<>();
        for (int g = 0; g < groups.size(); g++) {
            JsonNode group = groups.get(g);
            String at = "TaskGroups[" + g + "]";
            String name = group.path("Name").asText("");
            if (name.isEmpty()) {
                problems.add(at + ".Name: missing task group name");
            } else if (!groupNames.add(name)) {
                problems.add(at + ".Name: task group \"" + name + "\" is defined more than once");
            }
            if (group.path("Count").asInt(0) < 0) {
                problems.add(at + ".Count: count must be 0 or more, not " + group.path("Count"));
            }
            JsonNode tasks = group.path("Tasks");
            if (!tasks.isArray() || tasks.isEmpty()) {
                problems.add(at + ".Tasks: task group \"" + name + "\" has no tasks");
                continue;
            }
            Set<String> taskNames = new java.util.HashSet<>();
            for (int t = 0; t < tasks.size(); t++) {
                JsonNode task = tasks.get(t);
                String taskAt = at + ".Tasks[" + t + "]";
                String taskName = task.path("Name").asText("");
                if (taskName.isEmpty()) {
                    problems.add(taskAt + ".Name: missing task name");
                } else if (!taskNames.add(taskName)) {
                    problems.add(taskAt + ".Name: task \"" + taskName + "\" is defined more than once");
                }
                if (task.path("Driver").asText("").isEmpty()) {
                    problems.add(taskAt + ".Driver: missing task driver");
                }
                if (task.path("Resources").path("MemoryMB").asInt(1) < 10) {
                    problems.add(taskAt + ".Resources.MemoryMB: must be at least 10, not "
                            + task.path("Resources").path("MemoryMB"));
                }
            }
        }
        return problems;
    }

    private static boolean isMissing(ObjectNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() || v.isTextual() && v.asText().isEmpty();
    }

    private static void putIfMissing(ObjectNode node, String field, Object value) {
        if (!isMissing(node, field)) {
            return;
        }
        node.set(field, NomadJson.mapper().valueToTree(value));
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        JsonNode existing = parent.get(field);
        return existing instanceof ObjectNode o ? o : parent.putObject(field);
    }
}
