package io.caravan.agent.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JsonConformanceTest {

    static Stream<Path> jsonFiles() throws Exception {
        try (Stream<Path> files = Files.walk(Conformance.agentConfigs())) {
            List<Path> all = files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            assertFalse(all.isEmpty());
            return all.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("jsonFiles")
    void everyNomadJsonConfigDecodes(Path file) throws Exception {
        Decoder.decode(JsonSource.read(file), Schema.nomadAgent().root());
    }

    @Test
    void basicJsonHasTheValuesItSays() throws Exception {
        Map<String, Object> c = Decoder.decode(JsonSource.read(Conformance.agentConfigs().resolve("basic.json")),
                Schema.nomadAgent().root());
        assertEquals("foobar", c.get("region"));
        Map<String, Object> ports = Decoder.asMap(c.get("ports"));
        assertEquals(1234L, ports.get("http"));
        Map<String, Object> client = Decoder.asMap(c.get("client"));
        assertEquals(List.of("a.b.c:80", "127.0.0.1:1234"), client.get("servers"));
        assertEquals(Map.of("foo", "bar", "baz", "zip"), client.get("meta"));
        Map<String, Object> server = Decoder.asMap(c.get("server"));
        assertEquals(Duration.ofHours(12), server.get("node_gc_threshold"));
        assertEquals(11.0, server.get("max_heartbeats_per_second"));
        Map<String, Object> plugins = Decoder.asMap(c.get("plugin"));
        assertEquals(Map.of("foo", "bar", "nested", Map.of("bam", new java.math.BigDecimal("2"))),
                Decoder.asMap(plugins.get("docker")).get("config"));
    }

    @Test
    void problemsAreAllReportedWithPositions() {
        ConfigException e = assertThrows(ConfigException.class, () -> Decoder.decode(JsonSource.read("c.json", """
                {
                  "ports": {"http": 70000, "bogus": 1},
                  "log_level": "loud",
                  "server": {"enabled": "maybe", "heartbeat_grace": "ten"},
                  "client": "yes"
                }
                """), Schema.nomadAgent().root()));
        assertEquals(List.of(
                "c.json:2:21: \"ports.http\" must be a port (1-65535), not 70000",
                "c.json:2:28: unknown key \"ports.bogus\"",
                "c.json:3:16: invalid \"log_level\" \"loud\": valid log levels are TRACE, DEBUG, INFO, WARN, ERROR, OFF",
                "c.json:4:25: \"server.enabled\" must be true or false, not \"maybe\"",
                "c.json:4:53: \"server.heartbeat_grace\": invalid duration \"ten\" (write e.g. \"30s\", \"5m\", \"1h30m\")",
                "c.json:5:13: \"client\" must be a block, not a string"),
                e.problems().stream().map(ConfigException.Problem::toString).toList());
    }

    @Test
    void sizesAreBytesWrittenAsGoHumanizeReadsThem() throws Exception {
        assertEquals(4096, Decoder.parseSize("4096"));
        assertEquals(2 * 1024 * 1024, Decoder.parseSize("2MiB"));
        assertEquals(8 * 1024 * 1024, Decoder.parseSize("8 mib"));
        assertEquals(1_000_000, Decoder.parseSize("1MB"));
        assertEquals(1_000_000, Decoder.parseSize("1m"));
        assertEquals(1536, Decoder.parseSize("1.5KiB"));
        assertEquals(3L << 30, Decoder.parseSize("3GiB"));
        assertEquals(12, Decoder.parseSize("12b"));
        for (String bad : List.of("", "lots", "-1", "2 MiBs", "1e6", "MiB", "1.KiB", "99999999999TiB")) {
            assertEquals(-1, Decoder.parseSize(bad), bad);
        }
        Map<String, Object> c = Decoder.decode(JsonSource.read("s.json", """
                {"limits": {"http_max_request_body": "512KiB"}}
                """), Schema.nomadAgent().root());
        assertEquals(512L * 1024, Decoder.asMap(c.get("limits")).get("http_max_request_body"));
        ConfigException e = assertThrows(ConfigException.class, () -> Decoder.decode(JsonSource.read("s.json", """
                {"limits": {"http_max_request_body": "lots"}}
                """), Schema.nomadAgent().root()));
        assertEquals(List.of("s.json:1:38: \"limits.http_max_request_body\": invalid size \"lots\" "
                + "(write a number of bytes or e.g. \"512KiB\", \"2MiB\", \"1MB\")"),
                e.problems().stream().map(ConfigException.Problem::toString).toList());
        ConfigException zero = assertThrows(ConfigException.class, () -> Decoder.decode(JsonSource.read("s.json",
                "{\"limits\": {\"http_max_request_body\": 0}}"), Schema.nomadAgent().root()));
        assertEquals(1, zero.problems().size());
    }

    @Test
    void laterFilesWinListsAppendMapsMerge() throws Exception {
        Schema.Block root = Schema.nomadAgent().root();
        Map<String, Object> a = Decoder.decode(JsonSource.read("a.json", """
                {"region": "a", "client": {"servers": ["s1"], "meta": {"x": "1", "y": "1"}},
                 "server": {"enabled_schedulers": ["service"]}, "plugin": {"raw_exec": {"config": {"enabled": false}}}}
                """), root);
        Map<String, Object> b = Decoder.decode(JsonSource.read("b.json", """
                {"region": "b", "client": [{"servers": ["s2"], "meta": {"y": "2"}}],
                 "server": {"enabled_schedulers": ["batch"]}, "plugin": [{"raw_exec": [{"config": {"enabled": true}}]}]}
                """), root);
        Map<String, Object> merged = Merger.merge(a, b, root);
        assertEquals("b", merged.get("region"));
        Map<String, Object> client = Decoder.asMap(merged.get("client"));
        assertEquals(List.of("s1", "s2"), client.get("servers"));
        assertEquals(Map.of("x", "1", "y", "2"), client.get("meta"));
        assertEquals(List.of("batch"), Decoder.asMap(merged.get("server")).get("enabled_schedulers"));
        assertEquals(Map.of("enabled", true),
                Decoder.asMap(Decoder.asMap(merged.get("plugin")).get("raw_exec")).get("config"));
    }
}
