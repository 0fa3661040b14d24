package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class AgentFlagsTest {

    private static AgentFlags.Parsed parse(String... args) throws AgentFlags.UsageException {
        return AgentFlags.parse(List.of(args));
    }

    @Test
    void readsGoFlagSyntaxInAllItsForms() throws Exception {
        AgentFlags.Parsed p = parse("-dev", "--region=eu", "-dc", "dc2", "-node=n1", "-config", "a.json",
                "-config=dir", "-log-level", "trace", "-bind=0.0.0.0", "-data-dir", "/var/caravan");
        assertTrue(p.dev());
        assertEquals(List.of("a.json", "dir"), p.configPaths());
        assertEquals(Map.of("region", "eu", "datacenter", "dc2", "name", "n1", "log_level", "trace",
                "bind_addr", "0.0.0.0", "data_dir", "/var/caravan"), p.layer());
    }

    @Test
    void serverAndClientFlagsFillTheirBlocks() throws Exception {
        Map<String, Object> layer = parse("-server", "-bootstrap-expect=3", "-retry-join", "10.0.0.1",
                "-retry-join=10.0.0.2", "-encrypt", "k", "-client", "-servers", "a:4647, b", "-acl-enabled").layer();
        assertEquals(Map.of("enabled", true, "bootstrap_expect", 3L, "retry_join", List.of("10.0.0.1", "10.0.0.2"),
                "encrypt", "k"), layer.get("server"));
        assertEquals(Map.of("enabled", true, "servers", List.of("a:4647", "b")), layer.get("client"));
        assertEquals(Map.of("enabled", true), layer.get("acl"));
    }

    @Test
    void theIntroTokenComesFromTheFlagUnlessTheEnvironmentSetsIt() throws Exception {
        assertEquals(Map.of("intro_token", "flag.jwt"), AgentFlags.parse(List.of("-client-intro-token", "flag.jwt"),
                Map.of()).layer().get("client"));
        assertEquals(Map.of("intro_token", "env.jwt"), AgentFlags.parse(List.of("-client-intro-token=flag.jwt"),
                Map.of(AgentFlags.INTRO_TOKEN_ENV, "env.jwt\n")).layer().get("client"));
        assertEquals(Map.of("intro_token", "env.jwt"), AgentFlags.parse(List.of("-dev"),
                Map.of(AgentFlags.INTRO_TOKEN_ENV, "env.jwt")).layer().get("client"));
    }

    @Test
    void booleanFlagsTakeExplicitValuesOnlyWithEquals() throws Exception {
        assertEquals(Map.of("enabled", false), parse("-server=false").layer().get("server"));
        AgentFlags.UsageException e = assertThrows(AgentFlags.UsageException.class, () -> parse("-server", "false"));
        assertEquals("unexpected argument: false", e.getMessage());
    }

    @Test
    void badCommandLinesSayWhatIsWrongInOneLine() {
        assertEquals("flag provided but not defined: -foo",
                assertThrows(AgentFlags.UsageException.class, () -> parse("-dev", "-foo")).getMessage());
        assertEquals("flag needs an argument: -config",
                assertThrows(AgentFlags.UsageException.class, () -> parse("-config")).getMessage());
        assertEquals("invalid value \"x\" for flag -bootstrap-expect: parse error",
                assertThrows(AgentFlags.UsageException.class, () -> parse("-bootstrap-expect=x")).getMessage());
        assertEquals("invalid boolean value \"maybe\" for -dev: parse error",
                assertThrows(AgentFlags.UsageException.class, () -> parse("-dev=maybe")).getMessage());
    }
}
