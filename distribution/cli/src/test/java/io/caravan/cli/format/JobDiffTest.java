package io.caravan.cli.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class JobDiffTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void editedPartsShowTheirFieldsObjectsAndTasksAligned() throws Exception {
        JsonNode diff = JSON.readTree("""
                {"Type":"Edited","ID":"web",
                 "Fields":[{"Type":"Edited","Name":"Priority","Old":"50","New":"60"}],
                 "TaskGroups":[{"Type":"Edited","Name":"cache","Updates":{"create":1,"in-place update":2},
                   "Fields":[{"Type":"Edited","Name":"Count","Old":"2","New":"3","Annotations":["forces create"]}],
                   "Objects":[{"Type":"Added","Name":"Meta","Fields":[{"Type":"Added","Name":"owner","New":"ops"}]}],
                   "Tasks":[{"Type":"Edited","Name":"redis","Annotations":["forces in-place update"],
                     "Objects":[{"Type":"Edited","Name":"Config",
                       "Fields":[{"Type":"Edited","Name":"image","Old":"redis:6","New":"redis:7"}]}]}]}]}""");

        assertEquals("""
                +/- Job: "web"
                +/- Priority: "50" => "60"
                +/- Task Group: "cache" (1 create, 2 in-place update)
                  +/- Count: "2" => "3" (forces create)
                  +   Meta {
                      + owner: "ops"
                      }
                  +/- Task: "redis" (forces in-place update)
                    +/- Config {
                      +/- image: "redis:6" => "redis:7"
                        }""", JobDiff.format(diff, false));
    }

    @Test
    void addedTasksExpandOnlyWhenVerbose() throws Exception {
        JsonNode diff = JSON.readTree("""
                {"Type":"None","ID":"web","TaskGroups":[{"Type":"Edited","Name":"cache",
                  "Updates":{"create/destroy update":1},
                  "Tasks":[{"Type":"Added","Name":"sidecar","Fields":[
                    {"Type":"Added","Name":"Driver","Old":"","New":"docker"},
                    {"Type":"Added","Name":"User","Old":"","New":""}]}]}]}""");

        assertEquals("""
                Job: "web"
                +/- Task Group: "cache" (1 create/destroy update)
                  + Task: "sidecar\"""", JobDiff.format(diff, false));
        assertEquals("""
                Job: "web"
                +/- Task Group: "cache" (1 create/destroy update)
                  + Task: "sidecar"
                    + Driver: "docker"
                    + User:   \"\"""", JobDiff.format(diff, true));
    }
}
