package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@code monitor}: the agent's plain log stream, at the level and in the format asked. */
class MonitorCommandTest extends FakeAgentTest {

    @Test
    void printsTheStreamAndAsksForTheLevelAndFormat() {
        agent.reply("/v1/agent/monitor", 200, "line one\nline two\n");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "monitor", "-log-level", "debug", "-json");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("line one", "line two"), r.outLines());
        assertEquals("log_level=debug&log_json=true&plain=true", agent.last("/v1/agent/monitor").query());
    }

    @Test
    void aRefusalIsOneLine() {
        agent.reply("/v1/agent/monitor", 400, "Unknown log level: loud");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "monitor", "-log-level", "loud");
        assertEquals(1, r.code());
        assertEquals(List.of("Error starting monitor: Unexpected response code: 400 (Unknown log level: loud)"),
                r.errLines());
    }
}
