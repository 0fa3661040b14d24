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
        String cmdline = healthyWith("-XX:TieredStopAtLevel=4");
        assertTrue(cmdline.contains("-XX:TieredStopAtLevel=4"), cmdline);
    }

    @Test
    void aCollectorFromCaravanJavaOptsReplacesTheSerialOne() throws Exception {
        String cmdline = healthyWith("-XX:+UseParallelGC");
        assertTrue(cmdline.contains("-XX:+UseParallelGC") && !cmdline.contains("-XX:+UseSerialGC"), cmdline);
    }

    /** Starts a dev agent with these options, checks it answers healthy, and returns its JVM's command line. */
    private static String healthyWith(String javaOpts) throws Exception {
        Path dir = Files.createTempDirectory("caravan-java-opts-");
        try (AgentProcess agent = AgentProcess.startDevWithEnv(dir, "", Map.of("CARAVAN_JAVA_OPTS", javaOpts))) {
            assertEquals(200, agent.get("/v1/agent/health").statusCode());
            return Files.readString(Path.of("/proc", Long.toString(agent.process.pid()), "cmdline"));
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }
}
