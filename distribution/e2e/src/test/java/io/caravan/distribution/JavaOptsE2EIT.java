package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * {@code CARAVAN_JAVA_OPTS} can bring the C2 compiler back to a dev agent (the benchmarks do): {@code bin/caravan}'s
 * dev flags then leave out the one-compiler-thread setting, with which the JVM refuses to start ("CICompilerCount (1)
 * must be at least 2"); a garbage collector chosen there replaces the serial one (the JVM refuses two).
 */
class JavaOptsE2EIT {
    @Test
    void aDevAgentStartsWithBothCompilersFromCaravanJavaOpts() throws Exception {
        Path dir = Files.createTempDirectory("caravan-java-opts-");
        try (AgentProcess agent = AgentProcess.startDevWithEnv(dir, "",
                Map.of("CARAVAN_JAVA_OPTS", "-XX:TieredStopAtLevel=4"))) {
            assertEquals(200, agent.get("/v1/agent/health").statusCode());
            String cmdline = Files.readString(Path.of("/proc", Long.toString(agent.process.pid()), "cmdline"));
            assertTrue(cmdline.contains("-XX:TieredStopAtLevel=4"), cmdline);
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }

    @Test
    void aCollectorFromCaravanJavaOptsReplacesTheSerialOne() throws Exception {
        Path dir = Files.createTempDirectory("caravan-java-opts-");
        try (AgentProcess agent = AgentProcess.startDevWithEnv(dir, "",
                Map.of("CARAVAN_JAVA_OPTS", "-XX:+UseParallelGC"))) {
            assertEquals(200, agent.get("/v1/agent/health").statusCode());
            String cmdline = Files.readString(Path.of("/proc", Long.toString(agent.process.pid()), "cmdline"));
            assertTrue(cmdline.contains("-XX:+UseParallelGC") && !cmdline.contains("-XX:+UseSerialGC"), cmdline);
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }
}
