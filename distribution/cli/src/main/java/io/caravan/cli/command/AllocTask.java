package io.caravan.cli.command;

import java.util.List;
import java.util.stream.StreamSupport;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * An allocation named on the command line and the task a command acts on: the one given, or the allocation's
 * only task; Nomad's errors otherwise. Shared by {@code alloc logs|restart|signal}.
 */
record AllocTask(String allocId, String task) {

    /** @param task null or empty: the allocation's only task; {@code optional}: null is fine (all tasks) */
    static AllocTask resolve(ApiClient api, String prefix, String task, boolean optional) throws ApiException,
            UsageException {
        if (prefix.length() == 1) {
            throw new UsageException("Alloc ID must contain at least two characters.");
        }
        String allocId = Lookup.id(api, "/v1/allocations", "allocation", prefix);
        JsonNode alloc = api.get("/v1/allocation/" + Json.pathSegment(allocId));
        List<String> tasks = tasks(alloc);
        if (task != null && !task.isEmpty()) {
            if (!tasks.contains(task)) {
                throw new ApiException("Could not find task named: " + task + ", found:\n* "
                        + String.join("\n* ", tasks));
            }
            return new AllocTask(allocId, task);
        }
        if (optional) {
            return new AllocTask(allocId, null);
        }
        if (tasks.size() == 1) {
            return new AllocTask(allocId, tasks.get(0));
        }
        throw new UsageException("Allocation \"" + allocId.substring(0, Math.min(8, allocId.length()))
                + "\" is running the following tasks:\n  * " + String.join("\n  * ", tasks)
                + "\n\nPlease specify the task.");
    }

    /** The allocation's task names, from its job's group. */
    private static List<String> tasks(JsonNode alloc) {
        String group = Json.text(alloc.get("TaskGroup"));
        for (JsonNode g : alloc.path("Job").path("TaskGroups")) {
            if (group.equals(Json.text(g.get("Name")))) {
                return StreamSupport.stream(g.path("Tasks").spliterator(), false)
                        .map(t -> Json.text(t.get("Name"))).sorted().toList();
            }
        }
        return alloc.path("TaskStates").isObject() ? Json.sortedFieldNames(alloc.path("TaskStates")) : List.of();
    }
}
