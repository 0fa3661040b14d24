package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code operator raft skip-entry}: offline, adds a log index to the file the server reads at start. */
class OperatorRaftSkipEntryCommandTest {
    @TempDir
    Path dataDir;

    @Test
    void addsTheIndexOnceToTheServersSkipFile() throws Exception {
        Path raft = Files.createDirectories(dataDir.resolve("server/raft"));
        Cli.Result first = Cli.run(Map.of(), "operator", "raft", "skip-entry", "-data-dir", dataDir.toString(), "42");
        assertEquals(0, first.code(), first.err());
        assertTrue(first.out().contains("Log entry 42 will be passed over"), first.out());
        Cli.Result again = Cli.run(Map.of(), "operator", "raft", "skip-entry", "-data-dir", dataDir.toString(), "42");
        assertEquals(0, again.code(), again.err());
        Cli.run(Map.of(), "operator", "raft", "skip-entry", "-data-dir", dataDir.toString(), "43");
        assertEquals("42\n43\n", Files.readString(raft.resolve("skip-entries")));
    }

    @Test
    void aDirectoryWithoutARaftLogIsAnError() {
        Cli.Result r = Cli.run(Map.of(), "operator", "raft", "skip-entry", "-data-dir", dataDir.toString(), "7");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("no Raft log at"), r.err());
    }

    @Test
    void theIndexMustBePositive() throws Exception {
        Files.createDirectories(dataDir.resolve("server/raft"));
        Cli.Result r = Cli.run(Map.of(), "operator", "raft", "skip-entry", "-data-dir", dataDir.toString(), "0");
        assertEquals(1, r.code());
    }
}
