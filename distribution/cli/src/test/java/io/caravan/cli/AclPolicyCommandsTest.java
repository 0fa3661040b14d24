package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AclPolicyCommandsTest extends FakeAgentTest {
    private static final String RULES = """
            namespace "default" {
              policy = "read"
            }
            """;
    private static final String POLICY = """
            {"Name":"readonly","Description":"Read the default namespace","Rules":"namespace \\"default\\" {\\n  policy = \\"read\\"\\n}\\n",
             "CreateIndex":12,"ModifyIndex":14}""";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "b780e702-98ce-521f-2e5f-c6b87de05b24");
    }

    @Test
    void applyPutsTheRulesFileUnderTheName(@TempDir Path dir) throws Exception {
        agent.json("/v1/acl/policy/readonly", "");
        Path file = Files.writeString(dir.resolve("readonly.hcl"), RULES);
        Cli.Result r = Cli.run(env, "acl", "policy", "apply", "-description", "Read the default namespace",
                "readonly", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully wrote \"readonly\" ACL policy!\n", r.out());
        FakeAgent.Request put = agent.last("/v1/acl/policy/readonly");
        assertEquals("PUT", put.method());
        assertEquals("b780e702-98ce-521f-2e5f-c6b87de05b24", put.token());
        JsonNode body = new ObjectMapper().readTree(put.body());
        assertEquals("readonly", body.get("Name").asText());
        assertEquals("Read the default namespace", body.get("Description").asText());
        assertEquals(RULES, body.get("Rules").asText());
    }

    @Test
    void applyWithAJobAttachesThePolicyToItsWorkloads(@TempDir Path dir) throws Exception {
        agent.json("/v1/acl/policy/web-secrets", "");
        Path file = Files.writeString(dir.resolve("p.hcl"), RULES);
        Cli.Result r = Cli.run(env, "acl", "policy", "apply", "-namespace", "prod", "-job", "web", "-group", "api",
                "-task", "server", "web-secrets", file.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode acl = new ObjectMapper().readTree(agent.last("/v1/acl/policy/web-secrets").body()).get("JobACL");
        assertEquals("{\"Namespace\":\"prod\",\"JobID\":\"web\",\"Group\":\"api\",\"Task\":\"server\"}",
                acl.toString());
        Cli.Result bad = Cli.run(env, "acl", "policy", "apply", "-task", "server", "web-secrets", file.toString());
        assertEquals(1, bad.code());
        assertTrue(bad.err().contains("-group and -task require -job"), bad.err());
    }

    @Test
    void applyReadsTheRulesFromStandardInput() throws Exception {
        agent.json("/v1/acl/policy/readonly", "");
        Cli.Result r = Cli.withInput(RULES, env, "acl", "policy", "apply", "readonly", "-");
        assertEquals(0, r.code(), r.err());
        JsonNode body = new ObjectMapper().readTree(agent.last("/v1/acl/policy/readonly").body());
        assertEquals(RULES, body.get("Rules").asText());
        assertEquals("", body.get("Description").asText());
    }

    @Test
    void applyPrintsTheServersReasonForABadPolicy(@TempDir Path dir) throws Exception {
        agent.reply("/v1/acl/policy/readonly", 400, "Policy rules failed to parse: invalid policy \"fly\"");
        Path file = Files.writeString(dir.resolve("bad.hcl"), "namespace \"default\" { policy = \"fly\" }\n");
        Cli.Result r = Cli.run(env, "acl", "policy", "apply", "readonly", file.toString());
        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals("Error writing ACL policy: Unexpected response code: 400 "
                + "(Policy rules failed to parse: invalid policy \"fly\")\n", r.err());
    }

    @Test
    void applyWithoutBothArgumentsOrWithAMissingFileSendsNothing(@TempDir Path dir) {
        Cli.Result one = Cli.run(env, "acl", "policy", "apply", "readonly");
        assertEquals(1, one.code());
        assertEquals("This command takes two arguments: <name> and <path>\n"
                + "For additional help try 'caravan acl policy apply -h'\n", one.err());
        Cli.Result missing = Cli.run(env, "acl", "policy", "apply", "readonly", dir.resolve("nope.hcl").toString());
        assertEquals(1, missing.code());
        assertEquals("Failed to read file: no such file or directory\n", missing.err());
        assertEquals(0, agent.requests().size());
    }

    @Test
    void listPrintsNamesAndDescriptions() {
        agent.json("/v1/acl/policies", """
                [{"Name":"readonly","Description":"Read the default namespace","CreateIndex":12,"ModifyIndex":14},
                 {"Name":"ops","Description":"","CreateIndex":15,"ModifyIndex":15}]""");
        Cli.Result r = Cli.run(env, "acl", "policy", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Name      Description
                readonly  Read the default namespace
                ops       <none>
                """, r.out());
        assertEquals("GET", agent.last("/v1/acl/policies").method());
    }

    @Test
    void listSaysWhenThereIsNoneAndPrintsJson() throws Exception {
        agent.json("/v1/acl/policies", "[]");
        Cli.Result none = Cli.run(env, "acl", "policy", "list");
        assertEquals(0, none.code(), none.err());
        assertEquals("No policies found\n", none.out());
        Cli.Result json = Cli.run(env, "acl", "policy", "list", "-json");
        assertEquals(0, json.code(), json.err());
        assertEquals("[]\n", json.out());
    }

    @Test
    void infoPrintsTheFieldsThenTheRules() {
        agent.json("/v1/acl/policy/readonly", POLICY);
        Cli.Result r = Cli.run(env, "acl", "policy", "info", "readonly");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Name        = readonly
                Description = Read the default namespace
                CreateIndex = 12
                ModifyIndex = 14

                Rules

                namespace "default" {
                  policy = "read"
                }

                """, r.out());
    }

    @Test
    void infoShowsTheWorkloadAPolicyIsAttachedTo() {
        agent.json("/v1/acl/policy/web-secrets", """
                {"Name": "web-secrets", "Description": "", "Rules": "x", "CreateIndex": 3, "ModifyIndex": 3,
                 "JobACL": {"Namespace": "default", "JobID": "web", "Group": "api", "Task": ""}}""");
        Cli.Result r = Cli.run(env, "acl", "policy", "info", "web-secrets");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("""

                Associated Workload
                Namespace = default
                JobID     = web
                Group     = api
                Task      = <none>

                Rules
                """), r.out());
    }

    @Test
    void infoJsonIsThePolicyAsSent() throws Exception {
        agent.json("/v1/acl/policy/readonly", POLICY);
        Cli.Result r = Cli.run(env, "acl", "policy", "info", "-json", "readonly");
        assertEquals(0, r.code(), r.err());
        ObjectMapper mapper = new ObjectMapper();
        assertEquals(mapper.readTree(POLICY), mapper.readTree(r.out()));
    }

    @Test
    void infoWithoutPermissionOrWithoutANameFails() {
        agent.reply("/v1/acl/policy/readonly", 403, "Permission denied");
        Cli.Result denied = Cli.run(env, "acl", "policy", "info", "readonly");
        assertEquals(1, denied.code());
        assertEquals("Error fetching info on ACL policy: Unexpected response code: 403 (Permission denied)\n",
                denied.err());
        Cli.Result missing = Cli.run(env, "acl", "policy", "info");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("This command takes one argument: <name>\n"), missing.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void deleteSendsADelete() {
        agent.json("/v1/acl/policy/readonly", "");
        Cli.Result r = Cli.run(env, "acl", "policy", "delete", "readonly");
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully deleted readonly policy!\n", r.out());
        assertEquals("DELETE", agent.last("/v1/acl/policy/readonly").method());
    }

    @Test
    void deleteOfAnUnknownPolicyPrintsTheServersAnswer() {
        agent.reply("/v1/acl/policy/nope", 404, "ACL policy not found");
        Cli.Result r = Cli.run(env, "acl", "policy", "delete", "nope");
        assertEquals(1, r.code());
        assertEquals("Error deleting ACL policy: Unexpected response code: 404 (ACL policy not found)\n", r.err());
    }
}
