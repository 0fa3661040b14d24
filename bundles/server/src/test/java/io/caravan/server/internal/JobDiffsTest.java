package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.Test;

class JobDiffsTest {
    private static Job job(int count, int memory, String datacenter) throws Exception {
        return Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "web", "Datacenters": ["%s"], "TaskGroups": [{"Name": "web", "Count": %d,
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"},
                             "Resources": {"CPU": 100, "MemoryMB": %d}}]}]}}
                """.formatted(datacenter, count, memory)), "global");
    }

    @Test
    void aNewJobIsAddedAndAnUnchangedOneIsNone() throws Exception {
        assertEquals("Added", JobDiffs.diff(null, job(1, 64, "dc1"), Map.of()).type());
        JobDiffs.JobDiff same = JobDiffs.diff(job(1, 64, "dc1").withVersion(3).withIndexes(5, 9, 9),
                job(1, 64, "dc1"), Map.of());
        assertEquals("None", same.type(), "server-set fields never make a diff");
        assertEquals("None", same.taskGroups().get(0).type());
    }

    @Test
    void changedFieldsShowWithOldAndNewValuesWhereTheyLive() throws Exception {
        JobDiffs.JobDiff d = JobDiffs.diff(job(2, 64, "dc1"), job(3, 128, "dc2"),
                Map.of("web", Map.of("create", 1L)));
        assertEquals("Edited", d.type());
        assertEquals(List.of(new JobDiffs.FieldDiff("Added", "Datacenters", "", "dc2", List.of()),
                new JobDiffs.FieldDiff("Deleted", "Datacenters", "dc1", "", List.of())).stream()
                .sorted(java.util.Comparator.comparing(JobDiffs.FieldDiff::type)).toList(),
                d.fields().stream().sorted(java.util.Comparator.comparing(JobDiffs.FieldDiff::type)).toList());
        JobDiffs.GroupDiff group = d.taskGroups().get(0);
        assertEquals(new JobDiffs.FieldDiff("Edited", "Count", "2", "3", List.of()), group.fields().get(0));
        assertEquals(Map.of("create", 1L), group.updates());
        JobDiffs.TaskDiff task = group.tasks().get(0);
        assertEquals("Edited", task.type());
        JobDiffs.ObjectDiff resources = task.objects().stream().filter(o -> o.name().equals("Resources"))
                .findFirst().orElseThrow();
        assertEquals(List.of(new JobDiffs.FieldDiff("Edited", "MemoryMB", "64", "128", List.of())),
                resources.fields());
    }
}
