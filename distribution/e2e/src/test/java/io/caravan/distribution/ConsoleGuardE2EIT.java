package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console's loopback guard against a real remote client. The test makes its own network namespace joined to
 * this host by a veth pair with private addresses of its own (10.213.x.y/30, on nothing but that pair), starts a
 * {@code -dev} agent whose HTTP API listens on the host end, and asks for the console from inside the namespace
 * with curl, sending each path exactly as written ({@code --path-as-is}). A local client is curl from
 * {@code 127.0.0.1} to the same listener. Needs root and {@code ip netns}; skipped, saying why, without them.
 */
class ConsoleGuardE2EIT {
    /** The brief's bypasses and their relatives: every one must be refused to a remote client. */
    private static final List<String> SPELLINGS = List.of("/ui/console", "/ui/console/bundles", "/ui/./console",
            "/./ui/console", "/ui/%63onsole", "/ui/cons%6Fle/bundles", "/ui/console;x", "/ui;x/console/bundles",
            "/ui/x/../console", "/ui/console/../../ui/console/bundles", "/ui/%2563onsole", "/ui/%252563onsole",
            "/ui/%2e/console", "/ui/x/%2e%2e/console", "/ui/x/..;/console", "/ui//console", "//ui/console",
            "/ui\\console", "/ui%5cconsole", "/UI/Console", "/ui/CONSOLE/bundles", "/ui%2fconsole", "/ui%2Fconsole",
            "/ui/console%2fbundles", "/ui/console.", "/ui/console./bundles", "/ui/console%20", "/ui/%u0063onsole");
    /** What the console itself answers (with credentials: the page or its redirect; without: a challenge). */
    private static final Set<Integer> CONSOLE = Set.of(200, 302, 401);

    private static final String NS = "caravan-cg-" + Long.toHexString(ProcessHandle.current().pid());
    private static final String HOST_END = "cgh" + Long.toHexString(ProcessHandle.current().pid() & 0xfffff);
    private static final String NS_END = "cgn" + Long.toHexString(ProcessHandle.current().pid() & 0xfffff);
    private static String hostIp;
    private static boolean namespace;
    private static boolean veth;
    private static AgentProcess agent;

    @TempDir
    static Path tmp;

    private record Result(int exit, String output) {}

    private static Result run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        // Read to the end first (a console page outgrows a pipe's buffer); curl's -m and ip's nature bound it.
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            return new Result(-1, String.join(" ", command) + ": timed out");
        }
        return new Result(p.exitValue(), output);
    }

    /** Runs a setup step; a failing one skips the class with its output (no namespaces here, or not allowed). */
    private static void setup(String... command) throws IOException, InterruptedException {
        Result r = run(command);
        assumeTrue(r.exit() == 0, () -> "skipped: `" + String.join(" ", command) + "` failed (" + r.exit() + "): "
                + r.output());
    }

    @BeforeAll
    static void start() throws Exception {
        Result id = run("id", "-u");
        assumeTrue(id.output().equals("0"), "skipped: creating a network namespace needs root, not uid " + id.output());
        setup("ip", "netns", "add", NS);
        namespace = true;
        setup("ip", "link", "add", HOST_END, "type", "veth", "peer", "name", NS_END);
        veth = true;
        // A /30 of 10.213.0.0/16 per run, so parallel runs on one machine do not collide.
        int block = ThreadLocalRandom.current().nextInt(16384);
        String prefix = "10.213." + (block >> 6) + ".";
        hostIp = prefix + ((block & 63) * 4 + 1);
        String nsIp = prefix + ((block & 63) * 4 + 2);
        setup("ip", "link", "set", NS_END, "netns", NS);
        setup("ip", "addr", "add", hostIp + "/30", "dev", HOST_END);
        setup("ip", "link", "set", HOST_END, "up");
        setup("ip", "netns", "exec", NS, "ip", "addr", "add", nsIp + "/30", "dev", NS_END);
        setup("ip", "netns", "exec", NS, "ip", "link", "set", NS_END, "up");
        setup("ip", "netns", "exec", NS, "ip", "link", "set", "lo", "up");
        agent = AgentProcess.startDev(tmp, "", "agent.log", hostIp);
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (agent != null) {
                agent.close();
            }
        } finally {
            if (namespace) {
                run("ip", "netns", "del", NS); // takes the veth pair with it once its end is inside
            }
            if (veth) {
                run("ip", "link", "del", HOST_END); // in case setup stopped before the move
            }
        }
    }

    private record Answer(int status, String body) {}

    /** curl from inside the namespace, or from this host's 127.0.0.1 when {@code local}; with the -dev login. */
    private static Answer curl(boolean local, String path) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(local ? List.of("curl", "--interface", "127.0.0.1")
                : List.of("ip", "netns", "exec", NS, "curl"));
        command.addAll(List.of("-s", "--path-as-is", "-m", "15", "-u", "admin:admin", "-w", "\n%{http_code}",
                "http://" + hostIp + ":" + agent.http + path));
        Result r = run(command.toArray(String[]::new));
        assertEquals(0, r.exit(), () -> "curl " + path + ": " + r.output());
        int newline = r.output().lastIndexOf('\n'); // none when the body is empty (the output is trimmed)
        return new Answer(Integer.parseInt(r.output().substring(newline + 1)),
                newline < 0 ? "" : r.output().substring(0, newline));
    }

    @Test
    void theConsoleAnswersOnlyThisHost() throws Exception {
        // The namespace reaches the agent: the API answers it.
        assertEquals(200, curl(false, "/v1/agent/health").status());
        assertEquals(200, curl(false, "/v1/jobs").status());

        Answer console = curl(true, "/ui/console/bundles");
        assertEquals(200, console.status(), console.body());
        assertTrue(console.body().contains("<html") || console.body().contains("<!DOCTYPE"), console.body());

        List<String> reachLocally = new ArrayList<>();
        for (String path : SPELLINGS) {
            Answer local = curl(true, path);
            Answer remote = curl(false, path);
            System.out.printf("ConsoleGuardE2EIT: %-40s local %d, remote %d%n", path, local.status(), remote.status());
            assertTrue(Set.of(400, 403, 404).contains(remote.status()), path + " answered a remote client "
                    + remote.status() + ": " + remote.body());
            if (CONSOLE.contains(local.status())) {
                reachLocally.add(path);
                assertEquals(new Answer(403, "Permission denied"), remote, path);
            }
        }
        // These really are ways in: each reaches the console from this host, so the test above can fail.
        assertTrue(reachLocally.containsAll(List.of("/ui/console", "/ui/./console", "/ui/%63onsole", "/ui/console;x",
                "/ui/x/../console")), reachLocally.toString());
        assertTrue(agent.process.isAlive());
    }
}
