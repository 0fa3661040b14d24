package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AclTokenCommandsTest extends FakeAgentTest {
    private static final String MANAGER = "3f4a0fcd-7c42-773c-25db-2d31ba0c05fe";
    private static final String ACCESSOR = "ef851ca0-b331-da5d-bbeb-7ede8f7c9151";
    private static final String CLIENT_TOKEN = """
            {"AccessorID":"ef851ca0-b331-da5d-bbeb-7ede8f7c9151","SecretID":"11d5348a-8768-5baa-6185-c154980e1488",
             "Name":"deploy","Type":"client","Policies":["readonly","submit"],
             "Roles":[{"ID":"77a780d8-2dee-7c7f-7822-6f5471c5cbb2","Name":"operators"}],"Global":false,
             "CreateTime":"2022-08-23T12:16:09.680699039Z","ExpirationTime":"2022-08-23T13:16:09.68069904Z",
             "ExpirationTTL":"1h0m0s","CreateIndex":30,"ModifyIndex":30}""";
    private static final String CLIENT_TOKEN_OUTPUT = """
            Accessor ID  = ef851ca0-b331-da5d-bbeb-7ede8f7c9151
            Secret ID    = 11d5348a-8768-5baa-6185-c154980e1488
            Name         = deploy
            Type         = client
            Global       = false
            Create Time  = 2022-08-23 12:16:09.680699039 +0000 UTC
            Expiry Time  = 2022-08-23 13:16:09.68069904 +0000 UTC
            Create Index = 30
            Modify Index = 30
            Policies     = [readonly submit]

            Roles
            ID                                    Name
            77a780d8-2dee-7c7f-7822-6f5471c5cbb2  operators
            """;

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "NOMAD_TOKEN", MANAGER);
    }

    @Test
    void createPutsTheFlagsAsATokenAndPrintsIt() throws Exception {
        agent.json("/v1/acl/token", CLIENT_TOKEN);
        Cli.Result r = Cli.run(env, "acl", "token", "create", "-name=deploy", "-policy", "readonly",
                "-policy=submit", "-role-name", "operators", "-role-name", "operators", "-role-id", "77a780d8",
                "-ttl", "1h");
        assertEquals(0, r.code(), r.err());
        assertEquals(CLIENT_TOKEN_OUTPUT, r.out());
        FakeAgent.Request put = agent.last("/v1/acl/token");
        assertEquals("PUT", put.method());
        assertEquals(MANAGER, put.token());
        assertEquals(new ObjectMapper().readTree("""
                {"Name":"deploy","Type":"client","Global":false,"Policies":["readonly","submit"],
                 "Roles":[{"Name":"operators"},{"ID":"77a780d8"}],"ExpirationTTL":"1h0m0s"}"""),
                new ObjectMapper().readTree(put.body()));
    }

    @Test
    void aManagementTokenHasNoPoliciesNorRolesAndJsonIsTheToken() throws Exception {
        agent.json("/v1/acl/token", AclBootstrapCommandTest.MANAGEMENT_TOKEN);
        Cli.Result r = Cli.run(env, "acl", "token", "create", "-type", "management", "-global");
        assertEquals(0, r.code(), r.err());
        assertEquals(AclBootstrapCommandTest.MANAGEMENT_TOKEN_OUTPUT, r.out());
        JsonNode body = new ObjectMapper().readTree(agent.last("/v1/acl/token").body());
        assertEquals("management", body.get("Type").asText());
        assertTrue(body.get("Global").asBoolean());
        assertFalse(body.has("ExpirationTTL"));

        Cli.Result json = Cli.run(env, "acl", "token", "create", "-type", "management", "-json");
        assertEquals(0, json.code(), json.err());
        assertEquals(new ObjectMapper().readTree(AclBootstrapCommandTest.MANAGEMENT_TOKEN),
                new ObjectMapper().readTree(json.out()));
    }

    @Test
    void createRefusesABadTtlBeforeAnyRequestAndPrintsTheServersRefusals() {
        Cli.Result ttl = Cli.run(env, "acl", "token", "create", "-ttl", "soon");
        assertEquals(1, ttl.code());
        assertEquals("Failed to parse TTL as time duration: time: invalid duration \"soon\"\n", ttl.err());
        assertEquals(0, agent.requests().size());

        agent.reply("/v1/acl/token", 400, "Token type must be client or management");
        Cli.Result bad = Cli.run(env, "acl", "token", "create", "-type", "root");
        assertEquals(1, bad.code());
        assertEquals("Error creating token: Unexpected response code: 400 (Token type must be client or management)\n",
                bad.err());

        agent.reply("/v1/acl/token", 403, "Permission denied");
        Cli.Result denied = Cli.run(env, "acl", "token", "create", "-name", "x");
        assertEquals(1, denied.code());
        assertEquals("Error creating token: Unexpected response code: 403 (Permission denied)\n", denied.err());
    }

    @Test
    void listShowsWhichTokensHaveExpired() {
        agent.json("/v1/acl/tokens", """
                [{"AccessorID":"b780e702-98ce-521f-2e5f-c6b87de05b24","Name":"Bootstrap Token","Type":"management",
                  "Policies":null,"Roles":null,"Global":true,"CreateTime":"2017-08-23T22:47:14.695408057Z",
                  "CreateIndex":7,"ModifyIndex":7},
                 {"AccessorID":"ef851ca0-b331-da5d-bbeb-7ede8f7c9151","Name":"deploy","Type":"client",
                  "Policies":["readonly"],"Global":false,"CreateTime":"2022-08-23T12:16:09.680699039Z",
                  "ExpirationTime":"2022-08-23T13:16:09.68069904Z","CreateIndex":30,"ModifyIndex":30},
                 {"AccessorID":"0d2ae4e6-4a41-4a6c-9b8e-3c4f1e7e0a11","Name":"","Type":"client",
                  "Policies":["readonly"],"Global":false,"CreateTime":"2022-08-23T12:16:09Z",
                  "ExpirationTime":"2999-01-01T00:00:00Z","CreateIndex":31,"ModifyIndex":31}]""");
        Cli.Result r = Cli.run(env, "acl", "token", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Name             Type        Global  Accessor ID                           Expired
                Bootstrap Token  management  true    b780e702-98ce-521f-2e5f-c6b87de05b24  false
                deploy           client      false   ef851ca0-b331-da5d-bbeb-7ede8f7c9151  true
                <none>           client      false   0d2ae4e6-4a41-4a6c-9b8e-3c4f1e7e0a11  false
                """, r.out());
    }

    @Test
    void listSaysWhenThereIsNoneAndPrintsJson() {
        agent.json("/v1/acl/tokens", "[]");
        Cli.Result none = Cli.run(env, "acl", "token", "list");
        assertEquals("No tokens found\n", none.out());
        Cli.Result json = Cli.run(env, "acl", "token", "list", "-json");
        assertEquals(0, json.code(), json.err());
        assertEquals("[]\n", json.out());
    }

    @Test
    void infoGetsTheTokenByAccessor() {
        agent.json("/v1/acl/token/" + ACCESSOR, CLIENT_TOKEN);
        Cli.Result r = Cli.run(env, "acl", "token", "info", ACCESSOR);
        assertEquals(0, r.code(), r.err());
        assertEquals(CLIENT_TOKEN_OUTPUT, r.out());
        assertEquals("GET", agent.last("/v1/acl/token/" + ACCESSOR).method());
    }

    @Test
    void infoWithoutAnAccessorOrOfAnUnknownOneFails() {
        Cli.Result missing = Cli.run(env, "acl", "token", "info");
        assertEquals(1, missing.code());
        assertEquals("This command takes one argument: <token_accessor_id>\n"
                + "For additional help try 'caravan acl token info -h'\n", missing.err());
        assertEquals(0, agent.requests().size());
        agent.reply("/v1/acl/token/nope", 404, "ACL token not found");
        Cli.Result unknown = Cli.run(env, "acl", "token", "info", "nope");
        assertEquals(1, unknown.code());
        assertEquals("Error fetching token: Unexpected response code: 404 (ACL token not found)\n", unknown.err());
    }

    @Test
    void updateChangesOnlyTheFlaggedFields() throws Exception {
        String path = "/v1/acl/token/" + ACCESSOR;
        agent.sequence(path, CLIENT_TOKEN, CLIENT_TOKEN.replace("\"deploy\"", "\"ci\""));
        Cli.Result r = Cli.run(env, "acl", "token", "update", "-name", "ci", "-policy", "submit", ACCESSOR);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Name         = ci\n"), r.out());
        FakeAgent.Request put = agent.last(path);
        assertEquals("PUT", put.method());
        assertEquals(List.of("GET", "PUT"), agent.requests().stream().map(FakeAgent.Request::method).toList());
        JsonNode body = new ObjectMapper().readTree(put.body());
        assertEquals(ACCESSOR, body.get("AccessorID").asText());
        assertEquals("ci", body.get("Name").asText());
        assertEquals("client", body.get("Type").asText());
        assertEquals("[\"submit\"]", body.get("Policies").toString());
        assertFalse(body.get("Global").asBoolean());
        assertEquals("operators", body.get("Roles").get(0).get("Name").asText());
    }

    @Test
    void updateOfAnUnknownTokenStopsAfterTheLookup() {
        agent.reply("/v1/acl/token/nope", 404, "ACL token not found");
        Cli.Result r = Cli.run(env, "acl", "token", "update", "-name", "ci", "nope");
        assertEquals(1, r.code());
        assertEquals("Error fetching token: Unexpected response code: 404 (ACL token not found)\n", r.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void deleteSendsADelete() {
        agent.json("/v1/acl/token/" + ACCESSOR, "");
        Cli.Result r = Cli.run(env, "acl", "token", "delete", ACCESSOR);
        assertEquals(0, r.code(), r.err());
        assertEquals("Token " + ACCESSOR + " successfully deleted\n", r.out());
        assertEquals("DELETE", agent.last("/v1/acl/token/" + ACCESSOR).method());
    }

    @Test
    void selfSendsTheGivenTokenAndNeedsOne() {
        agent.json("/v1/acl/token/self", CLIENT_TOKEN);
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "acl", "token", "self",
                "-token", "11d5348a-8768-5baa-6185-c154980e1488");
        assertEquals(0, r.code(), r.err());
        assertEquals(CLIENT_TOKEN_OUTPUT, r.out());
        assertEquals("11d5348a-8768-5baa-6185-c154980e1488", agent.last("/v1/acl/token/self").token());

        Cli.Result none = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "acl", "token", "self");
        assertEquals(1, none.code());
        assertEquals("No token present in the environment or set via the CLI flag\n", none.err());
        assertEquals(1, agent.requests().size());
    }

    @Test
    void selfWithAnUnknownSecretPrintsTheRefusal() {
        agent.reply("/v1/acl/token/self", 403, "ACL token not found");
        Cli.Result r = Cli.run(env, "acl", "token", "self");
        assertEquals(1, r.code());
        assertEquals("Error fetching self token: Unexpected response code: 403 (ACL token not found)\n", r.err());
    }
}
