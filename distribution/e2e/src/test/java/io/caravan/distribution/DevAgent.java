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
    private static final Duration STOP = Duration.ofSeconds(30);

    static DevAgent start(String prefix) throws Exception {
        return start(prefix, "", null);
    }

    /**
     * With {@code acl { enabled = true }}, bootstrapped with {@code managementSecret} (a UUID) as the management
     * token's secret.
     */
    static DevAgent startWithAcls(String prefix, String managementSecret) throws Exception {
        return start(prefix, ", \"acl\": {\"enabled\": true}", managementSecret);
    }

    /** @param extraJson more top-level keys for the agent's configuration, each after a comma */
    static DevAgent start(String prefix, String extraJson) throws Exception {
        return start(prefix, extraJson, null);
    }

    private static DevAgent start(String prefix, String extraJson, String managementSecret) throws Exception {
        Path dir = Files.createTempDirectory(prefix);
        DevAgent dev = null;
        try {
            AgentProcess agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\""
                    + extraJson);
            dev = new DevAgent(agent, dir);
            if (managementSecret != null) {
                var bootstrap = agent.call("POST", "/v1/acl/bootstrap", null,
                        "{\"BootstrapSecret\": \"" + managementSecret + "\"}");
                if (bootstrap.statusCode() != 200) {
                    throw new AssertionError("ACL bootstrap: " + bootstrap.statusCode() + " " + bootstrap.body());
                }
            }
            AgentProcess.await("the dev agent's client node is ready", READY, () -> nodes(agent, managementSecret)
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

    private static com.fasterxml.jackson.databind.JsonNode nodes(AgentProcess agent, String token) {
        try {
            return AgentProcess.JSON.readTree(agent.call("GET", "/v1/nodes", token, null).body());
        } catch (java.io.IOException e) {
            throw new AssertionError("GET /v1/nodes", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Stops every job and waits (bounded) for its allocations to end, so that the client stops its tasks; then stops
     * the agent, which kills what is still running under its data directory as a last resort.
     */
    @Override
    public void close() throws Exception {
        try {
            if (agent.process.isAlive()) {
                agent.stopAllJobs(STOP);
            }
            agent.close();
        } finally {
            AgentProcess.deleteTree(dir);
        }
    }
}
