package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A dev agent started as systemd would start a {@code Type=notify} service ({@code NOTIFY_SOCKET} set): the test's
 * socket receives READY=1 once the API answers, RELOADING=1 (with MONOTONIC_USEC) and READY=1 around a SIGHUP reload,
 * and STOPPING=1 when it is terminated. Needs {@code systemd-notify} and {@code python3} (which binds the unix datagram
 * socket: Java cannot).
 */
class SystemdNotifyE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String CAPTURE = """
            import socket, sys
            name, out = sys.argv[1], sys.argv[2]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.bind(name)
            open(out + ".bound", "w").close()
            while True:
                data = s.recv(65536)
                if data == b"BARRIER=1":
                    continue
                with open(out, "a") as f:
                    f.write(data.decode().strip().replace("\\n", "|") + "\\n")
            """;

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    @Test
    void systemdHearsReadyReloadingAndStopping() throws Exception {
        assumeTrue(runs("systemd-notify", "--version") && runs("python3", "--version"),
                "needs systemd-notify and python3");
        Path dir = Files.createTempDirectory("caravan-systemd-");
        Process capture = null;
        AgentProcess agent = null;
        try {
            Path socket = dir.resolve("notify.sock");
            Path out = dir.resolve("messages");
            Path script = Files.writeString(dir.resolve("capture.py"), CAPTURE);
            capture = new ProcessBuilder("python3", script.toString(), socket.toString(), out.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("capture.log").toFile()).start();
            AgentProcess.await("the test socket is bound", WAIT, () -> Files.exists(Path.of(out + ".bound")));

            agent = AgentProcess.startDevWithEnv(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\"",
                    Map.of("NOTIFY_SOCKET", socket.toString()));
            AgentProcess.await("READY=1", WAIT, () -> lines(out).size() >= 1);
            assertTrue(lines(out).get(0).startsWith("READY=1|STATUS="), lines(out).toString());

            agent.signal("HUP");
            AgentProcess.await("RELOADING=1 then READY=1", WAIT, () -> lines(out).size() >= 3);
            assertTrue(lines(out).get(1).matches("RELOADING=1\\|MONOTONIC_USEC=\\d+.*"), lines(out).toString());
            assertTrue(lines(out).get(2).startsWith("READY=1"), lines(out).toString());

            agent.close();   // SIGTERM
            AgentProcess.await("STOPPING=1", WAIT, () -> lines(out).size() >= 4);
            List<String> messages = lines(out);
            assertTrue(messages.get(3).startsWith("STOPPING=1"), messages.toString());
            Thread.sleep(500);
            assertEquals(4, lines(out).size(), "STOPPING=1 once: " + lines(out));
        } finally {
            if (agent != null) {
                agent.close();
            }
            if (capture != null) {
                capture.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            AgentProcess.deleteTree(dir);
        }
    }
}
