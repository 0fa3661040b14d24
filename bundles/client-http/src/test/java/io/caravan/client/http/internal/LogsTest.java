package io.caravan.client.http.internal;

import static io.caravan.client.http.internal.ClientFsRoutesTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.http.StreamingBody;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Logs across rotated files, in the client's copy-truncate scheme: archives {@code .1, .2, …} (higher is newer),
 * then the live {@code .0}.
 */
class LogsTest extends FsFixture {
    Path logs;
    Path live;

    @BeforeEach
    void threeFiles() throws IOException {
        logs = allocDir.resolve("alloc/logs");
        Files.writeString(logs.resolve("web.stdout.1"), "aaaa");
        Files.writeString(logs.resolve("web.stdout.2"), "bbbb");
        live = logs.resolve("web.stdout.0");
        Files.writeString(live, "cccc");
        Files.writeString(logs.resolve("web.stderr.0"), "oops");
        Files.writeString(logs.resolve("api.stdout.0"), "other task");
    }

    /** What the client's log rotator does: copy the live file to the next archive, then truncate it. */
    void rotate(int archive) throws IOException {
        Files.copy(live, logs.resolve("web.stdout." + archive), StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel channel = FileChannel.open(live, StandardOpenOption.WRITE)) {
            channel.truncate(0);
        }
    }

    String logs(String query) throws Exception {
        return text(routes.logs(TestRequest.get(ALLOC, "task=web&" + query)));
    }

    @Test
    void plainLogsReadEveryFileInOrder() throws Exception {
        assertEquals("aaaabbbbcccc", logs("type=stdout&plain=true"));
        assertEquals("oops", logs("type=stderr&plain=true"));
        StreamingBody body = (StreamingBody) routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout&plain=true"))
                .body();
        assertEquals("text/plain; charset=utf-8", body.contentType());
    }

    @Test
    void framedLogsNameEachFile() throws Exception {
        byte[] body = body(routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout")));
        List<JsonNode> frames = Frames.parse(body);
        assertEquals(List.of("alloc/logs/web.stdout.1", "alloc/logs/web.stdout.2", "alloc/logs/web.stdout.0"),
                frames.stream().map(f -> f.get("File").asText()).toList());
        assertEquals(List.of(4L, 4L, 4L), frames.stream().map(f -> f.get("Offset").asLong()).toList());
        assertEquals("aaaabbbbcccc", Frames.data(body));
        assertEquals("application/json", ((StreamingBody) routes.logs(TestRequest.get(ALLOC,
                "task=web&type=stdout")).body()).contentType());
    }

    @Test
    void originEndCountsBackAcrossFiles() throws Exception {
        assertEquals("cc", logs("type=stdout&plain=true&origin=end&offset=2"));
        assertEquals("bbcccc", logs("type=stdout&plain=true&origin=end&offset=6"));
        assertEquals("abbbbcccc", logs("type=stdout&plain=true&origin=end&offset=9"));
        assertEquals("aaaabbbbcccc", logs("type=stdout&plain=true&origin=end&offset=500"));
        assertEquals("", logs("type=stdout&plain=true&origin=end&offset=0"));
        byte[] framed = body(routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout&origin=end&offset=6")));
        assertEquals("bbcccc", Frames.data(framed));
        assertEquals(4, Frames.parse(framed).get(0).get("Offset").asLong(), "offset after the data, in its file");
    }

    @Test
    void originStartCountsForwardAcrossFiles() throws Exception {
        assertEquals("bbbcccc", logs("type=stdout&plain=true&offset=5"));
        assertEquals("cccc", logs("type=stdout&plain=true&offset=8"));
        assertEquals("", logs("type=stdout&plain=true&offset=500"));
    }

    @Test
    void followingSeesAppendsAndRotationsInOrder() throws Exception {
        CapturingWriter writer = start(routes.logs(TestRequest.get(ALLOC,
                "task=web&type=stdout&plain=true&follow=true&origin=end&offset=2")));
        assertTrue(writer.await(WAIT, b -> new String(b).equals("cc")));
        FsFixture.append(live, "dd");
        assertTrue(writer.await(WAIT, b -> new String(b).equals("ccdd")), new String(writer.bytes()));
        // The rotator copies what the live file holds (with bytes the follower has not read yet) and truncates it.
        FsFixture.append(live, "ee");
        rotate(3);
        FsFixture.append(live, "ff");
        assertTrue(writer.await(WAIT, b -> new String(b).equals("ccddeeff")), new String(writer.bytes()));
        // Two rotations between two looks.
        FsFixture.append(live, "gg");
        rotate(4);
        FsFixture.append(live, "hh");
        rotate(5);
        FsFixture.append(live, "ii");
        assertTrue(writer.await(WAIT, b -> new String(b).equals("ccddeeffgghhii")), new String(writer.bytes()));
        writer.close();
    }

    @Test
    void followingFramedLogsSendsHeartbeats() throws Exception {
        CapturingWriter writer = start(routes.logs(TestRequest.get(ALLOC,
                "task=web&type=stdout&follow=true&origin=end&offset=0")));
        assertTrue(writer.await(java.time.Duration.ofSeconds(5), b -> new String(b).contains("{}")));
        FsFixture.append(live, "new");
        assertTrue(writer.await(WAIT, b -> Frames.dataSoFar(b).equals("new")));
        writer.close();
    }

    @Test
    void followingWaitsForTheLiveFileAfterTheArchives() throws Exception {
        Files.delete(live);
        CapturingWriter writer = start(routes.logs(TestRequest.get(ALLOC,
                "task=web&type=stdout&plain=true&follow=true")));
        assertTrue(writer.await(WAIT, b -> new String(b).equals("aaaabbbb")));
        Files.writeString(live, "cc");
        assertTrue(writer.await(WAIT, b -> new String(b).equals("aaaabbbbcc")), new String(writer.bytes()));
        writer.close();
    }

    @Test
    void parametersAreCheckedAsNomadDoes() {
        assertEquals(Params.NO_TASK,
                assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "type=stdout"))).getMessage());
        assertEquals(Params.NO_LOG_TYPE,
                assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdlog"))).getMessage());
        assertEquals(Params.BAD_ORIGIN, assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC,
                "task=web&type=stdout&origin=middle"))).getMessage());
        assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout&offset=abc")));
        assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout&plain=yes")));
        CaravanException missing = assertStatus(404, () -> routes.logs(TestRequest.get(ALLOC,
                "task=db&type=stdout")));
        assertEquals("log entry for task \"db\" and log type \"stdout\" not found", missing.getMessage());
    }
}
