package io.caravan.client.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiResponse;
import io.caravan.http.StreamingBody;
import org.junit.jupiter.api.Test;

class ClientFsRoutesTest extends FsFixture {

    @Test
    @SuppressWarnings("unchecked")
    void lsListsADirectoryInNomadsShape() throws Exception {
        ApiResponse response = routes.list(TestRequest.get(ALLOC, "path=/"));
        List<AllocFileInfo> entries = (List<AllocFileInfo>) response.body();
        assertEquals(List.of("alloc", "web"), entries.stream().map(AllocFileInfo::name).toList());
        assertTrue(entries.get(0).isDir());
        assertTrue(entries.get(0).fileMode().startsWith("d"), entries.get(0).fileMode());

        List<AllocFileInfo> local = (List<AllocFileInfo>) routes.list(TestRequest.get(ALLOC, "path=web/local"))
                .body();
        AllocFileInfo hello = local.get(0);
        assertEquals("hello.txt", hello.name());
        assertEquals(12, hello.size());
        assertFalse(hello.isDir());
        assertTrue(hello.fileMode().matches("-[rwx-]{9}"), hello.fileMode());

        JsonNode json = NomadJson.mapper().valueToTree(hello);
        assertEquals(List.of("Name", "IsDir", "Size", "FileMode", "ModTime"), fieldNames(json));
        Instant.parse(json.get("ModTime").asText()); // RFC 3339
    }

    @Test
    void lsDefaultsToTheRootAndRefusesAFile() throws Exception {
        assertEquals(2, ((List<?>) routes.list(TestRequest.get(ALLOC, "")).body()).size());
        assertStatus(400, () -> routes.list(TestRequest.get(ALLOC, "path=web/local/hello.txt")));
        assertStatus(404, () -> routes.list(TestRequest.get(ALLOC, "path=nothing/here")));
    }

    @Test
    void statGivesOneEntryWithItsContentType() throws Exception {
        AllocFileInfo hello = (AllocFileInfo) routes.stat(TestRequest.get(ALLOC, "path=/web/local/hello.txt")).body();
        assertEquals("hello.txt", hello.name());
        assertEquals(12, hello.size());
        assertEquals("text/plain; charset=utf-8", hello.contentType());
        JsonNode json = NomadJson.mapper().valueToTree(hello);
        assertEquals("text/plain; charset=utf-8", json.get("ContentType").asText());

        AllocFileInfo config = (AllocFileInfo) routes.stat(TestRequest.get(ALLOC, "path=alloc/data/config.json"))
                .body();
        assertEquals("application/json", config.contentType());
        AllocFileInfo dir = (AllocFileInfo) routes.stat(TestRequest.get(ALLOC, "path=alloc")).body();
        assertTrue(dir.isDir());
        assertTrue(dir.fileMode().startsWith("d"));

        assertStatus(400, () -> routes.stat(TestRequest.get(ALLOC, "")));
        assertStatus(404, () -> routes.stat(TestRequest.get(ALLOC, "path=web/local/missing.txt")));
    }

    @Test
    void goFileModes() {
        assertEquals("-rw-r--r--", AllocFileInfo.goMode(0100644));
        assertEquals("drwxr-xr-x", AllocFileInfo.goMode(040755));
        assertEquals("dtrwxrwxrwx", AllocFileInfo.goMode(041777));
        assertEquals("Lrwxrwxrwx", AllocFileInfo.goMode(0120777));
        assertEquals("urwxr-xr-x", AllocFileInfo.goMode(0104755));
    }

    @Test
    void catReturnsTheRawBytes() throws Exception {
        ApiResponse response = routes.cat(TestRequest.get(ALLOC, "path=web/local/hello.txt"));
        assertEquals("text/plain; charset=utf-8", ((StreamingBody) response.body()).contentType());
        assertEquals("hello world\n", text(response));
        assertStatus(400, () -> routes.cat(TestRequest.get(ALLOC, "path=web/local")));
        assertStatus(400, () -> routes.cat(TestRequest.get(ALLOC, "")));
        assertStatus(404, () -> routes.cat(TestRequest.get(ALLOC, "path=web/local/nope")));
    }

    @Test
    void catOfALargeFileIsWholeEvenWhenTheClientIsSlow() throws Exception {
        byte[] big = new byte[3 * 1024 * 1024 + 17];
        new java.util.Random(3).nextBytes(big);
        Files.write(allocDir.resolve("alloc/data/big.bin"), big);
        CapturingWriter writer = start(routes.cat(TestRequest.get(ALLOC, "path=alloc/data/big.bin")));
        writer.ready = false;
        Thread.sleep(100);
        writer.ready = true;
        assertTrue(writer.awaitClose(WAIT));
        assertTrue(java.util.Arrays.equals(big, writer.bytes()));
    }

    @Test
    void secretsAreListedButNeverRead() throws Exception {
        assertEquals(1, ((List<?>) routes.list(TestRequest.get(ALLOC, "path=web/secrets")).body()).size());
        CaravanException e = assertStatus(403, () -> routes.cat(TestRequest.get(ALLOC, "path=web/secrets/token")));
        assertEquals("Reading secret file prohibited: web/secrets/token", e.getMessage());
        assertStatus(403, () -> routes.readAt(TestRequest.get(ALLOC, "path=web/secrets/token&offset=0")));
        assertStatus(403, () -> routes.stream(TestRequest.get(ALLOC, "path=web/secrets/token&follow=false")));
        assertStatus(403, () -> routes.cat(TestRequest.get(ALLOC, "path=web/./secrets/../secrets/token")));
    }

