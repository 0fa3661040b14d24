package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The assembled {@code bin/caravan}, run as a real process on free loopback ports, for the *E2EIT tests. */
final class AgentProcess implements AutoCloseable {
    static final Duration START = Duration.ofSeconds(60);
    static final Path DIST = Paths.get(System.getProperty("caravan.dist", "target/caravan"));
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    /** Plain HTTP/1.1 (no h2c upgrade offers), as curl and Nomad's clients speak it. */
    private static final HttpClient HTTP_1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    final Process process;
    final Path log;
    final Path config;
    /** The address the HTTP API listens on. */
    final String host;
    final int http;
    final int rpc;
    /** HTTPS with this context when the agent serves its API over TLS, else null (plain HTTP). */
    private final SSLContext https;
    private final HttpClient client;

    private AgentProcess(Process process, Path log, Path config, String host, int http, int rpc) {
        this(process, log, config, host, http, rpc, null);
    }

    private AgentProcess(Process process, Path log, Path config, String host, int http, int rpc, SSLContext https) {
        this.process = process;
        this.log = log;
        this.config = config;
        this.host = host;
        this.http = http;
        this.rpc = rpc;
        this.https = https;
        this.client = https == null ? HTTP_1 : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .sslContext(https).connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** {@code caravan agent -dev -config <dir>/agent.json} with free ports and {@code extraJson} keys added. */
    static AgentProcess startDev(Path dir, String extraJson) throws Exception {
        return startDev(dir, extraJson, "agent.log");
    }

    /** The same, logging to {@code logName} (a second agent on the same directory keeps the first one's log). */
    static AgentProcess startDev(Path dir, String extraJson, String logName) throws Exception {
        return startDev(dir, extraJson, logName, "127.0.0.1");
    }

    /** The same, with the HTTP API alone listening on {@code httpHost} ({@code addresses.http}). */
    static AgentProcess startDev(Path dir, String extraJson, String logName, String httpHost) throws Exception {
        return startDev(dir, extraJson, logName, httpHost, null);
    }

    /** The same, calling the API over HTTPS with {@code https} (the agent's {@code tls.http} is on). */
    static AgentProcess startDev(Path dir, String extraJson, String logName, String httpHost, SSLContext https)
            throws Exception {
        int[] ports = freePorts(3);
        int http = ports[0];
        int rpc = ports[1];
        Path config = dir.resolve("agent.json");
        String addresses = httpHost.equals("127.0.0.1") ? "" : ", \"addresses\": {\"http\": \"" + httpHost + "\"}";
        Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}%s%s}", http,
                rpc, ports[2], addresses, extraJson));
        Path log = dir.resolve(logName);
        AgentProcess agent = new AgentProcess(run(log, "agent", "-dev", "-config", config.toString()), log, config,
                httpHost, http, rpc, https);
        agent.awaitHealthy();
        return agent;
    }

    /**
     * {@code caravan agent -dev} as {@link #startDev(Path, String)}, with {@code env} added to the agent's environment
     * (e.g. {@code NOTIFY_SOCKET}).
     */
    static AgentProcess startDevWithEnv(Path dir, String extraJson, Map<String, String> env) throws Exception {
        int[] ports = freePorts(3);
        Path config = dir.resolve("agent.json");
        Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}%s}",
                ports[0], ports[1], ports[2], extraJson));
        Path log = dir.resolve("agent.log");
        ProcessBuilder builder = new ProcessBuilder(DIST.resolve("bin/caravan").toAbsolutePath().toString(), "agent",
                "-dev", "-config", config.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        AgentProcess agent = new AgentProcess(builder.start(), log, config, "127.0.0.1", ports[0], ports[1]);
        agent.awaitHealthy();
        return agent;
    }

    /**
     * {@code caravan agent -config <config>} as written, waiting only until its HTTP API answers (a server of a
     * cluster is not healthy until the others join).
     */
    static AgentProcess start(Path config, Path log, int http, int rpc) throws Exception {
        AgentProcess agent = new AgentProcess(run(log, "agent", "-config", config.toString()), log, config,
                "127.0.0.1", http, rpc);
        await("the agent answers HTTP", START, () -> {
            if (!agent.process.isAlive()) {
                throw new AssertionError("agent exited with " + agent.process.exitValue() + ":\n" + agent.log());
            }
            try {
                agent.get("/v1/agent/self");
                return true;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        return agent;
    }

    /**
     * {@code caravan agent -config <config> <args>} started and not waited for: for an agent that may never turn
     * healthy (a client its servers refuse).
     */
    static AgentProcess launch(Path config, Path log, int http, int rpc, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of("agent", "-config", config.toString()));
        all.addAll(List.of(args));
        return new AgentProcess(run(log, all.toArray(String[]::new)), log, config, "127.0.0.1", http, rpc);
    }

    /** Sends the agent's process a signal ({@code STOP}, {@code CONT}, …) with {@code kill}; nothing once it exited. */
    void signal(String name) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name);
    }

    /** Any {@code caravan} command, its output (both streams) in {@code log}. */
    static Process run(Path log, String... args) throws IOException {
        return runIn(null, log, args);
    }

    /** The same, in the working directory {@code dir} (null: this process's). */
    static Process runIn(Path dir, Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(DIST.resolve("bin/caravan").toAbsolutePath().toString());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir == null ? null : dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    /**
     * {@code n} ports no one listens on, below the kernel's ephemeral range (32768–60999 here): a port the kernel
     * picks for port 0 is an ephemeral one, and under load an outgoing connection took such a port between our choice
     * and the agent's bind ("Address already in use"). Outgoing connections never take ports below that range, and
     * this JVM never hands out the same port twice.
     */
    static int[] freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0, tries = 0; i < n; tries++) {
                if (tries > 10_000) {
                    throw new IOException("no free port between " + LOW_PORT + " and " + HIGH_PORT);
                }
                int port = LOW_PORT + java.util.concurrent.ThreadLocalRandom.current().nextInt(HIGH_PORT - LOW_PORT);
                if (!GIVEN_PORTS.add(port)) {
                    continue;
                }
                try {
                    held.add(new ServerSocket(port));
                    ports[i++] = port;
                } catch (IOException inUse) {
                    // someone listens there: another
                }
            }
            return ports;
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    private static final int LOW_PORT = 20_000;
    private static final int HIGH_PORT = 32_000;
    private static final java.util.Set<Integer> GIVEN_PORTS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    String address() {
        return (https == null ? "http://" : "https://") + host + ":" + http;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return (https == null ? HTTP : client).send(HttpRequest.newBuilder(URI.create(address() + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET path} as JSON; a failed request or unparsable body fails the test. */
    JsonNode json(String path) {
        try {
            return JSON.readTree(get(path).body());
        } catch (IOException e) {
            throw new AssertionError("GET " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A body sent the way {@code curl -d} sends it: form-encoded content type, JSON inside. */
    HttpResponse<String> putForm(String path, String body) throws IOException, InterruptedException {
        return (https == null ? HTTP : client).send(HttpRequest.newBuilder(URI.create(address() + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> put(String path) throws IOException, InterruptedException {
        return (https == null ? HTTP : client).send(HttpRequest.newBuilder(URI.create(address() + path))
                .PUT(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return (https == null ? HTTP : client).send(HttpRequest.newBuilder(URI.create(address() + path)).DELETE()
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Any call, with an ACL token ({@code X-Nomad-Token}; null: anonymous) and a JSON body (null: none). */
    HttpResponse<String> call(String method, String path, String token, String body)
            throws IOException, InterruptedException {
        return client.send(request(method, path, token, body), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * The status of a call, known as soon as the headers arrive; the body is left unread, so this also answers for a
     * route that streams for as long as the client stays ({@code /v1/event/stream}, {@code /v1/agent/monitor}).
     */
    int status(String method, String path, String token, String body) throws IOException, InterruptedException {
        HttpResponse<java.io.InputStream> response = client.send(request(method, path, token, body),
                HttpResponse.BodyHandlers.ofInputStream());
        response.body().close();
        return response.statusCode();
    }

    private HttpRequest request(String method, String path, String token, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(address() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("X-Nomad-Token", token);
        }
        return request.build();
    }

    String log() {
        return read(log);
    }

    private void awaitHealthy() throws InterruptedException {
        await("the agent answers /v1/agent/health", START, () -> {
            if (!process.isAlive()) {
                throw new AssertionError("agent exited with " + process.exitValue() + ":\n" + log());
            }
            try {
                return get("/v1/agent/health").statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    static void await(String what, Duration limit, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("timed out after " + limit + " waiting until " + what);
    }

    /** Removes a test's temporary directory and everything in it (null: nothing to remove). */
    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /**
     * A client ACL token holding one new policy with {@code rules}, made with a management token: its secret.
     */
    String tokenWith(String management, String name, String rules) throws IOException, InterruptedException {
        String policy = JSON.createObjectNode().put("Name", name).put("Rules", rules).toString();
        HttpResponse<String> put = call("PUT", "/v1/acl/policy/" + name, management, policy);
        if (put.statusCode() != 200) {
            throw new AssertionError(rules + " -> " + put.statusCode() + " " + put.body());
        }
        HttpResponse<String> token = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"" + name + "\", \"Type\": \"client\", \"Policies\": [\"" + name + "\"]}");
        if (token.statusCode() != 200) {
            throw new AssertionError(token.statusCode() + " " + token.body());
        }
        return JSON.readTree(token.body()).path("SecretID").asText();
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    /**
     * Stops the agent (SIGTERM, then SIGKILL after 30 s), then kills any task process still running under its data
     * directory (see {@link TaskProcesses}). Only when the agent was still running: a test that killed it on purpose
     * may want its tasks to survive for the next agent on the same directory.
     */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            Optional<Path> data = dataDir();
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            data.ifPresent(TaskProcesses::killUnder);
        }
    }

    /**
     * The agent's data directory: as it reports it ({@code /v1/agent/self}, which ACLs may refuse), else the
     * {@code data_dir} of its configuration file; empty when neither says (a {@code -dev} agent's own temp dir).
     */
    Optional<Path> dataDir() {
        try {
            HttpResponse<String> self = get("/v1/agent/self");
            if (self.statusCode() == 200) {
                String dir = JSON.readTree(self.body()).path("config").path("DataDir").asText("");
                if (!dir.isEmpty()) {
                    return Optional.of(Path.of(dir));
                }
            }
        } catch (IOException e) {
            // not answering: the configuration file says
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            String dir = JSON.readTree(config.toFile()).path("data_dir").asText("");
            return dir.isEmpty() ? Optional.empty() : Optional.of(Path.of(dir));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Stops every job (all namespaces) and waits, at most {@code limit}, until no allocation is left running, then
     * purges them: what a test does before it stops its agent so that the client stops its tasks itself. Best effort:
     * an agent that refuses (ACLs) or does not answer is left to {@link #close}.
     */
    void stopAllJobs(Duration limit) throws InterruptedException {
        try {
            HttpResponse<String> list = get("/v1/jobs?namespace=*");
            if (list.statusCode() != 200) {
                return;
            }
            JsonNode jobs = JSON.readTree(list.body());
            for (JsonNode job : jobs) {
                delete("/v1/job/" + job.path("ID").asText() + "?namespace=" + job.path("Namespace").asText());
            }
            long deadline = System.nanoTime() + limit.toNanos();
            while (System.nanoTime() < deadline && !allTerminal()) {
                Thread.sleep(200);
            }
            for (JsonNode job : jobs) {
                delete("/v1/job/" + job.path("ID").asText() + "?purge=true&namespace="
                        + job.path("Namespace").asText());
            }
        } catch (IOException e) {
            // not answering: close() kills what is left
        }
    }

    private boolean allTerminal() throws IOException, InterruptedException {
        HttpResponse<String> allocs = get("/v1/allocations?namespace=*");
        if (allocs.statusCode() != 200) {
            return true;
        }
        for (JsonNode a : JSON.readTree(allocs.body())) {
            String status = a.path("ClientStatus").asText();
            if (!status.equals("complete") && !status.equals("failed") && !status.equals("lost")) {
                return false;
            }
        }
        return true;
    }
}
