package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import io.caravan.api.model.TaskArtifact;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactArchivesTest {
    @TempDir
    Path dir;

    private final Interpolator none = new Interpolator(Map.of(), null);

    /** The archives are built outside the task's allocation ({@code a}): the client lets artifacts read them. */
    private ArtifactHook hook() {
        return new ArtifactHook(ArtifactSandbox.of(false, List.of("d:r:" + dir)));
    }

    @Test
    void tarGzIsUnpackedIntoTheDestinationKeepingExecutableBits() throws Exception {
        Path src = Files.createDirectories(dir.resolve("src/app/bin"));
        Files.writeString(src.resolve("run.sh"), "#!/bin/sh\necho run\n");
        src.resolve("run.sh").toFile().setExecutable(true);
        Files.writeString(dir.resolve("src/app/README"), "readme");
        Path archive = dir.resolve("app.tar.gz");
        Process tar = new ProcessBuilder("tar", "-czf", archive.toString(), "-C", dir.resolve("src").toString(), "app")
                .inheritIO().start();
        assertEquals(0, tar.waitFor());

        Path taskDir = dir.resolve("a/web");
        hook().fetch(artifact("file://" + archive, Map.of()), none, taskDir);
        assertEquals("readme", Files.readString(taskDir.resolve("local/app/README")));
        assertTrue(Files.isExecutable(taskDir.resolve("local/app/bin/run.sh")));
        assertTrue(Files.notExists(taskDir.resolve("local/app.tar.gz")));
    }

    @Test
    void archiveFalseKeepsTheFileAsItIs() throws Exception {
        Path archive = zip(dir.resolve("x.zip"), "a.txt", "A");
        Path taskDir = dir.resolve("a/web");
        hook().fetch(artifact(archive.toString(), Map.of("archive", "false")), none, taskDir);
        assertTrue(Files.isRegularFile(taskDir.resolve("local/x.zip")));
    }

    @Test
    void zipAndGzAreUnpacked() throws Exception {
        Path taskDir = dir.resolve("a/web");
        hook().fetch(artifact(zip(dir.resolve("conf.zip"), "conf/app.conf", "k=v").toString(), Map.of()),
                none, taskDir);
        assertEquals("k=v", Files.readString(taskDir.resolve("local/conf/app.conf")));

        Path gz = dir.resolve("data.txt.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write("data".getBytes(StandardCharsets.UTF_8));
        }
        hook().fetch(artifact(gz.toString(), Map.of()), none, taskDir);
        assertEquals("data", Files.readString(taskDir.resolve("local/data.txt")));
    }

    @Test
    void zipSlipIsRefused() throws Exception {
        Path evil = zip(dir.resolve("evil.zip"), "../../../escaped.txt", "pwned");
        Path taskDir = dir.resolve("a/web");
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> hook().fetch(artifact(evil.toString(), Map.of()), none, taskDir));
        assertTrue(e.getMessage().contains("escapes the destination"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("escaped.txt")));
        assertThrows(IOException.class, () -> ArtifactArchives.inside(taskDir, "a/../../b"));
        assertEquals(taskDir.resolve("etc/passwd").toAbsolutePath(), ArtifactArchives.inside(taskDir, "/etc/passwd"));
    }

    @Test
    void entriesCannotLeaveThroughASymbolicLinkAlreadyInTheDestination() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Path taskDir = dir.resolve("a/web");
        Files.createDirectories(taskDir.resolve("local"));
        Files.createSymbolicLink(taskDir.resolve("local/conf"), outside);
        Path archive = zip(dir.resolve("conf.zip"), "conf/app.conf", "k=v");
        ArtifactHook.ArtifactException e = assertThrows(ArtifactHook.ArtifactException.class,
                () -> hook().fetch(artifact(archive.toString(), Map.of()), none, taskDir));
        assertTrue(e.getMessage().contains("archive entry escapes the destination through a symbolic link: "
                + "conf/app.conf"), e.getMessage());
        assertTrue(Files.notExists(outside.resolve("app.conf")));
    }

    private static TaskArtifact artifact(String source, Map<String, String> options) {
        return new TaskArtifact(source, options, Map.of(), null, false, null, false);
    }

    private static Path zip(Path file, String entry, String content) throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            zip.putNextEntry(new ZipEntry(entry));
            zip.write(content.getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        return file;
    }
}
