package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

/** A registration's Warnings: the submitted job as written, wrapped in a request or bare. */
class JobsWarningsTest {
    static final String JOB = """
            {"ID": "web", "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "app", "Driver": "raw_exec",
              "Templates": [{"EmbeddedTmpl": "x", "VaultGrace": 15000000000}], "Vault": {"Policies": ["p"]}}]}]}
            """;

    @Test
    void aRequestAndABareJobWarnAlike() throws Exception {
        JsonNode bare = NomadJson.mapper().readTree(JOB);
        JsonNode request = NomadJson.mapper().readTree("{\"Job\": " + JOB + "}");
        String expected = """
                2 warnings:

                * group "web" -> task "app" -> template: vault_grace is not supported yet and was ignored (there is \
                no Vault integration)
                * group "web" -> task "app": vault block is not supported yet and was ignored (there is no Vault \
                integration)""";
        assertEquals(expected, Jobs.warnings(request));
        assertEquals(expected, Jobs.warnings(bare));
    }

    @Test
    void aJobWithNothingIgnoredHasNoWarnings() throws Exception {
        assertEquals("", Jobs.warnings(NomadJson.mapper().readTree(
                "{\"Job\": {\"ID\": \"web\", \"TaskGroups\": [{\"Name\": \"web\", \"Tasks\": [{\"Name\": \"app\"}]}]}}")));
    }
}
