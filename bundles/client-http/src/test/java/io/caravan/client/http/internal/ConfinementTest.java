package io.caravan.client.http.internal;

import static io.caravan.client.http.internal.ClientFsRoutesTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.caravan.api.CaravanException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every path stays inside the allocation directory: lexically, through symlinks, and against swaps after the check. */
class ConfinementTest extends FsFixture {

    /** Each endpoint that takes a path, asked for {@code rawPath} (a query value, still URL-encoded). */
    private void assertRefusedEverywhere(String rawPath) {
        String q = "path=" + rawPath;
        assertRefused(() -> routes.list(TestRequest.get(ALLOC, q)));
        assertRefused(() -> routes.stat(TestRequest.get(ALLOC, q)));
        assertRefused(() -> routes.cat(TestRequest.get(ALLOC, q)));
        assertRefused(() -> routes.readAt(TestRequest.get(ALLOC, q + "&offset=0")));
        assertRefused(() -> routes.stream(TestRequest.get(ALLOC, q + "&follow=false")));
    }

    private static void assertRefused(ClientFsRoutesTest.Call call) {
        CaravanException e = assertStatus(403, call);
        assertEquals(AllocFs.ESCAPES, e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"../../etc/passwd", "..", "../", "/..", "alloc/../..", "alloc/../../outside/passwd",
            "web/local/../../../outside/passwd", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "%2E%2E/%2E%2E/outside/passwd",
            "./../" + "x", "alloc/data/./../../../"})
    void dotDotEscapesAreRefused(String path) {
        assertRefusedEverywhere(path);
    }

    @Test
    void absolutePathsAreTakenInsideTheAllocationDirectory() throws Exception {
        // As Nomad: "/etc/passwd" means <alloc_dir>/etc/passwd, which does not exist. The host file is never read.
        assertStatus(404, () -> routes.cat(TestRequest.get(ALLOC, "path=/etc/passwd")));
        assertStatus(404, () -> routes.stat(TestRequest.get(ALLOC, "path=/etc/passwd")));
        assertStatus(404, () -> routes.cat(TestRequest.get(ALLOC, "path=" + outside.resolve("passwd"))));
        assertEquals("hello world\n", text(routes.cat(TestRequest.get(ALLOC, "path=/web/local/hello.txt"))));
        assertEquals("hello world\n", text(routes.cat(TestRequest.get(ALLOC, "path=//web//local/./hello.txt"))));
        assertEquals("hello world\n", text(routes.cat(TestRequest.get(ALLOC,
                "path=alloc/../web/local/hello.txt"))));
    }

