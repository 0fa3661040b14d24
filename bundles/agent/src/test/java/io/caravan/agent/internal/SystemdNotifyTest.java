package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The messages systemd would receive, captured by a unix datagram socket of the test's own (Python binds it: Java has
 * no unix datagram sockets either): READY=1 with a status, RELOADING=1 with MONOTONIC_USEC then READY=1, STOPPING=1
 * once; to a socket path and to an abstract {@code @name}. Needs {@code systemd-notify} and {@code python3}.
 */
class SystemdNotifyTest {
    /** Binds the socket, then writes each datagram as one line (fields joined by '|') to the output file. */
    private static final String CAPTURE = """
            import socket, sys
            name, out = sys.argv[1], sys.argv[2]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind("\\0" + name[1:] if name.startswith("@") else name)
            open(out + ".bound", "w").close()
            while True:
                data = s.recv(65536)
                if data == b"BARRIER=1":
                    continue   # systemd-notify's sync with the receiver, not a message of the agent's
                with open(out, "a") as f:
                    f.write(data.decode().strip().replace("\\n", "|") + "\\n")
            """;

    @TempDir
    Path dir;

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @Test
    void aSocketPathReceivesReadyReloadingAndStopping() throws Exception {
        capture(dir.resolve("notify.sock").toString());
    }

    @Test
    void anAbstractSocketReceivesThemToo() throws Exception {
        capture("@caravan-test-" + UUID.randomUUID());
    }

    private void capture(String socket) throws Exception {
        assumeTrue(runs("systemd-notify", "--version") && runs("python3", "--version"),
                "needs systemd-notify and python3");
        Path script = Files.writeString(dir.resolve("capture.py"), CAPTURE);
        Path out = dir.resolve("messages");
        Process capture = new ProcessBuilder("python3", script.toString(), socket, out.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("capture.log").toFile()).start();
        try {
            Path bound = Path.of(out + ".bound");
            awaitTrue(() -> Files.exists(bound));

            SystemdNotify systemd = new SystemdNotify(socket, "systemd-notify");
            assertTrue(systemd.enabled());
            try (ServerSocket http = new ServerSocket(0)) {
                systemd.readyWhenListening("127.0.0.1", http.getLocalPort(), 10_000);
                awaitTrue(() -> lines(out).size() == 1);
            }
            systemd.reloading();
            systemd.ready("Agent running");
            systemd.stopping();
            systemd.stopping();   // said once only
            awaitTrue(() -> lines(out).size() >= 4);
            Thread.sleep(300);

            List<String> messages = lines(out);
            assertEquals(4, messages.size(), messages.toString());
            assertTrue(messages.get(0).startsWith("READY=1|STATUS=Agent running; HTTP API on 127.0.0.1:"),
                    messages.get(0));
            assertTrue(messages.get(1).matches("RELOADING=1\\|MONOTONIC_USEC=\\d+\\|STATUS=.*"), messages.get(1));
            long usec = Long.parseLong(messages.get(1).split("\\|")[1].substring("MONOTONIC_USEC=".length()));
            assertTrue(Math.abs(usec - System.nanoTime() / 1_000) < 60_000_000L, "CLOCK_MONOTONIC in microseconds");
            assertEquals("READY=1|STATUS=Agent running", messages.get(2));
            assertTrue(messages.get(3).startsWith("STOPPING=1"), messages.get(3));
        } finally {
            capture.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void withoutNotifySocketNothingIsSent() {
        SystemdNotify systemd = new SystemdNotify(null, "/nonexistent/systemd-notify");
        assertFalse(systemd.enabled());
        systemd.ready("x");   // no process, no warning, no failure
        systemd.stopping();
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out");
            Thread.sleep(50);
        }
    }
}
