package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A saved archive restored through the log into another server: the whole state is replaced at the commit entry
 * (every table's index becomes that entry's), in several pieces for a large state; a corrupt archive or a commit
 * whose pieces do not match changes nothing.
 */
class SnapshotRestoreTest {
    private final ServerState source = new ServerState();
    private final ServerState target = new ServerState();
    private long targetIndex;

    @AfterEach
    void stop() {
        source.deactivate();
        target.deactivate();
    }

    private static byte[] register(String id, String padding) throws Exception {
        Job job = Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "%s", "Meta": {"padding": "%s"}, "TaskGroups": [{"Name": "web",
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                """.formatted(id, padding)), "global").withSubmitTime(1000);
        return CommandCodec.encode(new Command.JobRegister(job,
                Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 1), false, 0));
    }

    private static boolean hasJob(ServerState server, String id) {
        return server.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", id)).isPresent();
    }

    private Command.Result applyToTarget(Command command) {
        return CommandCodec.decodeResult(target.apply(++targetIndex, 1_000, CommandCodec.encode(command)));
    }

    private List<Command.Result> restoreIntoTarget(byte[] state) {
        List<Command.Result> results = new ArrayList<>();
        for (Command command : SnapshotRestore.commands(UUID.randomUUID().toString(), state)) {
            results.add(applyToTarget(command));
        }
        return results;
    }

    @Test
    void aSavedArchiveReplacesTheWholeStateOfAnotherServerInPieces() throws Exception {
        String padding = "x".repeat(8 * 1024);
        for (int i = 0; i < 200; i++) {   // a few MiB: several pieces
            source.apply(i + 1, 1_000, register("job-" + i, padding));
        }
        target.apply(++targetIndex, 1_000, register("only-on-target", ""));
        AtomicInteger restored = new AtomicInteger();
        target.addListener(new ServerState.AppliedListener() {
            @Override
            public void applied(long index, Command command) {
            }

            @Override
            public void restored() {
                restored.incrementAndGet();
            }
        });

        SnapshotArchive.Read read = SnapshotArchive.read(SnapshotRoutes.archive(source.store().snapshot(), 1));
        assertEquals(200, read.meta().tables().get("jobs"));
        assertEquals(200, read.meta().index());
        List<Command.Result> results = restoreIntoTarget(read.state());

        assertTrue(results.size() >= 3, "several pieces and the commit: " + results.size());
        results.forEach(r -> assertEquals(0, r.errorCode(), r.error()));
        assertTrue(hasJob(target, "job-0") && hasJob(target, "job-199"));
        assertFalse(hasJob(target, "only-on-target"), "the whole state is replaced");
        assertEquals(200, target.store().snapshot().count(NomadTables.JOBS));
        assertEquals(0, target.store().snapshot().count(SnapshotRestore.CHUNKS), "no pieces left staged");
        assertEquals(targetIndex, target.store().snapshot().tableIndex("jobs"), "tables changed at the commit");
        assertEquals(1, restored.get());
        // The log goes on after the restore, though the snapshot's own index (200) is ahead of this log's.
        target.apply(++targetIndex, 1_000, register("after", ""));
        assertTrue(hasJob(target, "after"));
    }

    @Test
    void aCorruptArchiveIsRefusedBeforeAnythingIsWritten() throws Exception {
        source.apply(1, 1_000, register("web", ""));
        byte[] archive = SnapshotRoutes.archive(source.store().snapshot(), 1);
        archive[archive.length - 10] ^= 0x40;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SnapshotArchive.read(archive));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SnapshotArchive.read("{\"Jobs\":[]}".getBytes()));
        byte[] truncated = java.util.Arrays.copyOf(SnapshotRoutes.archive(source.store().snapshot(), 1), 100);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SnapshotArchive.read(truncated)).getMessage()
                .contains("truncated"));
    }

    @Test
    void aCommitWhosePiecesDoNotMatchChangesNothing() throws Exception {
        source.apply(1, 1_000, register("web", ""));
        target.apply(++targetIndex, 1_000, register("only-on-target", ""));
        byte[] state = SnapshotArchive.read(SnapshotRoutes.archive(source.store().snapshot(), 1)).state();
        String id = UUID.randomUUID().toString();
        applyToTarget(new Command.SnapshotRestoreChunk(id, 0, state));
        Command.Result wrongHash = applyToTarget(new Command.SnapshotRestoreCommit(id, 1, state.length,
                "00".repeat(32)));
        assertEquals(400, wrongHash.errorCode());
        Command.Result missingPart = applyToTarget(new Command.SnapshotRestoreCommit(id, 2, state.length,
                SnapshotArchive.sha256(state)));
        assertEquals(400, missingPart.errorCode());
        assertTrue(missingPart.error().contains("1 of 2 parts"), missingPart.error());
        assertTrue(hasJob(target, "only-on-target"));
        assertFalse(hasJob(target, "web"));

        // Pieces that match, but are not a state stream: refused the same way.
        byte[] garbage = "not a state".getBytes();
        String other = UUID.randomUUID().toString();
        applyToTarget(new Command.SnapshotRestoreChunk(other, 0, garbage));
        Command.Result notState = applyToTarget(new Command.SnapshotRestoreCommit(other, 1, garbage.length,
                SnapshotArchive.sha256(garbage)));
        assertEquals(400, notState.errorCode());
        assertTrue(hasJob(target, "only-on-target"));
    }

    /** Through real Raft: every one of three servers ends with the restored state, pieces and all applied in order. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 180, unit = java.util.concurrent.TimeUnit.SECONDS)
    void everyServerOfAClusterRestoresTheSameState(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        String padding = "y".repeat(8 * 1024);
        for (int i = 0; i < 150; i++) {
            source.apply(i + 1, 1_000, register("job-" + i, padding));
        }
        byte[] state = SnapshotArchive.read(SnapshotRoutes.archive(source.store().snapshot(), 1)).state();
        List<ServerState> cluster = List.of(new ServerState(), new ServerState(), new ServerState());
        try (io.caravan.consensus.internal.TestRaftGroup group =
                     io.caravan.consensus.internal.TestRaftGroup.start(dir, cluster)) {
            assertTrue(group.awaitReady(java.time.Duration.ofSeconds(60)), "a leader");
            int leader = java.util.stream.IntStream.range(0, 3).filter(i -> group.server(i).isLeader()).findFirst()
                    .orElseThrow();
            group.server(leader).submit(register("only-in-cluster", "")).toCompletableFuture()
                    .get(30, java.util.concurrent.TimeUnit.SECONDS);
            List<Command> commands = SnapshotRestore.commands(UUID.randomUUID().toString(), state);
            assertTrue(commands.size() > 2, "several pieces");
            for (Command command : commands) {
                byte[] result = group.server(leader).submit(CommandCodec.encode(command)).toCompletableFuture()
                        .get(30, java.util.concurrent.TimeUnit.SECONDS).result();
                assertEquals(0, CommandCodec.decodeResult(result).errorCode());
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            for (ServerState server : cluster) {
                while (!hasJob(server, "job-149") && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(150, server.store().snapshot().count(NomadTables.JOBS));
                assertFalse(hasJob(server, "only-in-cluster"));
                assertEquals(0, server.store().snapshot().count(SnapshotRestore.CHUNKS));
            }
        } finally {
            cluster.forEach(ServerState::deactivate);
        }
    }
}
