package io.caravan.driver.executor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.caravan.plugin.api.driver.ExecSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamingExecTest {
    @TempDir
    Path dir;
    private Process task;

    @BeforeEach
    void startTask() throws IOException {
        ProcessBuilder builder = new ProcessBuilder("sleep", "60").directory(dir.toFile());
        builder.environment().put("CARAVAN_TEST_VAR", "from-task");
        task = builder.start();
    }

    @AfterEach
    void stopTask() {
        task.destroyForcibly();
    }

    @Test
    void runsInTheTasksEnvironmentAndDirectoryWithSeparateStreams() throws Exception {
        ExecSession exec = StreamingExec.start(task.pid(), List.of("sh", "-c",
                "pwd; echo \"$CARAVAN_TEST_VAR\"; echo oops >&2; read line; echo \"got $line\"; exit 4"), false);
        exec.stdin().write("input\n".getBytes(StandardCharsets.UTF_8));
        exec.stdin().close();
        assertEquals(4, exec.exitCode().toCompletableFuture().get(10, TimeUnit.SECONDS));
        String out = read(exec.stdout());
        assertEquals(dir.toRealPath() + "\nfrom-task\ngot input\n", out);
        assertEquals("oops\n", read(exec.stderr()));
    }

    @Test
    void aTtyRunsAnInteractiveShellAndResizes() throws Exception {
        ExecSession exec = StreamingExec.start(task.pid(), List.of("/bin/sh"), true);
        exec.resize(33, 101);
        exec.stdin().write("stty size; echo $((6*7))\nexit 3\n".getBytes(StandardCharsets.UTF_8));
        exec.stdin().flush();
        assertEquals(3, exec.exitCode().toCompletableFuture().get(10, TimeUnit.SECONDS));
        String out = read(exec.stdout());
        assertTrue(out.contains("33 101"), out);
        assertTrue(out.contains("42"), out);
        assertTrue(exec.tty());
    }

    @Test
    void quotesWordsForTheShell() {
        assertEquals("'echo' 'it'\\''s' '$HOME'", StreamingExec.shellWords(List.of("echo", "it's", "$HOME")));
    }

    private static String read(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }

}
