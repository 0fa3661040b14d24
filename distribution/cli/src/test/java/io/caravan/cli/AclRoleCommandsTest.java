package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AclRoleCommandsTest extends FakeAgentTest {
    private static final String ID = "77a780d8-2dee-7c7f-7822-6f5471c5cbb2";
    private static final String ROLE = """
            {"ID":"77a780d8-2dee-7c7f-7822-6f5471c5cbb2","Name":"operators","Description":"On call",
             "Policies":[{"Name":"submit"},{"Name":"readonly"}],"CreateIndex":40,"ModifyIndex":41}""";
    private static final String ROLE_OUTPUT = """
            ID           = 77a780d8-2dee-7c7f-7822-6f5471c5cbb2
            Name         = operators
            Description  = On call
            Policies     = readonly,submit
            Create Index = 40
            Modify Index = 41
            """;

    private final ObjectMapper mapper = new ObjectMapper();
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "3f4a0fcd-7c42-773c-25db-2d31ba0c05fe");
    }

    @Test
    void createPostsNameDescriptionAndPolicyLinks() throws Exception {
        agent.json("/v1/acl/role", ROLE);
        Cli.Result r = Cli.run(env, "acl", "role", "create", "-name", "operators", "-description=On call",
                "-policy", "submit", "-policy", "readonly", "-policy", "submit");
        assertEquals(0, r.code(), r.err());
        assertEquals(ROLE_OUTPUT, r.out());
        FakeAgent.Request post = agent.last("/v1/acl/role");
        assertEquals("POST", post.method());
        assertEquals("3f4a0fcd-7c42-773c-25db-2d31ba0c05fe", post.token());
        assertEquals(mapper.readTree("""
                {"Name":"operators","Description":"On call","Policies":[{"Name":"submit"},{"Name":"readonly"}]}"""),
                mapper.readTree(post.body()));
    }

    @Test
    void createJsonIsTheRoleAsSent() throws Exception {
        agent.json("/v1/acl/role", ROLE);
        Cli.Result r = Cli.run(env, "acl", "role", "create", "-name", "operators", "-policy", "submit", "-json");
        assertEquals(0, r.code(), r.err());
        assertEquals(mapper.readTree(ROLE), mapper.readTree(r.out()));
    }

    @Test
    void createNeedsANameAndAPolicyBeforeAnyRequest() {
        Cli.Result noName = Cli.run(env, "acl", "role", "create", "-policy", "submit");
        assertEquals(1, noName.code());
        assertEquals("ACL role name must be specified using the -name flag\n"
                + "For additional help try 'caravan acl role create -h'\n", noName.err());
        Cli.Result noPolicy = Cli.run(env, "acl", "role", "create", "-name", "operators");
        assertEquals(1, noPolicy.code());
        assertTrue(noPolicy.err().startsWith("At least one policy name must be specified using the -policy flag\n"),
                noPolicy.err());
        assertEquals(0, agent.requests().size());
    }

    @Test
    void createPrintsTheServersRefusals() {
        agent.reply("/v1/acl/role", 400, "ACL policy not found: nope");
        Cli.Result bad = Cli.run(env, "acl", "role", "create", "-name", "operators", "-policy", "nope");
        assertEquals(1, bad.code());
        assertEquals("Error creating ACL role: Unexpected response code: 400 (ACL policy not found: nope)\n",
                bad.err());
        agent.reply("/v1/acl/role", 403, "Permission denied");
        Cli.Result denied = Cli.run(env, "acl", "role", "create", "-name", "operators", "-policy", "submit");
        assertEquals(1, denied.code());
        assertEquals("Error creating ACL role: Unexpected response code: 403 (Permission denied)\n", denied.err());
    }

    @Test
    void listPrintsRolesWithTheirSortedPolicies() {
        agent.json("/v1/acl/roles", "[" + ROLE + ",{\"ID\":\"9e1c5cbb-1c2d-4e5f-8a9b-0c1d2e3f4a5b\","
                + "\"Name\":\"ci\",\"Description\":\"\",\"Policies\":[{\"Name\":\"submit\"}],"
                + "\"CreateIndex\":42,\"ModifyIndex\":42}]");
        Cli.Result r = Cli.run(env, "acl", "role", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID                                    Name       Description  Policies
                77a780d8-2dee-7c7f-7822-6f5471c5cbb2  operators  On call      readonly,submit
                9e1c5cbb-1c2d-4e5f-8a9b-0c1d2e3f4a5b  ci         <none>       submit
                """, r.out());
    }

    @Test
    void listSaysWhenThereIsNone() {
        agent.json("/v1/acl/roles", "[]");
        Cli.Result r = Cli.run(env, "acl", "role", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("No ACL roles found\n", r.out());
    }

    @Test
    void infoLooksUpByIdOrByName() {
        agent.json("/v1/acl/role/" + ID, ROLE).json("/v1/acl/role/name/operators", ROLE);
        Cli.Result byId = Cli.run(env, "acl", "role", "info", ID);
        assertEquals(0, byId.code(), byId.err());
        assertEquals(ROLE_OUTPUT, byId.out());
        Cli.Result byName = Cli.run(env, "acl", "role", "info", "-by-name", "operators");
        assertEquals(0, byName.code(), byName.err());
        assertEquals(ROLE_OUTPUT, byName.out());
        assertEquals(List.of("/v1/acl/role/" + ID, "/v1/acl/role/name/operators"),
                agent.requests().stream().map(FakeAgent.Request::path).toList());
    }

    @Test
    void infoOfAnUnknownRoleOrWithoutAnIdFails() {
        agent.reply("/v1/acl/role/nope", 404, "ACL role not found");
        Cli.Result unknown = Cli.run(env, "acl", "role", "info", "nope");
        assertEquals(1, unknown.code());
        assertEquals("Error reading ACL role: Unexpected response code: 404 (ACL role not found)\n", unknown.err());
        Cli.Result missing = Cli.run(env, "acl", "role", "info");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("This command takes one argument: <acl_role_id>\n"), missing.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void updateMergesNewPoliciesIntoTheRole() throws Exception {
        String path = "/v1/acl/role/" + ID;
        agent.sequence(path, ROLE, ROLE);
        Cli.Result r = Cli.run(env, "acl", "role", "update", "-description", "Paged at night", "-policy", "readonly",
                "-policy", "drain", ID);
        assertEquals(0, r.code(), r.err());
        assertEquals(ROLE_OUTPUT, r.out());
        assertEquals(List.of("GET", "POST"), agent.requests().stream().map(FakeAgent.Request::method).toList());
        assertEquals(mapper.readTree("""
                {"ID":"77a780d8-2dee-7c7f-7822-6f5471c5cbb2","Name":"operators","Description":"Paged at night",
                 "Policies":[{"Name":"submit"},{"Name":"readonly"},{"Name":"drain"}],"CreateIndex":40,"ModifyIndex":41}"""),
                mapper.readTree(agent.last(path).body()));
    }

    @Test
    void updateWithoutMergeReplacesTheRole() throws Exception {
        String path = "/v1/acl/role/" + ID;
        agent.sequence(path, ROLE, ROLE);
        Cli.Result r = Cli.run(env, "acl", "role", "update", "-no-merge", "-name", "ops", "-policy", "drain", ID);
        assertEquals(0, r.code(), r.err());
        assertEquals(mapper.readTree("""
                {"ID":"77a780d8-2dee-7c7f-7822-6f5471c5cbb2","Name":"ops","Description":"",
                 "Policies":[{"Name":"drain"}]}"""), mapper.readTree(agent.last(path).body()));
    }

    @Test
    void updateNeedsAFlagAndAnExistingRole() {
        Cli.Result noFlag = Cli.run(env, "acl", "role", "update", ID);
        assertEquals(1, noFlag.code());
        assertEquals("Please provide at least one flag to update the ACL role\n"
                + "For additional help try 'caravan acl role update -h'\n", noFlag.err());
        assertEquals(0, agent.requests().size());
        agent.reply("/v1/acl/role/nope", 404, "ACL role not found");
        Cli.Result unknown = Cli.run(env, "acl", "role", "update", "-name", "x", "nope");
        assertEquals(1, unknown.code());
        assertEquals("Error when retrieving ACL role: Unexpected response code: 404 (ACL role not found)\n",
                unknown.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void deleteSendsADelete() {
        agent.json("/v1/acl/role/" + ID, "");
        Cli.Result r = Cli.run(env, "acl", "role", "delete", ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("ACL role " + ID + " successfully deleted\n", r.out());
        assertEquals("DELETE", agent.last("/v1/acl/role/" + ID).method());
    }

    @Test
    void deleteWithoutPermissionPrintsTheRefusal() {
        agent.reply("/v1/acl/role/" + ID, 403, "Permission denied");
        Cli.Result r = Cli.run(env, "acl", "role", "delete", ID);
        assertEquals(1, r.code());
        assertEquals("Error deleting ACL role: Unexpected response code: 403 (Permission denied)\n", r.err());
    }
}
