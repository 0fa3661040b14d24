package io.caravan.agent.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.caravan.agent.UnsupportedKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keys Caravan reads but does not act on are reported where they were set; enum typos are errors with position. */
class UnsupportedKeysTest {
    @TempDir
    Path dir;

    private static final Schema.Block ROOT = Schema.nomadAgent().root();

    private Path file(String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private static Map<String, UnsupportedKey> byKey(List<UnsupportedKey> keys) {
        Map<String, UnsupportedKey> out = new java.util.LinkedHashMap<>();
        keys.forEach(k -> out.put(k.key(), k));
        assertEquals(keys.size(), out.size(), "each key once: " + keys);
        return out;
    }

    @Test
    void theSchemaMarksWhatIsNotActedOnAndLeavesTheRest() {
        for (String block : List.of("consul", "vault", "audit")) {
            assertNotNull(ROOT.key(block).unsupported(), block);
        }
        // Telemetry is acted on (bundles/metrics); the sinks other than /v1/metrics are not.
        Schema.Block telemetry = (Schema.Block) ROOT.key("telemetry");
        assertNull(telemetry.unsupported());
        for (String key : List.of("collection_interval", "disable_hostname", "prometheus_metrics", "prefix_filter",
                "filter_default", "publish_node_metrics", "publish_allocation_metrics",
                "disable_rpc_rate_metrics_labels")) {
            assertNull(telemetry.key(key).unsupported(), key);
        }
        assertNotNull(telemetry.key("statsd_address").unsupported());
        assertNotNull(telemetry.key("circonus_api_token").unsupported());
        // The autopilot block is the initial autopilot configuration; its Enterprise keys are not acted on.
        Schema.Block autopilot = (Schema.Block) ROOT.key("autopilot");
        assertNull(autopilot.unsupported());
        assertNull(autopilot.key("cleanup_dead_servers").unsupported());
        assertNotNull(autopilot.key("enable_redundancy_zones").unsupported());
        Schema.Block tls = (Schema.Block) ROOT.key("tls");
        assertNull(tls.unsupported());
        assertNull(tls.key("rpc").unsupported());
        assertNotNull(tls.key("tls_prefer_server_cipher_suites").unsupported());
        Schema.Block acl = (Schema.Block) ROOT.key("acl");
        assertNull(acl.unsupported());
        assertNull(acl.key("enabled").unsupported());
        assertNull(acl.key("token_max_expiration_ttl").unsupported());
        assertNotNull(acl.key("replication_token").unsupported());
        Schema.Block server = (Schema.Block) ROOT.key("server");
        // The TTLs serve node intro tokens; the enforcement decides which new nodes may register.
        assertNull(server.key("client_introduction").unsupported());
        assertNull(((Schema.Block) server.key("client_introduction")).key("enforcement").unsupported());
        assertNull(((Schema.Block) ROOT.key("client")).key("intro_token").unsupported());
        assertNull(server.key("job_tracked_versions").unsupported());
        assertNotNull(server.key("job_max_source_size").unsupported());
        assertNull(server.key("bootstrap_expect").unsupported());
        assertNull(server.key("heartbeat_grace").unsupported());
        assertNull(server.key("acl_token_gc_threshold").unsupported());
        assertNull(server.key("job_gc_threshold").unsupported());
        assertNotNull(server.key("csi_plugin_gc_threshold").unsupported());
        Schema.Block client = (Schema.Block) ROOT.key("client");
        assertNotNull(client.key("template").unsupported());
        assertNull(client.key("meta").unsupported());
        assertNull(((Schema.Block) client.key("reserved")).key("cpu").unsupported());
        assertNotNull(((Schema.Block) client.key("reserved")).key("cores").unsupported());
        assertNull(ROOT.key("plugin").unsupported());
        assertNull(ROOT.key("log_level").unsupported());
    }

    @Test
    void schemaOptionsTakeQuotedReasonsAndEnums() {
        Schema s = Schema.parse(List.of(
                "a string enum=x|y unsupported=\"not # a comment\"  # a comment",
                "b unsupported=\"why = this\" {",
                "  c int port",
                "}"));
        Schema.Attr a = (Schema.Attr) s.root().key("a");
        assertEquals(List.of("x", "y"), a.allowed());
        assertEquals("not # a comment", a.unsupported());
        Schema.Block b = (Schema.Block) s.root().key("b");
        assertEquals("why = this", b.unsupported());
        assertTrue(b.key("c").has("port"));
        assertNull(b.key("c").unsupported());
    }

    @Test
    void eachKeySetInAnUnsupportedBlockIsReportedWithItsPosition() throws Exception {
        Path f = file("agent.hcl", """
                data_dir = "/tmp/x"
                server {
                  enabled = true
                  client_introduction {
                    enforcement = "strict"
                  }
                }
                acl {
                  enabled = true
                  replication_token = "x"
                }
                tls {
                  http = true
                  tls_prefer_server_cipher_suites = true
                }
                telemetry {
                  prometheus_metrics = true
                  statsd_address = "127.0.0.1:8125"
                }
                consul {}
                """);
        ConfigLoader.Loaded loaded = ConfigLoader.load(false, List.of(f.toString()), Map.of());
        Map<String, UnsupportedKey> keys = byKey(loaded.unsupported());
        assertEquals(List.of("acl.replication_token",
                "tls.tls_prefer_server_cipher_suites", "telemetry.statsd_address", "consul"),
                List.copyOf(keys.keySet()));
        assertEquals(f + ":10:3", keys.get("acl.replication_token").position());
        assertEquals(f + ":14:3", keys.get("tls.tls_prefer_server_cipher_suites").position());
        assertEquals(f + ":20:1", keys.get("consul").position()); // an empty block still means "use Consul"
        assertTrue(keys.get("acl.replication_token").reason().contains("one region"),
                keys.get("acl.replication_token").reason());
    }

    @Test
    void onlyWhatTheOperatorSetIsReportedNotTheDefaults() throws Exception {
        // The built-in defaults set acl.enabled = false and ui.enabled = true; -dev adds more.
        Path f = file("plain.json", "{\"data_dir\": \"/tmp/x\", \"server\": {\"enabled\": true}}");
        assertEquals(List.of(), ConfigLoader.load(true, List.of(f.toString()), Map.of()).unsupported());
    }

    @Test
    void flagsAreReportedAsTheCommandLineAndEachKeyOnceAcrossFiles() throws Exception {
        Path a = file("a.json", "{\"tls\": {\"tls_prefer_server_cipher_suites\": true}, "
                + "\"log_file\": \"/var/log/nomad.log\"}");
        Path b = file("b.hcl", "tls {\n  tls_prefer_server_cipher_suites = false\n}\n");
        ConfigLoader.Loaded loaded = ConfigLoader.load(false, List.of(a.toString(), b.toString()),
                Map.of("acl", Map.of("policy_ttl", "30s")));
        Map<String, UnsupportedKey> keys = byKey(loaded.unsupported());
        assertEquals(List.of("tls.tls_prefer_server_cipher_suites", "log_file", "acl.policy_ttl"),
                List.copyOf(keys.keySet()));
        assertEquals(a + ":1:10", keys.get("tls.tls_prefer_server_cipher_suites").position()); // first set here
        assertEquals("command line", keys.get("acl.policy_ttl").position());
    }

    @Test
    void anEnumTypoIsAnErrorWithItsPosition() throws Exception {
        Path f = file("bad.hcl", """
                server {
                  client_introduction {
                    enforcement = "bogus"
                  }
                }
                client {
                  preferred_address_family = "IPv6"
                }
                """);
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(false, List.of(f.toString()), Map.of()));
        assertEquals(1, e.problems().size(), e.getMessage()); // IPv6 matches ipv6: case does not matter
        assertEquals(f + ":3:19: invalid \"server.client_introduction.enforcement\" \"bogus\": must be one of "
                + "none, warn, strict", e.problems().get(0).toString());
    }

    @Test
    void aLogLevelFlagIsCheckedLikeTheFileKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(true, List.of(), Map.of("log_level", "loud")));
        assertTrue(e.getMessage().startsWith("command line: invalid \"log_level\" \"loud\""), e.getMessage());
    }
}
