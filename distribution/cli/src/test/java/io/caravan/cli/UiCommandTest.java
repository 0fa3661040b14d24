package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@code caravan ui}: the URL of the object an ID names, with a one-time token under -authenticate; no display here. */
class UiCommandTest extends FakeAgentTest {
    private static final String NONE = """
            {"jobs":[],"evals":[],"allocs":[],"nodes":[],"deployments":[],"namespaces":[],"node_pools":[]}""";

    private static String matches(String context, String ids) {
        return "{\"Matches\": " + NONE.replace("\"" + context + "\":[]", "\"" + context + "\":" + ids)
                + ", \"Truncations\": {}}";
    }

    private Map<String, String> env(String... more) {
        Map<String, String> env = new java.util.HashMap<>(Map.of("CARAVAN_ADDR", agent.address()));
        for (int i = 0; i < more.length; i += 2) {
            env.put(more[i], more[i + 1]);
        }
        return env;
    }

    @Test
    void withoutAnIdTheHomePageIsPrinted() {
        Cli.Result r = Cli.run(env(), "ui");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("Opening URL \"" + agent.address() + "/ui/\"",
                "URL for web UI: " + agent.address() + "/ui/"), r.outLines());
    }

    @Test
    void aJobAllocationOrNodePrefixOpensItsPage() {
        agent.json("/v1/search", matches("jobs", "[\"web\"]"));
        Cli.Result job = Cli.run(env(), "ui", "we");
        assertEquals(0, job.code(), job.err());
        assertTrue(job.outLines().contains("URL for web UI: " + agent.address() + "/ui/jobs/web"), job.out());
        assertEquals("{\"Prefix\":\"we\",\"Context\":\"all\"}", agent.last("/v1/search").body());

        Cli.Result otherNamespace = Cli.run(env("CARAVAN_NAMESPACE", "prod"), "ui", "we");
        assertTrue(otherNamespace.outLines().contains("URL for web UI: " + agent.address() + "/ui/jobs/web@prod"),
                otherNamespace.out());

        agent.json("/v1/search", matches("allocs", "[\"5f1c2a9e-0000-4000-8000-000000000001\"]"));
        Cli.Result alloc = Cli.run(env(), "ui", "5f1c");
        assertTrue(alloc.outLines().contains("URL for web UI: " + agent.address()
                + "/ui/allocations/5f1c2a9e-0000-4000-8000-000000000001"), alloc.out());

        agent.json("/v1/search", matches("nodes", "[\"9a8b7c6d-0000-4000-8000-000000000002\"]"));
        Cli.Result node = Cli.run(env(), "ui", "9a8b");
        assertTrue(node.outLines().contains("URL for web UI: " + agent.address()
                + "/ui/clients/9a8b7c6d-0000-4000-8000-000000000002"), node.out());
    }

    @Test
    void authenticateAppendsAOneTimeToken() {
        agent.json("/v1/acl/token/onetime", """
                {"OneTimeToken": {"OneTimeSecretID": "0b1c2d3e-0000-4000-8000-00000000000f",
                 "AccessorID": "a", "ExpiresAt": "2026-01-01T00:10:00Z", "CreateIndex": 5, "ModifyIndex": 5}}""");
        Cli.Result r = Cli.run(env("CARAVAN_TOKEN", "secret"), "ui", "-authenticate", "-show-url");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("Opening URL \"" + agent.address() + "/ui/\" with one-time token",
                "URL for web UI: " + agent.address() + "/ui/?ott=0b1c2d3e-0000-4000-8000-00000000000f"),
                r.outLines());
        assertEquals("POST", agent.last("/v1/acl/token/onetime").method());
        assertEquals("secret", agent.last("/v1/acl/token/onetime").token());
    }

    @Test
    void aFailedOneTimeTokenOrAnUnknownIdIsAnError() {
        agent.reply("/v1/acl/token/onetime", 403, "Permission denied");
        Cli.Result refused = Cli.run(env(), "ui", "-authenticate");
        assertEquals(1, refused.code());
        assertTrue(refused.err().startsWith("Could not get one-time token: "), refused.err());

        agent.json("/v1/search", "{\"Matches\": " + NONE + ", \"Truncations\": {}}");
        Cli.Result none = Cli.run(env(), "ui", "zz");
        assertEquals(1, none.code());
        assertEquals(List.of("Unable to resolve ID: \"zz\""), none.errLines());

        agent.json("/v1/search", matches("nodes", "[\"ab12\", \"ab34\"]"));
        Cli.Result several = Cli.run(env(), "ui", "ab");
        assertEquals(1, several.code());
        assertEquals(List.of("Multiple matches found for id \"ab\"", "", "Nodes:", "ab12, ab34"),
                several.errLines());
    }
}
