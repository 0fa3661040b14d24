package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AclBootstrapCommandTest extends FakeAgentTest {
    static final String PATH = "/v1/acl/bootstrap";
    static final String MANAGEMENT_TOKEN = """
            {"AccessorID":"b780e702-98ce-521f-2e5f-c6b87de05b24","SecretID":"3f4a0fcd-7c42-773c-25db-2d31ba0c05fe",
             "Name":"Bootstrap Token","Type":"management","Policies":null,"Roles":null,"Global":true,
             "CreateTime":"2017-08-23T22:47:14.695408057Z","ExpirationTime":null,"CreateIndex":7,"ModifyIndex":7}""";
    static final String MANAGEMENT_TOKEN_OUTPUT = """
            Accessor ID  = b780e702-98ce-521f-2e5f-c6b87de05b24
            Secret ID    = 3f4a0fcd-7c42-773c-25db-2d31ba0c05fe
            Name         = Bootstrap Token
            Type         = management
            Global       = true
            Create Time  = 2017-08-23 22:47:14.695408057 +0000 UTC
            Expiry Time  = <none>
            Create Index = 7
            Modify Index = 7
            Policies     = n/a
            Roles        = n/a
            """;

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address());
        agent.json(PATH, MANAGEMENT_TOKEN);
    }

    @Test
    void bootstrapPostsAnEmptySecretAndPrintsTheManagementToken() throws Exception {
        Cli.Result r = Cli.run(env, "acl", "bootstrap");
        assertEquals(0, r.code(), r.err());
        assertEquals(MANAGEMENT_TOKEN_OUTPUT, r.out());
        FakeAgent.Request post = agent.last(PATH);
        assertEquals("POST", post.method());
        assertEquals("", new ObjectMapper().readTree(post.body()).get("BootstrapSecret").asText());
    }

    @Test
    void theSecretComesFromAFileOrStandardInputWithoutItsNewline(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("secret"), "2b778dd9-f5f1-6f29-b4b4-9a5fa948757a\n");
        Cli.Result fromFile = Cli.run(env, "acl", "bootstrap", file.toString());
        assertEquals(0, fromFile.code(), fromFile.err());
        assertEquals("2b778dd9-f5f1-6f29-b4b4-9a5fa948757a",
                new ObjectMapper().readTree(agent.last(PATH).body()).get("BootstrapSecret").asText());

        Cli.Result fromStdin = Cli.withInput("a7ca5a3a-9c6b-4a56-9a4c-0e4f1e1bd1c8\n", env, "acl", "bootstrap", "-");
        assertEquals(0, fromStdin.code(), fromStdin.err());
        assertEquals("a7ca5a3a-9c6b-4a56-9a4c-0e4f1e1bd1c8",
                new ObjectMapper().readTree(agent.last(PATH).body()).get("BootstrapSecret").asText());
    }

    @Test
    void jsonPrintsTheTokenAsTheAgentSentIt() throws Exception {
        Cli.Result r = Cli.run(env, "acl", "bootstrap", "-json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("{\n    \"AccessorID\": \"b780e702-98ce-521f-2e5f-c6b87de05b24\",\n"), r.out());
        ObjectMapper mapper = new ObjectMapper();
        assertEquals(mapper.readTree(MANAGEMENT_TOKEN), mapper.readTree(r.out()));
    }

    @Test
    void aSecondBootstrapPrintsTheServersMessage() {
        agent.reply(PATH, 400, "ACL bootstrap already done (reset index: 7)");
        Cli.Result r = Cli.run(env, "acl", "bootstrap");
        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals("Error bootstrapping: Unexpected response code: 400 (ACL bootstrap already done (reset index: 7))\n",
                r.err());
    }

    @Test
    void aRefusalIsPrintedAndTheTokenIsSent() {
        agent.reply(PATH, 403, "Permission denied");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "NOMAD_TOKEN", "not-a-manager"),
                "acl", "bootstrap");
        assertEquals(1, r.code());
        assertEquals("Error bootstrapping: Unexpected response code: 403 (Permission denied)\n", r.err());
        assertEquals("not-a-manager", agent.last(PATH).token());
    }

    @Test
    void moreThanOnePathOrAMissingFileIsRefusedBeforeAnyRequest(@TempDir Path dir) {
        Cli.Result two = Cli.run(env, "acl", "bootstrap", "a", "b");
        assertEquals(1, two.code());
        assertEquals("This command takes up to one argument\nFor additional help try 'caravan acl bootstrap -h'\n",
                two.err());
        Cli.Result missing = Cli.run(env, "acl", "bootstrap", dir.resolve("nope").toString());
        assertEquals(1, missing.code());
        assertEquals("Error reading provided token: no such file or directory\n", missing.err());
        assertEquals(0, agent.requests().size());
    }
}
