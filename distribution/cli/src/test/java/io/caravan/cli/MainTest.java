package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MainTest {

    @Test
    void versionPrintsTheBuildVersionWithoutCallingTheAgent() throws Exception {
        try (FakeAgent agent = new FakeAgent()) {
            Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "version");

            assertEquals(0, r.code(), r.err());
            assertTrue(r.outLines().get(0).matches("Caravan v\\d+\\.\\d+\\.\\d+.*"), r.out());
            assertEquals(List.of(), agent.requests());
        }
        assertEquals(Cli.run(Map.of(), "version").out(), Cli.run(Map.of(), "-version").out());
    }

    @Test
    void unknownCommandIsAUsageErrorWithExitOne() {
        Cli.Result r = Cli.run(Map.of(), "frobnicate");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertTrue(r.err().contains("Unmatched argument at index 0: 'frobnicate'"), r.err());
        assertTrue(r.err().contains("Usage: caravan"), r.err());
    }

    @Test
    void unknownFlagIsAUsageErrorWithExitOne() {
        Cli.Result r = Cli.run(Map.of(), "agent-info", "-bogus");

        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Unknown option: '-bogus'"), r.err());
        assertTrue(r.err().contains("Usage: caravan agent-info"), r.err());
    }

    @Test
    void noCommandPrintsUsageToStderrAndFails() {
        Cli.Result r = Cli.run(Map.of());

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertTrue(r.err().contains("agent-info"), r.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"-h", "-help", "--help"})
    void helpFlagsPrintUsageAndSucceed(String flag) {
        Cli.Result top = Cli.run(Map.of(), flag);
        assertEquals(0, top.code());
        assertTrue(top.out().startsWith("Usage: caravan"), top.out());

        Cli.Result members = Cli.run(Map.of(), "server", "members", flag);
        assertEquals(0, members.code());
        assertTrue(members.out().startsWith("Usage: caravan server members"), members.out());
        assertTrue(members.out().contains("-address"), members.out());
    }

    @Test
    void agentPassesEveryArgumentThroughUntouched() {
        List<List<String>> launched = new ArrayList<>();

        Cli.Result r = Cli.run(Map.of(), args -> {
            launched.add(args);
            return 7;
        }, "agent", "-dev", "-config=a.json", "-bind", "0.0.0.0");

        assertEquals(7, r.code(), "the agent's exit code is the process's");
        assertEquals(List.of(List.of("-dev", "-config=a.json", "-bind", "0.0.0.0")), launched);
    }

    @Test
    void agentArgumentsThatPicocliWouldInterpretStayLiteral() {
        List<List<String>> launched = new ArrayList<>();

        Cli.Result r = Cli.run(Map.of(), args -> {
            launched.add(args);
            return 0;
        }, "agent", "@opts", "--", "-h", "-address=x");

        assertEquals(0, r.code());
        assertEquals(List.of(List.of("@opts", "--", "-h", "-address=x")), launched);
    }

    @Test
    void agentHelpListsNomadsAgentFlagsWithoutStartingIt() {
        Cli.Result r = Cli.run(Map.of(), "agent", "-help");

        assertEquals(0, r.code());
        for (String flag : List.of("-dev", "-server", "-client", "-config", "-data-dir", "-bind", "-region", "-dc",
                "-node", "-log-level", "-servers", "-bootstrap-expect", "-retry-join", "-encrypt", "-acl-enabled",
                "-plugin-dir")) {
            assertTrue(r.out().contains("  " + flag), flag + " missing from:\n" + r.out());
        }
    }

    @Test
    void agentThatCannotStartIsOneErrorLine() {
        Cli.Result r = Cli.run(Map.of(), args -> {
            throw new IllegalStateException("cannot locate the Caravan home; set -Dcaravan.home");
        }, "agent", "-dev");

        assertEquals(1, r.code());
        assertEquals(List.of("Error starting agent: cannot locate the Caravan home; set -Dcaravan.home"),
                r.errLines());
    }
}
