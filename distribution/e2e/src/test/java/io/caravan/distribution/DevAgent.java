package io.caravan.distribution;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One {@code caravan agent -dev} in a temporary directory of its own (its {@code data_dir} inside), returned once its
 * client node is ready, stopped and deleted on close: what the single-agent end-to-end tests share.
 */
record DevAgent(AgentProcess agent, Path dir) implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(60);

    static DevAgent start(String prefix) throws Exception {
        return start(prefix, "");
    }

    /** @param extraJson more top-level keys for the agent's configuration, each after a comma */
    static DevAgent start(String prefix, String extraJson) throws Exception {
        Path dir = Files.createTempDirectory(prefix);
        DevAgent dev = null;
        try {
            AgentProcess agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\""
                    + extraJson);
            dev = new DevAgent(agent, dir);
            AgentProcess.await("the dev agent's client node is ready", READY, () -> agent.json("/v1/nodes")
                    .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
            return dev;
        } catch (Exception | AssertionError e) {
            if (dev != null) {
                dev.close();
            } else {
                AgentProcess.deleteTree(dir);
            }
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            agent.close();
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }
}
