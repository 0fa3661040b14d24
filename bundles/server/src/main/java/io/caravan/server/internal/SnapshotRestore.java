package io.caravan.server.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import io.caravan.state.StateStore;
import io.caravan.state.TableSpec;

/**
 * Restoring a snapshot through the Raft log, so that every server replaces its state at the same entry. The snapshot
 * travels in pieces of at most {@link #PART_BYTES} ({@link Command.SnapshotRestoreChunk}), staged in the
 * {@link #CHUNKS} table (part of the state, so a server that catches up from a Raft snapshot has them too), then one
 * {@link Command.SnapshotRestoreCommit} checks size, SHA-256 and the state stream's own checksum and swaps the whole
 * state at once. Any mismatch rejects the commit and changes nothing: never a half-applied restore.
 *
 * <p>Why not Ratis' own snapshot installation: it moves a snapshot from a leader to a follower that fell behind, at an
 * index of that same log; it has no way to put an outside state in place on every server at one index.
 */
final class SnapshotRestore {
    /** Each piece is base64 in its JSON entry: 1 MiB stays well within {@code Replicator.MAX_COMMAND_BYTES}. */
    static final int PART_BYTES = 1024 * 1024;

    /** One staged piece, keyed {@code restoreId/part} (zero-padded, so the table orders the parts). */
    record Chunk(String restoreId, int part, byte[] data) {
        String key() {
            return key(restoreId, part);
        }

        static String key(String restoreId, int part) {
            return restoreId + "/" + String.format("%08d", part);
        }
    }

    static final TableSpec<Chunk> CHUNKS = TableSpec.of("snapshot_restore_chunks", Chunk.class, Chunk::key);

    private SnapshotRestore() {
    }

    /** The pieces of {@code snapshot}, in order, for one restore. */
    static List<Command> commands(String restoreId, byte[] snapshot) {
        List<Command> commands = new java.util.ArrayList<>();
        int parts = Math.max(1, (snapshot.length + PART_BYTES - 1) / PART_BYTES);
        for (int p = 0; p < parts; p++) {
            int from = p * PART_BYTES;
            commands.add(new Command.SnapshotRestoreChunk(restoreId, p,
                    java.util.Arrays.copyOfRange(snapshot, from, Math.min(snapshot.length, from + PART_BYTES))));
        }
        commands.add(new Command.SnapshotRestoreCommit(restoreId, parts, snapshot.length,
                SnapshotArchive.sha256(snapshot)));
        return commands;
    }

    /** Stages a piece; the first piece of a restore drops any other restore's leftovers. */
    static Command.Result stage(Fsm.Txn txn, Command.SnapshotRestoreChunk chunk) {
        if (chunk.part() == 0) {
            List<String> stale = txn.state().read().all(CHUNKS).map(Chunk::key).toList();
            stale.forEach(key -> txn.state().delete(CHUNKS, key));
        }
        txn.state().put(CHUNKS, new Chunk(chunk.restoreId(), chunk.part(), chunk.data()));
        return Command.Result.ok(txn.index());
    }

    /**
     * Swaps the whole state for the staged snapshot at {@code index}, or rejects (400) and changes nothing. Runs with no
     * transaction open (a restore is the store's single write of this entry).
     */
    static Command.Result commit(StateStore store, long index, Command.SnapshotRestoreCommit commit) {
        List<Chunk> chunks = store.snapshot().prefix(CHUNKS, commit.restoreId() + "/").toList();
        if (chunks.isEmpty()) {
            // The restore replaced the staging table with the snapshot's: a retried commit finds nothing, and the
            // log cannot record its first result across a restore; say both possibilities.
            return Command.Result.rejected(index, 400, "snapshot restore " + commit.restoreId() + ": no parts are "
                    + "staged (it was applied already, or a later restore dropped its parts); nothing was restored");
        }
        if (chunks.size() != commit.parts()) {
            return Command.Result.rejected(index, 400, "snapshot restore " + commit.restoreId() + ": "
                    + chunks.size() + " of " + commit.parts() + " parts staged; nothing was restored");
        }
        ByteArrayOutputStream joined = new ByteArrayOutputStream((int) Math.min(commit.size(), Integer.MAX_VALUE));
        for (Chunk chunk : chunks) {
            joined.writeBytes(chunk.data());
        }
        byte[] state = joined.toByteArray();
        if (state.length != commit.size() || !SnapshotArchive.sha256(state).equalsIgnoreCase(commit.sha256())) {
            return Command.Result.rejected(index, 400, "snapshot restore " + commit.restoreId()
                    + ": the staged parts do not match the snapshot's size and SHA-256; nothing was restored");
        }
        try {
            store.restore(new ByteArrayInputStream(state), NomadTables.codec(), index);
        } catch (IOException e) {
            return Command.Result.rejected(index, 400, "snapshot restore " + commit.restoreId()
                    + ": not a readable state snapshot (" + e.getMessage() + "); nothing was restored");
        }
        return Command.Result.ok(index);
    }
}