    @Test
    void aSymlinkToEtcIsRefused() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("alloc/data/etc"), Path.of("/etc"));
        assertRefusedEverywhere("alloc/data/etc");
        assertRefusedEverywhere("alloc/data/etc/passwd");
        assertRefusedEverywhere("alloc/data/etc/does-not-exist");
        // Listed (as the link it is), never followed.
        @SuppressWarnings("unchecked")
        List<AllocFileInfo> data = (List<AllocFileInfo>) routes.list(TestRequest.get(ALLOC, "path=alloc/data"))
                .body();
        AllocFileInfo link = data.stream().filter(f -> f.name().equals("etc")).findFirst().orElseThrow();
        assertTrue(link.fileMode().startsWith("L"), link.fileMode());
        assertFalse(link.isDir());
    }

    @Test
    void aSymlinkedParentDirectoryIsRefused() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("web/local/sub"), outside);
        assertRefusedEverywhere("web/local/sub/passwd");
        assertRefusedEverywhere("web/local/sub/");
        assertRefusedEverywhere("web/local/sub/missing/deeper");
        // The whole task directory as a link to the outside.
        Path task = allocDir.resolve("api");
        Files.createSymbolicLink(task, temp);
        assertRefusedEverywhere("api/outside/passwd");
    }

    @Test
    void aSymlinkedFileLeadingOutIsRefused() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("alloc/data/passwd"), outside.resolve("passwd"));
        Files.createSymbolicLink(allocDir.resolve("alloc/data/up"), Path.of("../../.."));
        assertRefusedEverywhere("alloc/data/passwd");
        assertRefusedEverywhere("alloc/data/up/outside/passwd");
    }

    @Test
    void symlinksThatStayInsideAreFollowed() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("alloc/data/hello"), Path.of("../../web/local/hello.txt"));
        Files.createSymbolicLink(allocDir.resolve("alloc/data/local"), allocDir.resolve("web/local"));
        assertEquals("hello world\n", text(routes.cat(TestRequest.get(ALLOC, "path=alloc/data/hello"))));
        assertEquals("hello world\n", text(routes.cat(TestRequest.get(ALLOC, "path=alloc/data/local/hello.txt"))));
        AllocFileInfo info = (AllocFileInfo) routes.stat(TestRequest.get(ALLOC, "path=alloc/data/hello")).body();
        assertEquals("hello", info.name());
        assertEquals(12, info.size());
        assertEquals(1, ((List<?>) routes.list(TestRequest.get(ALLOC, "path=alloc/data/local")).body()).size());
    }

    @Test
    void aSecretReachedThroughAnInsideLinkIsStillSecret() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("alloc/data/s"), allocDir.resolve("web/secrets"));
        assertStatus(403, () -> routes.cat(TestRequest.get(ALLOC, "path=alloc/data/s/token")));
    }

    @Test
    void aComponentSwappedForALinkAfterTheCheckIsNotFollowed() throws Exception {
        Path dir = Files.createDirectories(allocDir.resolve("alloc/data/d"));
        Files.writeString(dir.resolve("passwd"), "inside", StandardCharsets.UTF_8);
        AllocFs fs = AllocFs.of(ALLOC, allocDir);
        Path real = fs.resolve("alloc/data/d/passwd");
        // The task swaps the directory for a link to the outside between the check and the open.
        Files.move(dir, allocDir.resolve("alloc/data/d2"));
        Files.createSymbolicLink(dir, outside);
        assertRefused(() -> fs.open(real));
        assertRefused(() -> fs.openDir(real.getParent()));
    }

    @Test
    void aFifoIsNeverOpened() throws Exception {
        Path fifo = allocDir.resolve("alloc/data/pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor() == 0, "mkfifo is available");
        // Each of these would block forever if it opened the FIFO.
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            assertStatus(400, () -> routes.cat(TestRequest.get(ALLOC, "path=alloc/data/pipe")));
            assertStatus(400, () -> routes.stream(TestRequest.get(ALLOC, "path=alloc/data/pipe")));
            AllocFileInfo info = (AllocFileInfo) routes.stat(TestRequest.get(ALLOC, "path=alloc/data/pipe")).body();
            assertTrue(info.fileMode().startsWith("p"), info.fileMode());
            Files.move(fifo, allocDir.resolve("alloc/logs/web.stdout.0"));
            assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout")));
        });
    }

    @Test
    void aNulCharacterIsABadRequest() {
        assertStatus(400, () -> routes.cat(TestRequest.get(ALLOC, "path=web/local/hello.txt%00.png")));
    }

    @Test
    void logsRefuseTaskNamesThatAreNotPlainNames() {
        for (String task : new String[] {"..", "../web", "web/..", "a/b", ".", "%2e%2e", "..%2fweb", "a%5cb"}) {
            assertStatus(400, () -> routes.logs(TestRequest.get(ALLOC, "task=" + task + "&type=stdout")));
        }
    }

    @Test
    void logsRefuseALogFileOrLogDirectoryLeadingOut() throws Exception {
        Files.createSymbolicLink(allocDir.resolve("alloc/logs/web.stdout.0"), outside.resolve("passwd"));
        assertRefused(() -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout")));

        Path logs = allocDir.resolve("alloc/logs");
        Files.delete(logs.resolve("web.stdout.0"));
        Files.delete(logs);
        Files.writeString(outside.resolve("web.stdout.0"), "outside", StandardCharsets.UTF_8);
        Files.createSymbolicLink(logs, outside);
        assertRefused(() -> routes.logs(TestRequest.get(ALLOC, "task=web&type=stdout")));
    }
}
