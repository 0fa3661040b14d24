package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpServer;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskArtifact;
import io.caravan.api.model.TaskEvent;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactHookTest {
    @TempDir
    Path dir;

    @Test
    void destinationsThatLeaveTheTaskDirAreRefused() throws Exception {
        Path taskDir = dir.resolve("alloc1/web");
        assertEquals(taskDir.resolve("local/x"), ArtifactHook.confine(taskDir, "local/x"));
        assertEquals(taskDir.resolve("local"), ArtifactHook.confine(taskDir, "local/sub/.."));
        for (String attack : List.of("..", "../", "../other-task/local", "local/../../..", "/etc", "/tmp/x",
                "local/../../../etc/passwd", taskDir.getParent().resolve("alloc").toString())) {
            ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                    () -> ArtifactHook.confine(taskDir, attack), attack);
            assertTrue(e.getMessage().contains("escapes the task directory"), e.getMessage());
        }
        // An absolute path inside the task dir is accepted (it does not escape).
        assertEquals(taskDir.resolve("local/y"), ArtifactHook.confine(taskDir, taskDir.resolve("local/y").toString()));
    }

    @Test
    void fileSourceWithChecksumLandsInLocal() throws Exception {
        Path source = Files.writeString(dir.resolve("tool.sh"), "echo hi\n");
        Path taskDir = dir.resolve("a/web");
        new ArtifactHook().fetch(artifact("file://" + source, Map.of("checksum", "sha256:" + sha256("echo hi\n")),
                null, null), new Interpolator(Map.of(), null), taskDir);
        assertEquals("echo hi\n", Files.readString(taskDir.resolve("local/tool.sh")));
    }

    @Test
    void checksumMismatchFailsAndLeavesNothing() throws Exception {
        Path source = Files.writeString(dir.resolve("tool.sh"), "echo hi\n");
        Path taskDir = dir.resolve("a/web");
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> new ArtifactHook().fetch(artifact(source.toString(), Map.of("checksum", "sha256:00"), null,
                        null), new Interpolator(Map.of(), null), taskDir));
        assertTrue(e.getMessage().contains("checksums did not match"), e.getMessage());
        assertTrue(Files.notExists(taskDir.resolve("local/tool.sh")));
    }

    @Test
    void httpSourceToAFileDestinationWithInterpolation() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/files/app.conf", exchange -> {
            byte[] body = "port=1\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            Path taskDir = dir.resolve("a/web");
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/files/app.conf";
            new ArtifactHook().fetch(artifact(url, Map.of(), "local/${NOMAD_TASK_NAME}.conf", TaskArtifact.MODE_FILE),
                    new Interpolator(Map.of("NOMAD_TASK_NAME", "web"), null), taskDir);
            assertEquals("port=1\n", Files.readString(taskDir.resolve("local/web.conf")));

            ArtifactHook.ArtifactException missing = assertThrows(ArtifactHook.ArtifactException.class,
                    () -> new ArtifactHook().fetch(artifact(url.replace("/files/app.conf", "/missing"), Map.of(), null, null),
                            new Interpolator(Map.of(), null), taskDir));
            assertTrue(missing.getMessage().contains("404"), missing.getMessage());
        } finally {
            server.stop(0);
        }
    }

    @Test
    void hookEmitsNomadsEventsAndFailsTheAttemptOnEscape() {
        Map<String, Object> task = Fixtures.shTask("web", "true");
        task.put("Artifacts", List.of(Map.of("GetterSource", "file:///etc/hostname", "RelativeDest", "../../x")));
        Allocation alloc = Fixtures.alloc("n1", "j", "batch", Map.of(), task);
        List<TaskEvent> events = new ArrayList<>();
        TaskHookContext ctx = new TaskHookContext(alloc, alloc.job().taskGroups().get(0).tasks().get(0), null,
                AllocDir.of(dir, alloc.id()), new TaskEvents(Clock.systemUTC()), events::add);
        assertThrows(ArtifactHook.ArtifactException.class, () -> new ArtifactHook().prestart(ctx));
        assertEquals(List.of(TaskEvent.DOWNLOADING_ARTIFACTS, TaskEvent.ARTIFACT_DOWNLOAD_FAILED),
                events.stream().map(TaskEvent::type).toList());
        assertEquals("Client is downloading artifacts", events.get(0).displayMessage());
        assertTrue(events.get(1).displayMessage().contains("escapes the task directory"));
    }

    private static TaskArtifact artifact(String source, Map<String, String> options, String dest, String mode) {
        return new TaskArtifact(source, options, Map.of(), mode, false, dest, false);
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
