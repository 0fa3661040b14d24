package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCommandTest extends FakeAgentTest {

    @Test
    void reloadPutsAndPrintsTheReport() {
        agent.json("/v1/agent/reload", "{\"Changed\":[\"client.meta.rack\",\"ports.http\"],"
                + "\"Applied\":[\"client.meta.rack\"],\"RestartRequired\":[\"ports.http\"],\"ElapsedMs\":12.46}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "s3cret"), "config", "reload");
        assertEquals(0, r.code(), r.err());
        assertEquals("PUT", agent.last("/v1/agent/reload").method());
        assertEquals("s3cret", agent.last("/v1/agent/reload").token());
        assertEquals("""
                Configuration reloaded in 12.5 ms
                Applied:
                  client.meta.rack
                Needs a restart (not applied):
                  ports.http
                """, r.out());
    }

    @Test
    void reloadListsTheKeysThatHaveNoEffect() {
        agent.json("/v1/agent/reload", "{\"Changed\":[],\"Applied\":[],\"RestartRequired\":[],\"ElapsedMs\":3,"
                + "\"Unsupported\":[{\"Key\":\"tls.http\",\"Position\":\"/etc/caravan/a.hcl:2:3\","
                + "\"Reason\":\"served in plain text\"}]}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Configuration reloaded in 3.0 ms
                No configuration changed.
                Not supported yet (set, but without effect):
                  tls.http (/etc/caravan/a.hcl:2:3): served in plain text
                """, r.out());
    }

    @Test
    void aRejectedReloadIsOneLineAndExitOne() {
        agent.reply("/v1/agent/reload", 400, "/etc/caravan/a.hcl:3:5: unknown key \"ports.htp\"");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload");
        assertEquals(1, r.code());
        assertEquals("Error reloading agent configuration: Unexpected response code: 400 "
                + "(/etc/caravan/a.hcl:3:5: unknown key \"ports.htp\")\n", r.err());
    }

    @Test
    void nodeIdAndServerIdNameTheAgentToReload() {
        agent.json("/v1/agent/reload", "{\"Changed\":[],\"Applied\":[],\"RestartRequired\":[],\"ElapsedMs\":1}");
        Cli.Result node = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-node-id", "n-1");
        assertEquals(0, node.code(), node.err());
        assertEquals("node_id=n-1", agent.last("/v1/agent/reload").query());
        Cli.Result server = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-server-id",
                "s1.global");
        assertEquals(0, server.code(), server.err());
        assertEquals("server_id=s1.global", agent.last("/v1/agent/reload").query());
        Cli.Result here = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload");
        assertEquals(0, here.code(), here.err());
        assertEquals(null, agent.last("/v1/agent/reload").query(), "no target: the agent the CLI talks to");

        agent.reply("/v1/agent/reload?node_id=nope", 404, "Unknown node \"nope\"");
        Cli.Result unknown = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-node-id", "nope");
        assertEquals(1, unknown.code());
        assertEquals("Error reloading agent configuration: Unexpected response code: 404 (Unknown node \"nope\")\n",
                unknown.err());
    }

    @Test
    void onlyOneTargetAndNoJsonWithAll() {
        Cli.Result two = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-node-id", "n-1",
                "-all");
        assertEquals(1, two.code());
        assertTrue(two.err().startsWith("Only one of -node-id, -server-id and -all may be given\n"), two.err());
        Cli.Result json = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-all", "-json");
        assertEquals(1, json.code());
        assertTrue(json.err().startsWith("-json reports one agent: it cannot be used with -all\n"), json.err());
        assertTrue(agent.requests().isEmpty(), "nothing was sent: " + agent.requests());
    }

    @Test
    void allReloadsEveryServerAndNodeOnceAndReportsEach() {
        agent.json("/v1/agent/members", """
                {"ServerName": "s1", "Members": [
                  {"Name": "s1.global", "Status": "alive", "Tags": {"id": "aaaaaaaa-1111"}},
                  {"Name": "s2.global", "Status": "alive", "Tags": {"id": "bbbbbbbb-2222"}},
                  {"Name": "s3.global", "Status": "failed", "Tags": {"id": "cccccccc-3333"}}]}""");
        agent.json("/v1/nodes", """
                [{"ID": "aaaaaaaa-1111", "Name": "s1", "Status": "ready"},
                 {"ID": "dddddddd-4444", "Name": "web1", "Status": "ready"},
                 {"ID": "eeeeeeee-5555", "Name": "web2", "Status": "ready"},
                 {"ID": "ffffffff-6666", "Name": "old", "Status": "down"}]""");
        agent.json("/v1/agent/reload", "{\"Changed\":[\"log_level\"],\"Applied\":[\"log_level\"],"
                + "\"RestartRequired\":[],\"ElapsedMs\":2.04}");
        agent.json("/v1/agent/reload?server_id=s2.global",
                "{\"Changed\":[],\"Applied\":[],\"RestartRequired\":[],\"ElapsedMs\":1}");
        agent.reply("/v1/agent/reload?node_id=eeeeeeee-5555", 500, "reload failed: disk full");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-all");
        assertEquals(1, r.code(), "one agent failed");
        assertEquals("""
                server s1.global: reloaded in 2.0 ms, 1 applied, 0 need a restart
                server s2.global: reloaded in 1.0 ms, no configuration changed
                server s3.global: skipped, server is failed
                client dddddddd (web1): reloaded in 2.0 ms, 1 applied, 0 need a restart
                client eeeeeeee (web2): failed: Unexpected response code: 500 (reload failed: disk full)
                client ffffffff (old): skipped, node is down
                """, r.out());
        assertEquals("Error reloading agent configuration: 1 of 4 agents failed\n", r.err());
        List<String> sent = agent.requests().stream().filter(q -> q.path().equals("/v1/agent/reload"))
                .map(q -> q.method() + " " + q.query()).toList();
        assertEquals(List.of("PUT server_id=s1.global", "PUT server_id=s2.global", "PUT node_id=dddddddd-4444",
                "PUT node_id=eeeeeeee-5555"), sent, "the server's own client node is not reloaded twice");
    }

    @Test
    void allExitsZeroWhenEveryAgentReloaded() {
        agent.json("/v1/agent/members", "{\"Members\": [{\"Name\": \"s1.global\", \"Status\": \"alive\","
                + " \"Tags\": {\"id\": \"a\"}}]}");
        agent.json("/v1/nodes", "[]");
        agent.json("/v1/agent/reload", "{\"Changed\":[],\"ElapsedMs\":1}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "config", "reload", "-all");
        assertEquals(0, r.code(), r.err());
        assertEquals("server s1.global: reloaded in 1.0 ms, no configuration changed\n", r.out());
    }

    @Test
    void validateChecksFilesWithoutAnAgent(@TempDir Path tmp) throws Exception {
        Path good = tmp.resolve("good.hcl");
        Files.writeString(good, "data_dir = \"/var/lib/caravan\"\nbind_addr = \"10.0.0.5\"\nserver {\n  enabled = true\n}\n");
        Cli.Result ok = Cli.run(Map.of(), "config", "validate", good.toString());
        assertEquals(0, ok.code(), ok.err());
        assertEquals("Configuration is valid!\n", ok.out());

        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, "{\"server\": {\"enabled\": true, \"bootstrap_expect\": \"three\"},\n \"bogus\": 1}");
        Cli.Result no = Cli.run(Map.of(), "config", "validate", good.toString(), bad.toString());
        assertEquals(1, no.code());
        assertEquals(bad + ":1:50: \"server.bootstrap_expect\" must be a whole number, not \"three\"\n"
                + bad + ":2:2: unknown key \"bogus\"\n", no.err());

        Path unsupported = tmp.resolve("unsupported.hcl");
        Files.writeString(unsupported, "data_dir = \"/var/lib/caravan\"\nserver {\n  enabled = true\n}\ntls {\n"
                + "  tls_prefer_server_cipher_suites = true\n}\n");
        Cli.Result warned = Cli.run(Map.of(), "config", "validate", unsupported.toString());
        assertEquals(0, warned.code(), warned.err());
        assertEquals("Configuration is valid!\n", warned.out());
        assertEquals(unsupported + ":6:3: warning: tls.tls_prefer_server_cipher_suites is not supported yet and has "
                + "no effect: the JDK's cipher-suite order applies\n", warned.err());

        // TLS on without its files is an error, not a plain-text agent.
        Path noCert = tmp.resolve("nocert.hcl");
        Files.writeString(noCert, "data_dir = \"/var/lib/caravan\"\nserver {\n  enabled = true\n}\ntls {\n"
                + "  http = true\n}\n");
        Cli.Result refused = Cli.run(Map.of(), "config", "validate", noCert.toString());
        assertEquals(1, refused.code(), refused.out());
        assertTrue(refused.err().contains("tls: cert_file is required when http = true"), refused.err());

        Path clientOnly = tmp.resolve("client.hcl");
        Files.writeString(clientOnly, "client {\n  enabled = true\n}\n");
        Cli.Result noDataDir = Cli.run(Map.of(), "config", "validate", clientOnly.toString());
        assertEquals(1, noDataDir.code());
        assertTrue(noDataDir.err().contains("data_dir"), noDataDir.err());
    }
}
