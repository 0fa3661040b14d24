package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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

        Path insecure = tmp.resolve("insecure.hcl");
        Files.writeString(insecure, "data_dir = \"/var/lib/caravan\"\nserver {\n  enabled = true\n}\ntls {\n"
                + "  http = true\n}\n");
        Cli.Result warned = Cli.run(Map.of(), "config", "validate", insecure.toString());
        assertEquals(0, warned.code(), warned.err());
        assertEquals("Configuration is valid!\n", warned.out());
        assertEquals(insecure + ":6:3: warning: tls.http is not supported yet and has no effect: the HTTP API and RPC "
                + "are served in plain text\n", warned.err());

        Path clientOnly = tmp.resolve("client.hcl");
        Files.writeString(clientOnly, "client {\n  enabled = true\n}\n");
        Cli.Result noDataDir = Cli.run(Map.of(), "config", "validate", clientOnly.toString());
        assertEquals(1, noDataDir.code());
        assertTrue(noDataDir.err().contains("data_dir"), noDataDir.err());
    }
}