    @Test
    void readAtReadsARange() throws Exception {
        assertEquals("world", text(routes.readAt(TestRequest.get(ALLOC,
                "path=web/local/hello.txt&offset=6&limit=5"))));
        assertEquals("world\n", text(routes.readAt(TestRequest.get(ALLOC, "path=web/local/hello.txt&offset=6"))));
        assertEquals("", text(routes.readAt(TestRequest.get(ALLOC, "path=web/local/hello.txt&offset=100"))));
        assertStatus(400, () -> routes.readAt(TestRequest.get(ALLOC, "path=web/local/hello.txt")));
        assertStatus(400, () -> routes.readAt(TestRequest.get(ALLOC, "path=web/local/hello.txt&offset=x")));
        assertStatus(400, () -> routes.readAt(TestRequest.get(ALLOC, "path=web/local/hello.txt&offset=-1")));
    }

    @Test
    void streamFramesDecodeToTheFile() throws Exception {
        byte[] body = body(routes.stream(TestRequest.get(ALLOC, "path=web/local/hello.txt&follow=false")));
        List<JsonNode> frames = Frames.parse(body);
        assertEquals(1, frames.size());
        assertEquals(List.of("Offset", "Data", "File"), fieldNames(frames.get(0)));
        assertEquals(12, frames.get(0).get("Offset").asLong());
        assertEquals("web/local/hello.txt", frames.get(0).get("File").asText());
        assertEquals("hello world\n", Frames.data(body));

        assertEquals("world\n", Frames.data(body(routes.stream(TestRequest.get(ALLOC,
                "path=web/local/hello.txt&follow=false&origin=end&offset=6")))));
        assertEquals("hello world\n", Frames.data(body(routes.stream(TestRequest.get(ALLOC,
                "path=web/local/hello.txt&follow=false&origin=end&offset=600")))));
        assertEquals("o world\n", text(routes.stream(TestRequest.get(ALLOC,
                "path=web/local/hello.txt&follow=false&offset=4&plain=true"))));
        assertStatus(400, () -> routes.stream(TestRequest.get(ALLOC, "path=web/local/hello.txt&origin=middle")));
        assertStatus(400, () -> routes.stream(TestRequest.get(ALLOC, "path=web/local/hello.txt&follow=maybe")));
    }

    @Test
    void aHeartbeatIsAnEmptyObject() throws Exception {
        assertEquals("{}", NomadJson.mapper().writeValueAsString(new StreamFrame(0, new byte[0], "", null)));
    }

    @Test
    void followingAFileSeesAppendsTruncationAndDeletion() throws Exception {
        Path log = write("alloc/data/app.log", "one\n");
        CapturingWriter writer = start(routes.stream(TestRequest.get(ALLOC, "path=alloc/data/app.log")));
        assertTrue(writer.await(WAIT, b -> Frames.dataSoFar(b).equals("one\n")));
        append(log, "two\n");
        assertTrue(writer.await(WAIT, b -> Frames.dataSoFar(b).equals("one\ntwo\n")), Frames.dataSoFar(writer.bytes()));
        // idle for more than a second: a heartbeat
        assertTrue(writer.await(Duration.ofSeconds(5), b -> new String(b).endsWith("{}")));
        Files.writeString(log, "x");
        assertTrue(writer.await(WAIT, b -> Frames.dataSoFar(b).equals("one\ntwo\nx")), Frames.dataSoFar(writer.bytes()));
        assertTrue(Frames.parse(writer.bytes()).stream().anyMatch(f -> f.path("FileEvent").asText()
                .equals("file truncated")));
        Files.delete(log);
        assertTrue(writer.awaitClose(WAIT), "a deleted file ends the stream");
        List<JsonNode> frames = Frames.parse(writer.bytes());
        assertEquals("file deleted", frames.get(frames.size() - 1).get("FileEvent").asText());
        assertFalse(writer.ready());
    }

    @Test
    void aClientThatLeavesEndsTheFollow() throws Exception {
        write("alloc/data/app.log", "one\n");
        CapturingWriter writer = start(routes.stream(TestRequest.get(ALLOC, "path=alloc/data/app.log")));
        assertTrue(writer.await(WAIT, b -> b.length > 0));
        writer.close();
        Thread.sleep(600);
        int before = writer.bytes().length;
        append(allocDir.resolve("alloc/data/app.log"), "more\n");
        Thread.sleep(600);
        assertEquals(before, writer.bytes().length);
    }

    @Test
    void deactivationEndsOpenStreams() throws Exception {
        write("alloc/data/app.log", "one\n");
        CapturingWriter writer = start(routes.stream(TestRequest.get(ALLOC, "path=alloc/data/app.log")));
        assertTrue(writer.await(WAIT, b -> b.length > 0));
        routes.deactivate();
        assertTrue(writer.awaitClose(WAIT));
    }

    @Test
    void unknownAllocationIsNomads404() {
        CaravanException e = assertStatus(404, () -> routes.list(TestRequest.get("nope", "path=/")));
        assertEquals("Unknown allocation \"nope\"", e.getMessage());
        assertStatus(404, () -> routes.cat(TestRequest.get("nope", "path=a")));
        assertStatus(404, () -> routes.logs(TestRequest.get("nope", "task=web&type=stdout")));
    }

    static List<String> fieldNames(JsonNode node) {
        List<String> out = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(out::add);
        return out;
    }

    interface Call {
        Object run() throws Exception;
    }

    static CaravanException assertStatus(int status, Call call) {
        CaravanException e = assertThrows(CaravanException.class, call::run);
        assertEquals(status, e.code().httpStatus(), e.getMessage());
        return e;
    }
}
