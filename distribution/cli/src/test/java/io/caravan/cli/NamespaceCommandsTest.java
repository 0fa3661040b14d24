package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code namespace apply|list|status|delete}, and the {@code -namespace} / {@code NOMAD_NAMESPACE} option. */
class NamespaceCommandsTest extends FakeAgentTest {

    private Map<String, String> env() {
        return Map.of("CARAVAN_ADDR", agent.address());
    }

    private static JsonNode json(String body) throws Exception {
        return NomadJson.mapper().readTree(body);
    }

    @Test
    void applyByNameKeepsWhatTheFlagsDoNotChange() throws Exception {
        agent.json("/v1/namespace/prod", "{\"Name\":\"prod\",\"Description\":\"old\",\"Meta\":{\"team\":\"ops\"}}");
        Cli.Result r = Cli.run(env(), "namespace", "apply", "-description", "production", "prod");
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully applied namespace \"prod\"!\n", r.out());
        FakeAgent.Request put = agent.requests().stream().filter(q -> q.method().equals("PUT")).findFirst()
                .orElseThrow();
        assertEquals("/v1/namespace/prod", put.path());
        JsonNode body = json(put.body());
        assertEquals("prod", body.path("Name").asText());
        assertEquals("production", body.path("Description").asText());
        assertEquals("ops", body.path("Meta").path("team").asText());
    }

    @Test
    void applyFromAnHclSpecification(@TempDir Path tmp) throws Exception {
        Path spec = tmp.resolve("prod.hcl");
        Files.writeString(spec, """
                name        = "prod"
                description = "Production"
                meta {
                  owner = "ops"
                }
                """);
        agent.json("/v1/namespace/prod", "{}");
        Cli.Result r = Cli.run(env(), "namespace", "apply", spec.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode body = json(agent.last("/v1/namespace/prod").body());
        assertEquals("Production", body.path("Description").asText());
        assertEquals("ops", body.path("Meta").path("owner").asText());

        Files.writeString(spec, "name = \"x\"\nbogus = 1\n");
        Cli.Result bad = Cli.run(env(), "namespace", "apply", spec.toString());
        assertEquals(1, bad.code());
        assertTrue(bad.err().contains("invalid key \"bogus\""), bad.err());
    }

    @Test
    void listStatusAndDelete() throws Exception {
        agent.json("/v1/namespaces", "[{\"Name\":\"default\",\"Description\":\"Default shared namespace\"},"
                + "{\"Name\":\"prod\",\"Description\":\"\"}]");
        Cli.Result list = Cli.run(env(), "namespace", "list");
        assertEquals(0, list.code(), list.err());
        assertEquals("""
                Name     Description
                default  Default shared namespace
                prod
                """, list.out().lines().map(String::stripTrailing).reduce("", (a, b) -> a + b + "\n"));

        agent.json("/v1/namespace/prod", "{\"Name\":\"prod\",\"Description\":\"p\",\"Quota\":\"\","
                + "\"Meta\":{\"owner\":\"ops\"}}");
        Cli.Result status = Cli.run(env(), "namespace", "status", "prod");
        assertEquals(0, status.code(), status.err());
        assertEquals("""
                Name        = prod
                Description = p
                Quota       = <none>

                Namespace Metadata
                owner = ops
                """, status.out());

        agent.json("/v1/namespace/prod", "null");
        Cli.Result delete = Cli.run(env(), "namespace", "delete", "prod");
        assertEquals(0, delete.code(), delete.err());
        assertEquals("Successfully deleted namespace \"prod\"!\n", delete.out());
        assertEquals("DELETE", agent.last("/v1/namespace/prod").method());

        agent.reply("/v1/namespace/default", 400, "can not delete default namespace");
        Cli.Result refused = Cli.run(env(), "namespace", "delete", "default");
        assertEquals(1, refused.code());
        assertEquals("Error deleting namespace: Unexpected response code: 400 (can not delete default namespace)\n",
                refused.err());
    }

    @Test
    void theNamespaceOptionAndItsEnvironmentReachEveryRequest() throws Exception {
        agent.json("/v1/jobs", "[]");
        Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "NOMAD_NAMESPACE", "dev"), "job", "status");
        assertTrue(agent.last("/v1/jobs").query().contains("namespace=dev"), agent.last("/v1/jobs").query());
        Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "NOMAD_NAMESPACE", "dev", "CARAVAN_NAMESPACE", "qa"), "job",
                "status");
        assertTrue(agent.last("/v1/jobs").query().contains("namespace=qa"), "CARAVAN_ beats NOMAD_");
        Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_NAMESPACE", "qa"), "job", "status", "-namespace",
                "prod");
        assertTrue(agent.last("/v1/jobs").query().contains("namespace=prod"), "the flag beats both");
    }
}
