package io.caravan.api.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The frames as Nomad's CLI and agent write them. */
class ExecFramesTest {

    @Test
    void writesTheAgentsFramesAsNomadDoes() {
        assertEquals("{\"stdout\":{\"data\":\"aGkK\"}}",
                ExecFrames.write(ExecFrames.Output.stdout(ExecFrames.Data.of("hi\n".getBytes(StandardCharsets.UTF_8)))));
        assertEquals("{\"stderr\":{\"close\":true}}",
                ExecFrames.write(ExecFrames.Output.stderr(ExecFrames.Data.closed())));
        assertEquals("{\"exited\":true,\"result\":{\"exit_code\":3}}", ExecFrames.write(ExecFrames.Output.exited(3)));
        assertEquals("{\"exited\":true,\"result\":{\"exit_code\":0}}", ExecFrames.write(ExecFrames.Output.exited(0)));
    }

    @Test
    void readsTheCallersFrames() throws IOException {
        ExecFrames.Input stdin = ExecFrames.readInput("{\"stdin\":{\"data\":\"ZWNobyBoaQo=\"}}");
        assertArrayEquals("echo hi\n".getBytes(StandardCharsets.UTF_8), stdin.stdin().data());
        assertFalse(stdin.stdin().close());
        assertTrue(ExecFrames.readInput("{\"stdin\":{\"close\":true}}").stdin().close());
        ExecFrames.Input size = ExecFrames.readInput("{\"tty_size\":{\"height\":40,\"width\":120}}");
        assertEquals(new ExecFrames.TtySize(40, 120), size.ttySize());
        ExecFrames.Input heartbeat = ExecFrames.readInput("{}");
        assertNull(heartbeat.stdin());
        assertNull(heartbeat.ttySize());
        assertFalse(heartbeat.isAuth());
        ExecFrames.Input auth = ExecFrames.readInput("{\"version\":1,\"auth_token\":\"secret\"}");
        assertTrue(auth.isAuth());
        assertEquals("secret", auth.authToken());
    }

    @Test
    void roundTripsWhatTheCliSends() throws IOException {
        assertEquals("{}", ExecFrames.write(ExecFrames.Input.heartbeat()));
        assertEquals("{\"tty_size\":{\"height\":24,\"width\":80}}", ExecFrames.write(ExecFrames.Input.ttySize(24, 80)));
        assertEquals("{\"stdin\":{\"close\":true}}", ExecFrames.write(ExecFrames.Input.stdinClosed()));
        ExecFrames.Output exited = ExecFrames.readOutput("{\"exited\":true,\"result\":{\"exit_code\":42}}");
        assertTrue(exited.exited());
        assertEquals(42, exited.result().exitCode());
    }

    @Test
    void refusesWhatIsNotAFrame() {
        assertThrows(IOException.class, () -> ExecFrames.readInput("not json"));
        assertThrows(IOException.class, () -> ExecFrames.readInput("{\"stdin\":{\"data\":\"***\"}}"));
    }
}
