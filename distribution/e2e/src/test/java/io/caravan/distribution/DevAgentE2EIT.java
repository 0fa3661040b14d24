package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The assembled agent as a real process: {@code bin/caravan agent -dev} on free ports, driven over HTTP and signals. */
class DevAgentE2EIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path tmp;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killLeftovers() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static int freePort() throws IOException {
        return AgentProcess.freePort();
    }

    private Process caravan(Path log, String... args) throws IOException {
        Process p = AgentProcess.run(log, args);
        started.add(p);
        return p;
    }

    private Path writeConfig(int http, String extra) throws IOException {
        Path config = tmp.resolve("agent.json");
        Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}%s}", http,
                freePort(), freePort(), extra));
        return config;
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> put(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .PUT(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitHealthy(int port, Process agent, Path log) throws Exception {
        await("the agent answers /v1/agent/health", START, () -> {
            if (!agent.isAlive()) {
                throw new AssertionError("agent exited with " + agent.exitValue() + ":\n" + read(log));
            }
            try {
                return get(port, "/v1/agent/health").statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private static void await(String what, Duration limit, BooleanSupplier condition) throws InterruptedException {
        AgentProcess.await(what, limit, condition);
    }

    private static String read(Path file) {
        return AgentProcess.read(file);
    }

    private static void signal(Process p, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, kill.exitValue());
    }

    @Test
    void devAgentStartsAnswersReloadsAndStopsCleanlyOnSigterm() throws Exception {
        int http = freePort();
        Path config = writeConfig(http, "");
        Path log = tmp.resolve("agent.log");
        Process agent = caravan(log, "agent", "-dev", "-config", config.toString());
        awaitHealthy(http, agent, log);

        String banner = read(log);
        for (String line : List.of("==> Loaded configuration from " + config, "==> Caravan agent configuration:",
                "Advertise Addrs: HTTP: 127.0.0.1:" + http, "Bind Addrs: HTTP: [127.0.0.1:" + http + "]",
                "Client: true", "Log Level: DEBUG", "Node Id: ", "Region: global (DC: dc1)", "Server: true",
                "Version: ", "==> Caravan agent started!")) {
            assertTrue(banner.contains(line), () -> "banner lacks '" + line + "':\n" + banner);
        }

        HttpResponse<String> self = get(http, "/v1/agent/self");
        assertEquals(200, self.statusCode());
        Matcher dataDir = Pattern.compile("\"DataDir\":\"([^\"]+)\"").matcher(self.body());
        assertTrue(dataDir.find(), self.body());
        Path devDataDir = Paths.get(dataDir.group(1));
        assertTrue(Files.isDirectory(devDataDir), "-dev keeps its state in a temp dir while running");

        // The real CLI against the real agent.
        Path cliLog = tmp.resolve("cli.log");
        Process members = caravan(cliLog, "server", "members", "-address", "http://127.0.0.1:" + http);
        assertTrue(members.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, members.exitValue(), read(cliLog));
        String table = read(cliLog);
        assertTrue(table.startsWith("Name "), table);
        assertTrue(table.contains("  alive   true    3  "), table);

        // SIGHUP reloads: a header added to the config file is served without a restart.
        Files.writeString(config, Files.readString(config).replaceFirst("}$",
                ", \"http_api_response_headers\": {\"X-Reloaded\": \"yes\"}}"));
        signal(agent, "HUP");
        await("the reloaded header is served", Duration.ofSeconds(15), () -> {
            try {
                return "yes".equals(get(http, "/v1/regions").headers().firstValue("X-Reloaded").orElse(null));
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        assertTrue(agent.isAlive(), "reload must not stop the agent");

        // PUT /v1/agent/reload answers with what changed; a restart-scoped key is reported, not applied.
        Files.writeString(config, Files.readString(config).replaceFirst("}$",
                ", \"log_level\": \"WARN\", \"datacenter\": \"dc9\"}"));
        HttpResponse<String> report = put(http, "/v1/agent/reload");
        assertEquals(200, report.statusCode(), report.body());
        assertTrue(report.body().startsWith("{\"Changed\":[\"datacenter\",\"log_level\"],"
                + "\"Applied\":[\"log_level\"],\"RestartRequired\":[\"datacenter\"],\"ElapsedMs\":"), report.body());
        String selfAfter = get(http, "/v1/agent/self").body();
        assertTrue(selfAfter.contains("\"LogLevel\":\"WARN\""), selfAfter);
        assertTrue(selfAfter.contains("\"Datacenter\":\"dc1\""), "self shows the configuration in force");

        // A broken file is a 400 with its position, and nothing changes.
        String good = Files.readString(config);
        Files.writeString(config, good.replaceFirst("}$", ", \"log_level\": \"TRACE\", \"ports\": {\"htp\": 1}}"));
        HttpResponse<String> bad = put(http, "/v1/agent/reload");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().startsWith(config + ":1:"), bad.body());
        assertTrue(bad.body().endsWith("unknown key \"ports.htp\""), bad.body());
        assertTrue(get(http, "/v1/agent/self").body().contains("\"LogLevel\":\"WARN\""), "nothing was applied");
        Files.writeString(config, good);

        // caravan config reload: client meta and log_json change live and show in /v1/agent/self.
        Files.writeString(config, good.replace("\"WARN\"", "\"INFO\"").replaceFirst("}$",
                ", \"client\": {\"meta\": {\"rack\": \"r2\"}}, \"log_json\": true}"));
        Path reloadLog = tmp.resolve("reload.log");
        Process reload = caravan(reloadLog, "config", "reload", "-address", "http://127.0.0.1:" + http);
        assertTrue(reload.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, reload.exitValue(), read(reloadLog));
        assertTrue(read(reloadLog).contains("Applied:\n  client.meta.rack\n  log_json\n"), read(reloadLog));
        String selfMeta = get(http, "/v1/agent/self").body();
        assertTrue(selfMeta.contains("\"Meta\":{\"rack\":\"r2\"}"), selfMeta);
        assertTrue(selfMeta.contains("\"LogJson\":true"), selfMeta); // Nomad's Go field name
        assertTrue(selfMeta.contains("\"Password\":\"<redacted>\"") && !selfMeta.contains("\"Password\":\"admin\""), selfMeta);
        signal(agent, "HUP"); // logs its (empty) report as a JSON line now
        await("the agent logs JSON", Duration.ofSeconds(15), () -> read(log).lines()
                .anyMatch(l -> l.startsWith("{\"@level\":\"info\",\"@message\":\"agent configuration reloaded\"")));

        agent.destroy(); // SIGTERM
        assertTrue(agent.waitFor(STOP.toSeconds(), TimeUnit.SECONDS), "agent stops within " + STOP);
        assertEquals(0, agent.exitValue(), read(log));
        assertTrue(read(log).contains("==> Caught signal: terminated"), read(log));
        assertFalse(Files.exists(devDataDir), "-dev state is removed on exit");
    }

    @Test
    void badFlagExitsOneWithOneClearLine() throws Exception {
        Path log = tmp.resolve("bad.log");
        Process agent = caravan(log, "agent", "-dev", "-no-such-flag");
        assertTrue(agent.waitFor(START.toSeconds(), TimeUnit.SECONDS));
        assertEquals(1, agent.exitValue(), read(log));
        assertEquals("==> flag provided but not defined: -no-such-flag", read(log).strip());
    }

    @Test
    void unreadableConfigExitsOneNamingTheFile() throws Exception {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(bad, "{\n  \"region\": \"eu\",\n  \"bogus\": 1\n}\n");
        Path log = tmp.resolve("bad.log");
        Process agent = caravan(log, "agent", "-dev", "-config", bad.toString());
        assertTrue(agent.waitFor(START.toSeconds(), TimeUnit.SECONDS));
        assertEquals(1, agent.exitValue(), read(log));
        assertEquals("==> " + bad + ":3:3: unknown key \"bogus\"", read(log).strip());
    }
}
