package io.caravan.launcher.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AgentLogTest {
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    private String log(java.util.function.Consumer<AgentLogger> body) {
        AgentLog.setOutput(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        body.accept(new AgentLogger("io.caravan.agent.internal.AgentRuntime"));
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @AfterEach
    void reset() {
        AgentLog.setOutput(System.out);
        AgentLog.setJson(false);
        AgentLog.setLevel(LogLevel.INFO);
    }

    @Test
    void textLinesLookLikeNomadsWithKeyValues() {
        String line = log(l -> l.atInfo().addKeyValue("eval_id", "e1").addKeyValue("job", "my web").log("placed {}", 3));
        assertTrue(line.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d{4}) \\[INFO]  agent\\.AgentRuntime: "
                + "placed 3: eval_id=e1 job=\"my web\"\\n"), line);
    }

    @Test
    void levelFiltersAndChangesAtRuntime() {
        assertEquals("", log(l -> l.debug("hidden")));
        AgentLog.setLevel(LogLevel.DEBUG);
        assertTrue(log(l -> l.debug("shown")).contains("[DEBUG] agent.AgentRuntime: shown"));
    }

    @Test
    void jsonLinesAreHclogShaped() {
        AgentLog.setJson(true);
        String line = log(l -> l.atWarn().addKeyValue("node_id", "n\"1").log("line\nbreak"));
        assertTrue(line.startsWith("{\"@level\":\"warn\",\"@message\":\"line\\nbreak\",\"@module\":\"agent.AgentRuntime\","
                + "\"@timestamp\":\""), line);
        assertTrue(line.endsWith("\",\"node_id\":\"n\\\"1\"}\n"), line);
    }

    @Test
    void librariesAreOneStepQuieter() {
        AgentLog.setOutput(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        AgentLog.setLevel(LogLevel.DEBUG);
        new AgentLogger("org.eclipse.jetty.server.Server").info("noise");
        assertEquals("", buffer.toString(StandardCharsets.UTF_8));
        new AgentLogger("org.eclipse.jetty.server.Server").warn("problem");
        assertTrue(buffer.toString(StandardCharsets.UTF_8).contains("[WARN]  org.eclipse.jetty.server.Server: problem"));
    }

    @Test
    void aTapSeesLinesAtItsOwnLevelAndFormatWithoutChangingTheConsole() throws Exception {
        java.util.List<String> tapped = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AutoCloseable tap = AgentLog.tap(LogLevel.DEBUG, true, tapped::add)) {
            String console = log(l -> {
                l.debug("for the monitor");
                l.info("for everyone");
            });
            assertTrue(!console.contains("for the monitor"), console);
            assertTrue(console.contains("[INFO]  agent.AgentRuntime: for everyone"), console);
            assertEquals(2, tapped.size(), tapped.toString());
            assertTrue(tapped.get(0).startsWith("{\"@level\":\"debug\",\"@message\":\"for the monitor\""),
                    tapped.get(0));
        }
        log(l -> l.info("after"));
        assertEquals(2, tapped.size(), "a closed tap sees nothing more");
        assertTrue(!log(l -> l.debug("hidden again")).contains("hidden again"), "debug is off again");
    }
}
