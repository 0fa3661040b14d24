package io.caravan.discover.file.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.caravan.plugin.api.discover.DiscoverString;

class FileDiscovererTest {

    @TempDir
    Path dir;

    private final FileDiscoverer file = new FileDiscoverer();

    @Test
    void readsOneAddressPerLineSkippingCommentsAndBlankLines() throws Exception {
        Path servers = write("""
                # Caravan servers
                10.0.0.1
                10.0.0.2:5000   # custom port

                  nomad-3.example.com  \t
                [2001:db8::1]:4648
                [2001:db8::2]
                2001:db8::3
                10.0.0.1
                """);

        List<String> addresses = file.addresses(Map.of("path", servers.toString()));

        assertEquals(List.of("10.0.0.1:4647", "10.0.0.2:5000", "nomad-3.example.com:4647", "[2001:db8::1]:4648",
                "[2001:db8::2]:4647", "[2001:db8::3]:4647"), addresses);
    }

    @Test
    void portArgumentAppliesOnlyToLinesWithoutAPort() throws Exception {
        Path servers = write("a\nb:1\r\n");
        DiscoverString d = DiscoverString.parse("provider=file path=\"" + servers + "\" port=4648").orElseThrow();

        assertEquals(List.of("a:4648", "b:1"), file.addresses(d.args()));
    }

    @Test
    void theFileIsReadAgainOnEveryLookup() throws Exception {
        Path servers = write("a\n");
        assertEquals(List.of("a:4647"), file.addresses(Map.of("path", servers.toString())));

        Files.writeString(servers, "b\n");
        assertEquals(List.of("b:4647"), file.addresses(Map.of("path", servers.toString())));
    }

    @Test
    void pathsWithSpacesWorkWhenQuoted() throws Exception {
        Path servers = Files.writeString(dir.resolve("my servers"), "x\n");
        DiscoverString d = DiscoverString.parse("provider=file path=\"" + servers + "\"").orElseThrow();

        assertEquals(List.of("x:4647"), file.addresses(d.args()));
    }

    @Test
    void emptyOrCommentOnlyFileYieldsNoAddresses() throws Exception {
        assertEquals(List.of(), file.addresses(Map.of("path", write("").toString())));
        assertEquals(List.of(), file.addresses(Map.of("path", write("# none yet\n\n").toString())));
    }

    @Test
    void missingFileIsAnError() {
        assertThrows(NoSuchFileException.class,
                () -> file.addresses(Map.of("path", dir.resolve("absent").toString())));
    }

    @Test
    void pathIsRequired() {
        assertThrows(IllegalArgumentException.class, () -> file.addresses(Map.of()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a b", "a:", "a:x", "a:0", "a:65536", "[::1", "[::1]x", "[::1]:"})
    void malformedLinesAreRejected(String line) throws IOException {
        Path servers = write(line + "\n");
        assertThrows(IllegalArgumentException.class, () -> file.addresses(Map.of("path", servers.toString())));
    }

    @Test
    void badPortArgumentIsRejected() throws IOException {
        Path servers = write("a\n");
        assertThrows(IllegalArgumentException.class,
                () -> file.addresses(Map.of("path", servers.toString(), "port", "http")));
    }

    private Path write(String content) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "servers", ""), content);
    }
}
