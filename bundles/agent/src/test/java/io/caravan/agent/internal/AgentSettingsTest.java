package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSettingsTest {
    @TempDir
    Path tmp;

    private AgentSettings resolve(AgentConfig... layers) throws Exception {
        AgentConfig merged = AgentSettings.defaults();
        for (AgentConfig layer : layers) {
            merged = merged.merge(layer);
        }
        return AgentSettings.resolve(merged, List.of(), tmp.resolve("dev"), "host1");
    }

    private Path write(String name, String json) throws Exception {
        Path file = tmp.resolve(name);
        Files.writeString(file, json);
        return file;
    }

    @Test
    void devModeIsServerAndClientOnLoopbackWithNomadsDefaults() throws Exception {
        AgentSettings s = resolve(AgentSettings.devDefaults());
        assertTrue(s.server() && s.client() && s.devMode());
        assertEquals(1, s.bootstrapExpect());
        assertEquals("global", s.region());
        assertEquals("dc1", s.datacenter());
        assertEquals("host1", s.name());
        assertEquals("DEBUG", s.logLevel());
        assertEquals(tmp.resolve("dev"), s.dataDir());
        assertEquals(tmp.resolve("dev").resolve("plugins"), s.pluginDir());
        assertEquals("127.0.0.1:4646", s.advertiseHttp());
        assertEquals("127.0.0.1:4647", s.advertiseRpc());
        assertEquals("127.0.0.1:4648", s.advertiseSerf());
    }

    @Test
    void filesMergeInOrderAndFlagsWinLast() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("conf.d"));
        Files.writeString(dir.resolve("b.json"), "{\"region\": \"b\", \"ports\": {\"http\": 5000}}");
        Files.writeString(dir.resolve("a.json"), "{\"region\": \"a\", \"datacenter\": \"dcA\","
                + " \"ports\": [{\"rpc\": 5001}], \"http_api_response_headers\": {\"X-A\": \"1\"}}");
        Files.writeString(dir.resolve("ignored.txt"), "not config");
        List<ConfigFiles.Loaded> files = ConfigFiles.load(List.of(dir.toString()));
        assertEquals(List.of("a.json", "b.json"), files.stream().map(f -> f.file().getFileName().toString()).toList());

        AgentConfig merged = AgentSettings.defaults().merge(AgentSettings.devDefaults());
        for (ConfigFiles.Loaded f : files) {
            merged = merged.merge(f.config());
        }
        merged = merged.merge(AgentFlags.parse(List.of("-dc", "flagDc")).layer());
        AgentSettings s = AgentSettings.resolve(merged, List.of(), tmp, "h");
        assertEquals("b", s.region(), "later file wins");
        assertEquals("flagDc", s.datacenter(), "flags win over files");
        assertEquals(5000, s.httpPort());
        assertEquals(5001, s.rpcPort(), "blocks merge field by field");
        assertEquals(4648, s.serfPort(), "defaults fill the rest");
        assertEquals(Map.of("X-A", "1"), s.responseHeaders());
    }

    @Test
    void configErrorsNameFileLineColumnAndKey() throws Exception {
        Path unknown = write("unknown.json", "{\n  \"ports\": {\n    \"htp\": 1\n  }\n}");
        ConfigFiles.ConfigException e = assertThrows(ConfigFiles.ConfigException.class,
                () -> ConfigFiles.parse(unknown));
        assertEquals(unknown + ":3:5: unknown key \"ports.htp\"", e.getMessage());

        Path wrongType = write("type.json", "{\"ports\": {\"http\": \"abc\"}}");
        e = assertThrows(ConfigFiles.ConfigException.class, () -> ConfigFiles.parse(wrongType));
        assertTrue(e.getMessage().startsWith(wrongType + ":1:12: invalid value for \"ports.http\""), e.getMessage());

        Path broken = write("broken.json", "{\"region\": ");
        e = assertThrows(ConfigFiles.ConfigException.class, () -> ConfigFiles.parse(broken));
        assertTrue(e.getMessage().startsWith(broken + ":1:"), e.getMessage());
    }

    @Test
    void invalidSettingsAreRefusedWithNomadsMessages() {
        assertEquals("Must specify either server, client or dev mode for the agent.",
                assertThrows(AgentSettings.InvalidConfigException.class, this::resolve).getMessage());
        AgentConfig server = AgentConfig.of(b -> b.server = new AgentConfig.Server(true, null, null, null, null));
        assertEquals("Must specify \"data_dir\" config option or \"data-dir\" CLI flag",
                assertThrows(AgentSettings.InvalidConfigException.class, () -> resolve(server)).getMessage());
        AgentConfig badLevel = AgentConfig.of(b -> b.logLevel = "loud");
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class,
                () -> resolve(AgentSettings.devDefaults(), badLevel)).getMessage().startsWith("Invalid log level: loud"));
        AgentConfig badPort = AgentConfig.of(b -> b.ports = new AgentConfig.Ports(70000, null, null));
        assertEquals("Invalid ports.http: 70000 is not a port (1-65535)",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> resolve(AgentSettings.devDefaults(), badPort)).getMessage());
        AgentConfig badKey = AgentConfig.of(b -> b.server = new AgentConfig.Server(null, null, "c2hvcnQ=", null, null));
        assertEquals("Invalid encryption key: must be 16, 24 or 32 bytes, not 5",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> resolve(AgentSettings.devDefaults(), badKey)).getMessage());
    }

    @Test
    void loopbackIsOnlyAdvertisedInDevMode() throws Exception {
        AgentConfig serverOnLoopback = AgentConfig.of(b -> {
            b.server = new AgentConfig.Server(true, 1, null, null, null);
            b.dataDir = tmp.toString();
            b.bindAddr = "127.0.0.1";
        });
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class, () -> resolve(serverOnLoopback))
                .getMessage().startsWith("Defaulting advertise to localhost is unsafe"));
        AgentConfig advertised = AgentConfig.of(b -> b.advertise = new AgentConfig.Addresses("10.0.0.5", "10.0.0.5:9999",
                "[::1]"));
        AgentSettings s = resolve(serverOnLoopback, advertised);
        assertEquals("10.0.0.5:4646", s.advertiseHttp());
        assertEquals("10.0.0.5:9999", s.advertiseRpc());
        assertEquals("[::1]:4648", s.advertiseSerf());
    }

    @Test
    void templatesAndHostNamesAreNotYetAddresses() {
        AgentConfig template = AgentConfig.of(b -> b.bindAddr = "{{ GetPrivateIP }}");
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class,
                () -> resolve(AgentSettings.devDefaults(), template)).getMessage().contains("go-sockaddr"));
        AgentConfig host = AgentConfig.of(b -> b.bindAddr = "example.com");
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class,
                () -> resolve(AgentSettings.devDefaults(), host)).getMessage().contains("not an IP address"));
    }

    @Test
    void restartScopedChangesAreNamed() throws Exception {
        AgentSettings a = resolve(AgentSettings.devDefaults());
        AgentSettings sameButLevel = resolve(AgentSettings.devDefaults(), AgentConfig.of(b -> b.logLevel = "WARN"));
        assertEquals(null, AgentRuntime.restartScopedChange(a, sameButLevel));
        AgentSettings otherPort = resolve(AgentSettings.devDefaults(),
                AgentConfig.of(b -> b.ports = new AgentConfig.Ports(5555, null, null)));
        assertEquals("ports", AgentRuntime.restartScopedChange(a, otherPort));
        AgentSettings otherRegion = resolve(AgentSettings.devDefaults(), AgentConfig.of(b -> b.region = "eu"));
        assertEquals("region", AgentRuntime.restartScopedChange(a, otherRegion));
    }
}
