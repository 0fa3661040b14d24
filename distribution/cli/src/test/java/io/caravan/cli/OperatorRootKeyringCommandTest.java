package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OperatorRootKeyringCommandTest extends FakeAgentTest {
    private static final String KEYS = "/v1/operator/keyring/keys";
    private static final String ROTATE = "/v1/operator/keyring/rotate";
    private static final String ID = "f19f6029-0a3b-4c2e-8f1d-3b2a1c0d9e8f";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "mgmt", "TZ", "UTC");
        agent.json(KEYS, "[{\"KeyID\":\"" + ID + "\",\"Algorithm\":\"aes256-gcm\",\"CreateTime\":1767225600000000000,"
                + "\"CreateIndex\":5,\"ModifyIndex\":5,\"State\":\"active\"}]");
        agent.json(ROTATE, "{\"Key\":{\"KeyID\":\"0b2c\",\"State\":\"active\",\"CreateTime\":1767225600000000000}}");
    }

    @Test
    void listPrintsShortIdsUnlessVerbose() {
        Cli.Result r = Cli.run(env, "operator", "root", "keyring", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("Key       State   Create Time", r.outLines().get(0));
        assertTrue(r.outLines().get(1).startsWith("f19f6029  active  2026-01-01T00:00:00"), r.out());
        Cli.Result verbose = Cli.run(env, "operator", "root", "keyring", "list", "-verbose");
        assertTrue(verbose.outLines().get(1).startsWith(ID), verbose.out());
    }

    @Test
    void rotatePutsAndPrintsTheNewKey() {
        Cli.Result r = Cli.run(env, "operator", "root", "keyring", "rotate");
        assertEquals(0, r.code(), r.err());
        assertEquals("PUT", agent.last(ROTATE).method());
        assertTrue(r.outLines().get(1).startsWith("0b2c  active"), r.out());
        assertEquals(0, Cli.run(env, "operator", "root", "keyring", "rotate", "-full").code());
        assertEquals("full=true", agent.last(ROTATE).query());
    }

    @Test
    void removeDeletesTheKey() {
        String path = "/v1/operator/keyring/key/" + ID;
        agent.json(path, "{}");
        Cli.Result r = Cli.run(env, "operator", "root", "keyring", "remove", ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("DELETE", agent.last(path).method());
        assertEquals(List.of("Removed encryption key " + ID), r.outLines());
    }
}
