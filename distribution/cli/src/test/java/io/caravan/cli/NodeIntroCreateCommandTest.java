package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodeIntroCreateCommandTest extends FakeAgentTest {
    private static final String PATH = "/v1/acl/identity/client-introduction-token";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "mgmt");
        agent.json(PATH, "{\"JWT\":\"aaa.bbb.ccc\"}");
    }

    @Test
    void createPrintsTheJwtAndSendsTheBindings() {
        Cli.Result r = Cli.run(env, "node", "intro", "create", "-node-name", "web-1", "-node-pool", "edge",
                "-ttl", "10m");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("aaa.bbb.ccc"), r.outLines());
        FakeAgent.Request sent = agent.last(PATH);
        assertEquals("PUT", sent.method());
        assertTrue(sent.body().contains("\"NodeName\":\"web-1\""), sent.body());
        assertTrue(sent.body().contains("\"NodePool\":\"edge\""), sent.body());
        assertTrue(sent.body().contains("\"TTL\":\"10m\""), sent.body());
    }

    @Test
    void jsonPrintsTheReplyObject() {
        Cli.Result r = Cli.run(env, "node", "intro", "create", "-json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"JWT\" : \"aaa.bbb.ccc\""), r.out());
    }
}
