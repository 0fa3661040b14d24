package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.caravan.agent.internal.config.ConfigException;
import io.caravan.agent.internal.config.ConfigLoader;
import io.caravan.agent.internal.sockaddr.IfAddr;
import io.caravan.agent.internal.sockaddr.IfFlag;
import io.caravan.agent.internal.sockaddr.Interfaces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSettingsTest {
    @TempDir
    Path tmp;

    @Test
    void devModeIsServerAndClientOnLoopbackWithNomadsDefaults() throws Exception {
        AgentSettings s = Configs.dev(tmp);
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
        assertEquals("admin", s.consolePassword());
    }

    @Test
    void filesMergeInOrderAndFlagsWinLast() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("conf.d"));
        Files.writeString(dir.resolve("b.json"), "{\"region\": \"b\", \"ports\": {\"http\": 5000}}");
        Files.writeString(dir.resolve("a.json"), "{\"region\": \"a\", \"datacenter\": \"dcA\","
                + " \"ports\": [{\"rpc\": 5001}], \"http_api_response_headers\": {\"X-A\": \"1\"}}");
        Files.writeString(dir.resolve("ignored.txt"), "not config");
        AgentSettings s = Configs.settings(tmp, List.of("-dev", "-config", dir.toString(), "-dc", "flagDc"));
        assertEquals(List.of(dir.resolve("a.json"), dir.resolve("b.json")), s.files());
        assertEquals("b", s.region(), "later file wins");
        assertEquals("flagDc", s.datacenter(), "flags win over files");
        assertEquals(5000, s.httpPort());
        assertEquals(5001, s.rpcPort(), "blocks merge field by field");
        assertEquals(4648, s.serfPort(), "defaults fill the rest");
        assertEquals(Map.of("X-A", "1"), s.responseHeaders());
    }

    @Test
    void everyBadFileIsReportedBeforeAnythingApplies() throws Exception {
        Path a = tmp.resolve("a.json");
        Path b = tmp.resolve("b.json");
        Files.writeString(a, "{\n  \"ports\": {\n    \"htp\": 1\n  }\n}");
        Files.writeString(b, "{\"ports\": {\"http\": \"abc\"}}");
        ConfigException e = assertThrows(ConfigException.class, () -> Configs.settings(tmp,
                List.of("-dev", "-config", a.toString(), "-config", b.toString(), "-config", "/nope.json")));
        assertEquals(List.of("/nope.json: no such file or directory",
                a + ":3:5: unknown key \"ports.htp\"",
                b + ":1:20: \"ports.http\" must be a whole number, not \"abc\""),
                e.problems().stream().map(ConfigException.Problem::toString).toList());
    }

    @Test
    void invalidSettingsAreRefusedWithNomadsMessages() throws Exception {
        assertEquals("Must specify either server, client or dev mode for the agent.",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.settings(tmp, List.of())).getMessage());
        assertEquals("Must specify \"data_dir\" config option or \"data-dir\" CLI flag",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.settings(tmp, List.of("-server"))).getMessage());
        assertEquals("Invalid encryption key: must be 16, 24 or 32 bytes, not 5",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.settings(tmp, List.of("-dev", "-encrypt", "c2hvcnQ="))).getMessage());
        assertEquals("ERROR", Configs.dev(tmp, "{\"log_level\": \"err\"}").logLevel(), "Nomad accepts ERR");
    }

    @Test
    void clientIntroductionTtlsAreChecked() throws Exception {
        assertEquals("server.client_introduction.default_identity_ttl must be greater than 0",
                assertThrows(AgentSettings.InvalidConfigException.class, () -> Configs.dev(tmp,
                        "{\"server\": {\"client_introduction\": {\"default_identity_ttl\": \"0s\"}}}")).getMessage());
        assertEquals("server.client_introduction.max_identity_ttl must be greater than or equal to "
                        + "default_identity_ttl",
                assertThrows(AgentSettings.InvalidConfigException.class, () -> Configs.dev(tmp,
                        "{\"server\": {\"client_introduction\": {\"default_identity_ttl\": \"1h\"}}}")).getMessage());
        Configs.dev(tmp, "{\"server\": {\"client_introduction\": {\"enforcement\": \"strict\", "
                + "\"default_identity_ttl\": \"1m\", \"max_identity_ttl\": \"1m\"}}}");
    }

    @Test
    void jobLimitsMustBoundSomething() throws Exception {
        assertEquals("job_max_count cannot be 0. Must be between 1 and 2147483647",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.dev(tmp, "{\"server\": {\"job_max_count\": 0}}")).getMessage());
        assertEquals("job_max_priority cannot be 99. Must be between 100 and 32766",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.dev(tmp, "{\"server\": {\"job_max_priority\": 99}}")).getMessage());
        assertEquals("job_default_priority cannot be 150. Must be between 50 and 100",
                assertThrows(AgentSettings.InvalidConfigException.class,
                        () -> Configs.dev(tmp, "{\"server\": {\"job_default_priority\": 150}}")).getMessage());
        Configs.dev(tmp, "{\"server\": {\"job_max_count\": 10, \"job_max_priority\": 200, "
                + "\"job_default_priority\": 150}}");
    }

    @Test
    void loopbackIsOnlyAdvertisedInDevMode() throws Exception {
        List<String> serverOnLoopback = List.of("-server", "-data-dir", tmp.toString(), "-bind", "127.0.0.1");
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class,
                () -> Configs.settings(tmp, serverOnLoopback)).getMessage()
                .startsWith("Defaulting advertise to localhost is unsafe"));
        AgentSettings s = Configs.settings(tmp, serverOnLoopback,
                "{\"advertise\": {\"http\": \"10.0.0.5\", \"rpc\": \"10.0.0.5:9999\", \"serf\": \"[::1]\"}}");
        assertEquals("10.0.0.5:4646", s.advertiseHttp());
        assertEquals("10.0.0.5:9999", s.advertiseRpc());
        assertEquals("[::1]:4648", s.advertiseSerf());
    }

    @Test
    void hostNamesAreNotAddresses() {
        assertTrue(assertThrows(AgentSettings.InvalidConfigException.class,
                () -> Configs.dev(tmp, "{\"bind_addr\": \"example.com\"}")).getMessage().contains("not an IP address"));
    }

    @Test
    void addressesMayBeSockaddrTemplatesRenderedAgainstTheHost() throws Exception {
        Interfaces nics = Interfaces.of(List.of(
                IfAddr.parse("eth0", "10.0.0.5/24", IfFlag.UP, IfFlag.BROADCAST, IfFlag.MULTICAST),
                IfAddr.parse("lo", "127.0.0.1/8", IfFlag.UP, IfFlag.LOOPBACK)), "eth0");
        Path file = tmp.resolve("t.json");
        Files.writeString(file, """
                {"data_dir": "/var/lib/caravan", "server": {"enabled": true},
                 "addresses": {"http": "{{ GetInterfaceIP \\"eth0\\" }}"},
                 "advertise": {"rpc": "{{ GetPrivateIP }}:9999"}}
                """);
        ConfigLoader.Loaded loaded = ConfigLoader.load(false, List.of(file.toString()), Map.of());
        AgentSettings s = AgentSettings.resolve(loaded.config(), false, loaded.files(), null, "h", nics);
        assertEquals("10.0.0.5", s.httpAddr());
        assertEquals("10.0.0.5:4646", s.advertiseHttp());
        assertEquals("10.0.0.5:9999", s.advertiseRpc());
        assertEquals("10.0.0.5:4648", s.advertiseSerf(), "bind 0.0.0.0 advertises the private IP, as Nomad does");

        Files.writeString(file, "{\"data_dir\": \"/x\", \"server\": {\"enabled\": true},"
                + " \"bind_addr\": \"{{ GetFooIP }}\"}");
        ConfigLoader.Loaded bad = ConfigLoader.load(false, List.of(file.toString()), Map.of());
        String message = assertThrows(AgentSettings.InvalidConfigException.class,
                () -> AgentSettings.resolve(bad.config(), false, bad.files(), null, "h", nics)).getMessage();
        assertTrue(message.startsWith("Invalid bind_addr: unknown function \"GetFooIP\""), message);
    }
}
