package io.caravan.distribution;

import static io.caravan.distribution.AgentProcess.await;
import static io.caravan.distribution.AgentProcess.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The assembled agent as a real process: {@code bin/caravan agent -dev} on free ports, driven over HTTP and signals. */
class DevAgentE2EIT {
    private static final Duration STOP = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** Runs a {@code caravan} command to its end and returns what it printed; fails on a non-zero exit. */
    private String cli(String name, String... args) throws Exception {
        Path log = tmp.resolve(name + ".log");
        Process p = AgentProcess.run(log, args);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), name + " finishes");
        assertEquals(0, p.exitValue(), read(log));
        return read(log);
    }

    private static String header(AgentProcess agent, String path, String name) {
        try {
            return agent.get(path).headers().firstValue(name).orElse(null);
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Appends keys to the agent's JSON config file. */
    private static void addToConfig(AgentProcess agent, String original, String keys) throws IOException {
        Files.writeString(agent.config, original.replaceFirst("}$", ", " + keys + "}"));
    }

    @Test
    void devAgentStartsAnswersReloadsAndStopsCleanlyOnSigterm() throws Exception {
        try (AgentProcess agent = AgentProcess.startDev(tmp, "")) {
            String banner = agent.log();
            for (String line : List.of("==> Loaded configuration from " + agent.config, "==> Caravan agent configuration:",
                    "Advertise Addrs: HTTP: 127.0.0.1:" + agent.http, "Bind Addrs: HTTP: [127.0.0.1:" + agent.http + "]",
                    "Client: true", "Log Level: DEBUG", "Node Id: ", "Region: global (DC: dc1)", "Server: true",
                    "Version: ", "==> Caravan agent started!")) {
                assertTrue(banner.contains(line), () -> "banner lacks '" + line + "':\n" + banner);
            }

            HttpResponse<String> self = agent.get("/v1/agent/self");
            assertEquals(200, self.statusCode());
            Matcher dataDir = Pattern.compile("\"DataDir\":\"([^\"]+)\"").matcher(self.body());
            assertTrue(dataDir.find(), self.body());
            Path devDataDir = Paths.get(dataDir.group(1));
            assertTrue(Files.isDirectory(devDataDir), "-dev keeps its state in a temp dir while running");

            // The real CLI against the real agent.
            String table = cli("members", "server", "members", "-address", agent.address());
            assertTrue(table.startsWith("Name "), table);
            assertTrue(table.contains("  alive   true    3  "), table);

            // SIGHUP reloads: a header added to the config file is served without a restart.
            String original = Files.readString(agent.config);
            addToConfig(agent, original, "\"http_api_response_headers\": {\"X-Reloaded\": \"yes\"}");
            agent.signal("HUP");
            await("the reloaded header is served", Duration.ofSeconds(15),
                    () -> "yes".equals(header(agent, "/v1/regions", "X-Reloaded")));
            assertTrue(agent.process.isAlive(), "reload must not stop the agent");

            // PUT /v1/agent/reload answers with what changed; a restart-scoped key is reported, not applied.
            String withHeader = Files.readString(agent.config);
            addToConfig(agent, withHeader, "\"log_level\": \"WARN\", \"datacenter\": \"dc9\"");
            HttpResponse<String> report = agent.put("/v1/agent/reload");
            assertEquals(200, report.statusCode(), report.body());
            assertTrue(report.body().startsWith("{\"Changed\":[\"datacenter\",\"log_level\"],"
                    + "\"Applied\":[\"log_level\"],\"RestartRequired\":[\"datacenter\"],\"ElapsedMs\":"), report.body());
            // Config Admin delivers the new values to components on its own thread: within moments, not before the
            // reload answers.
            AgentProcess.await("self shows the new log level", Duration.ofSeconds(5),
                    () -> agent.json("/v1/agent/self").toString().contains("\"LogLevel\":\"WARN\""));
            String selfAfter = agent.get("/v1/agent/self").body();
            assertTrue(selfAfter.contains("\"Datacenter\":\"dc1\""), "self shows the configuration in force");

            // A broken file is a 400 with its position, and nothing changes.
            String good = Files.readString(agent.config);
            addToConfig(agent, good, "\"log_level\": \"TRACE\", \"ports\": {\"htp\": 1}");
            HttpResponse<String> bad = agent.put("/v1/agent/reload");
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body().startsWith(agent.config + ":1:"), bad.body());
            assertTrue(bad.body().endsWith("unknown key \"ports.htp\""), bad.body());
            assertTrue(agent.get("/v1/agent/self").body().contains("\"LogLevel\":\"WARN\""), "nothing was applied");

            // caravan config reload: client meta and log_json change live and show in /v1/agent/self.
            addToConfig(agent, good.replace("\"WARN\"", "\"INFO\""),
                    "\"client\": {\"meta\": {\"rack\": \"r2\"}}, \"log_json\": true");
            String reloaded = cli("reload", "config", "reload", "-address", agent.address());
            assertTrue(reloaded.contains("Applied:\n  client.meta.rack\n  log_json\n"), reloaded);
            String selfMeta = agent.get("/v1/agent/self").body();
            assertTrue(selfMeta.contains("\"Meta\":{\"rack\":\"r2\"}"), selfMeta);
            assertTrue(selfMeta.contains("\"LogJson\":true"), selfMeta); // Nomad's Go field name
            assertTrue(selfMeta.contains("\"Password\":\"<redacted>\"") && !selfMeta.contains("\"Password\":\"admin\""),
                    selfMeta);
            agent.signal("HUP"); // logs its (empty) report as a JSON line now
            await("the agent logs JSON", Duration.ofSeconds(15), () -> agent.log().lines()
                    .anyMatch(l -> l.startsWith("{\"@level\":\"info\",\"@message\":\"agent configuration reloaded\"")));

            agent.process.destroy(); // SIGTERM
            assertTrue(agent.process.waitFor(STOP.toSeconds(), TimeUnit.SECONDS), "agent stops within " + STOP);
            assertEquals(0, agent.process.exitValue(), agent.log());
            assertTrue(agent.log().contains("==> Caught signal: terminated"), agent.log());
            assertFalse(Files.exists(devDataDir), "-dev state is removed on exit");
        }
    }

    @Test
    void badFlagExitsOneWithOneClearLine() throws Exception {
        Path log = tmp.resolve("bad.log");
        Process agent = AgentProcess.run(log, "agent", "-dev", "-no-such-flag");
        assertTrue(agent.waitFor(AgentProcess.START.toSeconds(), TimeUnit.SECONDS));
        assertEquals(1, agent.exitValue(), read(log));
        assertEquals("==> flag provided but not defined: -no-such-flag", read(log).strip());
    }

    @Test
    void unreadableConfigExitsOneNamingTheFile() throws Exception {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, "{\n  \"region\": \"eu\",\n  \"bogus\": 1\n}\n");
        Path log = tmp.resolve("bad.log");
        Process agent = AgentProcess.run(log, "agent", "-dev", "-config", bad.toString());
        assertTrue(agent.waitFor(AgentProcess.START.toSeconds(), TimeUnit.SECONDS));
        assertEquals(1, agent.exitValue(), read(log));
        assertEquals("==> " + bad + ":3:3: unknown key \"bogus\"", read(log).strip());
    }

    @Test
    void aServerThatCannotJoinWithinRetryMaxExitsWithOne() throws Exception {
        int[] free = AgentProcess.freePorts(4);   // the fourth is the address nobody answers on
        Path config = tmp.resolve("join.json");
        Files.writeString(config, String.format("{\"data_dir\": \"%s\", \"bind_addr\": \"127.0.0.1\","
                + " \"advertise\": {\"http\": \"127.0.0.1\", \"rpc\": \"127.0.0.1\", \"serf\": \"127.0.0.1\"},"
                + " \"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}, \"server\": {\"enabled\": true,"
                + " \"bootstrap_expect\": 3, \"server_join\": {\"retry_join\": [\"127.0.0.1:%d\"], \"retry_max\": 2,"
                + " \"retry_interval\": \"1s\"}}}", tmp.resolve("join-data"), free[0], free[1], free[2], free[3]));
        Path log = tmp.resolve("join.log");
        Process agent = AgentProcess.run(log, "agent", "-config", config.toString());
        assertTrue(agent.waitFor(AgentProcess.START.toSeconds(), TimeUnit.SECONDS), read(log));
        assertEquals(1, agent.exitValue(), read(log));
        assertTrue(read(log).contains("==> Error joining the cluster: retry_join gave up after 2 attempt(s)"),
                read(log));
    }

    @Test
    void aTakenRpcPortStopsTheAgentWithOneLine() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            Path config = tmp.resolve("rpc.json");
            int[] free = AgentProcess.freePorts(2);
            Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}}",
                    free[0], taken.getLocalPort(), free[1]));
            Path log = tmp.resolve("rpc.log");
            Process agent = AgentProcess.run(log, "agent", "-dev", "-config", config.toString());
            assertTrue(agent.waitFor(AgentProcess.START.toSeconds(), TimeUnit.SECONDS));
            assertEquals(1, agent.exitValue(), read(log));
            assertEquals("==> Error starting agent: failed to listen on RPC address 127.0.0.1:" + taken.getLocalPort()
                    + ": Address already in use", read(log).strip());
        }
    }
}
