package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

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
        AgentConfig c = p.layer();
        assertEquals("eu", c.region());
        assertEquals("dc2", c.datacenter());
        assertEquals("n1", c.name());
        assertEquals("trace", c.logLevel());
        assertEquals("0.0.0.0", c.bindAddr());
        assertEquals("/var/caravan", c.dataDir());
        assertNull(c.server(), "no server flag given, so the layer leaves server alone");
    }

    @Test
    void serverAndClientFlagsFillTheirBlocks() throws Exception {
        AgentConfig c = parse("-server", "-bootstrap-expect=3", "-retry-join", "10.0.0.1", "-retry-join=10.0.0.2",
                "-encrypt", "k", "-client", "-servers", "a:4647, b", "-acl-enabled").layer();
        assertEquals(true, c.server().enabled());
        assertEquals(3, c.server().bootstrapExpect());
        assertEquals(List.of("10.0.0.1", "10.0.0.2"), c.server().allRetryJoin());
        assertEquals("k", c.server().encrypt());
        assertEquals(true, c.client().enabled());
        assertEquals(List.of("a:4647", "b"), c.client().servers());
        assertEquals(true, c.acl().enabled());
    }

    @Test
    void booleanFlagsTakeExplicitValuesOnlyWithEquals() throws Exception {
        assertFalse(parse("-server=false").layer().server().enabled());
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
