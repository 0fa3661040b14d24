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
        Path source = Files.writeString(Files.createDirectories(dir.resolve("a/alloc")).resolve("tool.sh"), "echo hi\n");
        Path taskDir = dir.resolve("a/web");
        new ArtifactHook(ArtifactSandbox.ISOLATED).fetch(artifact("file://" + source, Map.of("checksum", "sha256:" + sha256("echo hi\n")),
                null, null), new Interpolator(Map.of(), null), taskDir);
        assertEquals("echo hi\n", Files.readString(taskDir.resolve("local/tool.sh")));
    }

    @Test
    void checksumMismatchFailsAndLeavesNothing() throws Exception {
        Path source = Files.writeString(Files.createDirectories(dir.resolve("a/alloc")).resolve("tool.sh"), "echo hi\n");
        Path taskDir = dir.resolve("a/web");
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> new ArtifactHook(ArtifactSandbox.ISOLATED).fetch(artifact(source.toString(), Map.of("checksum", "sha256:00"), null,
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
            new ArtifactHook(ArtifactSandbox.ISOLATED).fetch(artifact(url, Map.of(), "local/${NOMAD_TASK_NAME}.conf", TaskArtifact.MODE_FILE),
                    new Interpolator(Map.of("NOMAD_TASK_NAME", "web"), null), taskDir);
            assertEquals("port=1\n", Files.readString(taskDir.resolve("local/web.conf")));

            ArtifactHook.ArtifactException missing = assertThrows(ArtifactHook.ArtifactException.class,
                    () -> new ArtifactHook(ArtifactSandbox.ISOLATED).fetch(artifact(url.replace("/files/app.conf", "/missing"), Map.of(), null, null),
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
        assertThrows(ArtifactHook.ArtifactException.class, () -> new ArtifactHook(ArtifactSandbox.ISOLATED).prestart(ctx));
        assertEquals(List.of(TaskEvent.DOWNLOADING_ARTIFACTS, TaskEvent.ARTIFACT_DOWNLOAD_FAILED),
                events.stream().map(TaskEvent::type).toList());
        assertEquals("Client is downloading artifacts", events.get(0).displayMessage());
        assertTrue(events.get(1).displayMessage().contains("escapes the task directory"));
    }

    // ---- the sandbox: local sources stay inside the allocation directory (a), destinations inside the task dir ----

    @Test
    void localSourcesOutsideTheAllocationAreRefusedWithoutLookingAtThem() throws Exception {
        Path taskDir = Files.createDirectories(dir.resolve("a/web"));
        Path secret = Files.writeString(dir.resolve("secret"), "s3cret");
        for (String source : List.of("file:///etc/passwd", "/etc/passwd", "file://" + secret, secret.toString(),
                "../../secret", "local/../../../secret", "file:///no/such/file")) {
            ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                    () -> isolated(source, taskDir), source);
            assertEquals("artifact source \"" + source + "\" is outside the allocation directory: local sources are "
                    + "sandboxed (client artifact filesystem_isolation_extra_paths, disable_filesystem_isolation)",
                    e.getMessage());
        }
        assertTrue(Files.notExists(taskDir.resolve("local/passwd")));
        assertTrue(Files.notExists(taskDir.resolve("local/secret")));
    }

    @Test
    void aRelativeSourceInsideTheAllocationIsCopied() throws Exception {
        Path taskDir = Files.createDirectories(dir.resolve("a/web"));
        Files.writeString(Files.createDirectories(dir.resolve("a/alloc/data")).resolve("app.conf"), "k=v");
        isolated("../alloc/data/app.conf", taskDir);
        assertEquals("k=v", Files.readString(taskDir.resolve("local/app.conf")));
    }

    @Test
    void aSymbolicLinkInsideTheAllocationCannotLeadOut() throws Exception {
        Path taskDir = Files.createDirectories(dir.resolve("a/web/local"));
        Path secret = Files.writeString(dir.resolve("secret"), "s3cret");
        Files.createSymbolicLink(dir.resolve("a/web/local/link"), secret);
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> isolated("local/link", dir.resolve("a/web")));
        assertTrue(e.getMessage().contains("is outside the allocation directory"), e.getMessage());
        assertTrue(Files.notExists(taskDir.resolve("local/link.part")));
    }

    @Test
    void aDestinationCannotLeaveThroughASymbolicLink() throws Exception {
        Path taskDir = Files.createDirectories(dir.resolve("a/web"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createSymbolicLink(taskDir.resolve("local"), outside);
        Files.writeString(Files.createDirectories(dir.resolve("a/alloc")).resolve("app.conf"), "k=v");
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> isolated("../alloc/app.conf", taskDir));
        assertEquals("artifact destination path escapes the task directory: \"local/\"", e.getMessage());
        try (var files = Files.list(outside)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void theClientMayAllowMore() throws Exception {
        Path taskDir = Files.createDirectories(dir.resolve("a/web"));
        Path shared = Files.writeString(Files.createDirectories(dir.resolve("shared")).resolve("ca.pem"), "ca");
        Path other = Files.writeString(dir.resolve("other.txt"), "other");
        new ArtifactHook(ArtifactSandbox.of(false, List.of("f:r:" + shared))).fetch(artifact(shared.toString(),
                Map.of(), null, null), new Interpolator(Map.of(), null), taskDir);
        assertEquals("ca", Files.readString(taskDir.resolve("local/ca.pem")));
        assertThrows(ArtifactHook.ArtifactException.class, () -> new ArtifactHook(ArtifactSandbox.of(false,
                List.of("f:w:" + other))).fetch(artifact(other.toString(), Map.of(), null, null),
                new Interpolator(Map.of(), null), taskDir), "write-only is not readable");
        new ArtifactHook(ArtifactSandbox.of(true, List.of())).fetch(artifact("file://" + other, Map.of(), null, null),
                new Interpolator(Map.of(), null), taskDir);
        assertEquals("other", Files.readString(taskDir.resolve("local/other.txt")));
    }

    @Test
    void aRefusedSourceFailsTheTaskWithAnEventThatSaysWhy() {
        Map<String, Object> task = Fixtures.shTask("web", "true");
        task.put("Artifacts", List.of(Map.of("GetterSource", "file:///etc/shadow")));
        Allocation alloc = Fixtures.alloc("n1", "j", "batch", Map.of(), task);
        List<TaskEvent> events = new ArrayList<>();
        TaskHookContext ctx = new TaskHookContext(alloc, alloc.job().taskGroups().get(0).tasks().get(0), null,
                AllocDir.of(dir, alloc.id()), new TaskEvents(Clock.systemUTC()), events::add);
        assertThrows(ArtifactHook.ArtifactException.class, () -> new ArtifactHook(ArtifactSandbox.ISOLATED)
                .prestart(ctx));
        assertEquals(TaskEvent.ARTIFACT_DOWNLOAD_FAILED, events.get(1).type());
        assertTrue(events.get(1).displayMessage().contains("\"file:///etc/shadow\" is outside the allocation "
                + "directory"), events.get(1).displayMessage());
    }

    private static void isolated(String source, Path taskDir) throws ArtifactHook.ArtifactException {
        new ArtifactHook(ArtifactSandbox.ISOLATED).fetch(artifact(source, Map.of(), null, null),
                new Interpolator(Map.of(), null), taskDir);
    }

    private static TaskArtifact artifact(String source, Map<String, String> options, String dest, String mode) {
        return new TaskArtifact(source, options, Map.of(), mode, false, dest, false);
    }

    private static String sha256(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void everyTasksHookSharesOneHttpClient() {
        long selectors = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().endsWith("SelectorManager")).count();
        List<ArtifactHook> hooks = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            hooks.add(new ArtifactHook(ArtifactSandbox.ISOLATED));
        }
        org.junit.jupiter.api.Assertions.assertSame(hooks.get(0).http(), hooks.get(49).http());
        long after = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().endsWith("SelectorManager")).count();
        assertTrue(after <= selectors + 1, "50 hooks, at most one more selector thread: " + selectors + " -> " + after);
    }
}
