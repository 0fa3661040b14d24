package io.caravan.state.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

import io.caravan.state.Codec;
import io.caravan.state.TableSpec;

/**
 * The snapshot stream format, version 1 (all integers big-endian):
 * <pre>
 *   magic "CRVSTATE" (8 bytes), int version
 *   long latestIndex
 *   int tableCount, then per table: UTF name, int rowCount, rowCount × (int length, bytes)   rows by primary key
 *   int indexCount, then per entry: UTF table name, long tableIndex                         the index table
 *   long CRC32 of everything above
 * </pre>
 * Secondary indexes are derived data and are rebuilt on restore rather than stored. Reading builds a complete
 * new {@link Root} and checks the checksum before anything is published, so a bad stream changes nothing.
 */
final class SnapshotFormat {

    private static final long MAGIC = 0x4352565354415445L; // "CRVSTATE"
    private static final int VERSION = 1;

    private SnapshotFormat() {
    }

    static void write(Root root, OutputStream out, Codec codec) throws IOException {
        BufferedOutputStream buffered = new BufferedOutputStream(out, 1 << 16);
        CRC32 crc = new CRC32();
        DataOutputStream d = new DataOutputStream(new CheckedOutputStream(buffered, crc));
        d.writeLong(MAGIC);
        d.writeInt(VERSION);
        d.writeLong(root.latestIndex());
        List<TableState> tables = List.copyOf(root.tables().values());
        d.writeInt(tables.size());
        for (TableState t : tables) {
            d.writeUTF(t.spec().name());
            d.writeInt(t.rows().size());
            for (Map.Entry<String, Object> row : t.rows()) {
                byte[] bytes = codec.encode(t.spec(), row.getValue());
                d.writeInt(bytes.length);
                d.write(bytes);
            }
        }
        d.writeInt(tables.size());
        for (TableState t : tables) {
            d.writeUTF(t.spec().name());
            d.writeLong(t.index());
        }
        d.flush();
        new DataOutputStream(buffered).writeLong(crc.getValue()); // the trailer is not part of its own checksum
        buffered.flush();
    }

    /** Reads a complete root with the given generation; throws if anything is wrong. */
    static Root read(InputStream in, Codec codec, List<TableSpec<?>> specs, long generation) throws IOException {
        Map<String, TableSpec<?>> byName = new HashMap<>();
        specs.forEach(s -> byName.put(s.name(), s));
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        CheckedInputStream checked = new CheckedInputStream(buffered, new CRC32());
        DataInputStream d = new DataInputStream(checked);
        if (d.readLong() != MAGIC) {
            throw new IOException("not a Caravan state snapshot (bad magic)");
        }
        int version = d.readInt();
        if (version != VERSION) {
            throw new IOException("unsupported state snapshot version " + version);
        }
        long latestIndex = d.readLong();

        Map<String, SortedRows> tables = new HashMap<>();
        int tableCount = count(d.readInt(), "table count");
        for (int i = 0; i < tableCount; i++) {
            TableSpec<?> spec = spec(byName, d.readUTF());
            if (tables.put(spec.name(), readRows(d, spec, codec)) != null) {
                throw new IOException("table " + spec.name() + " appears twice");
            }
        }
        Map<String, Long> indexes = new HashMap<>();
        int indexCount = count(d.readInt(), "index count");
        for (int i = 0; i < indexCount; i++) {
            indexes.put(spec(byName, d.readUTF()).name(), d.readLong());
        }
        long computed = checked.getChecksum().getValue();
        long stored = new DataInputStream(buffered).readLong();
        if (computed != stored) {
            throw new IOException("state snapshot checksum mismatch");
        }

        // Only now, with the stream known good, build the trees and indexes.
        Map<String, TableState> states = new HashMap<>();
        for (TableSpec<?> spec : specs) {
            TableState empty = TableState.empty(spec);
            SortedRows rows = tables.get(spec.name());
            long index = indexes.getOrDefault(spec.name(), 0L);
            states.put(spec.name(), rows == null
                    ? empty.at(index)
                    : TableState.fromSorted(empty.spec(), rows.ids(), rows.rows(), index));
        }
        return new Root(Map.copyOf(states), latestIndex, generation);
    }

    /** One table's rows as read, ascending by primary key. */
    private record SortedRows(List<String> ids, List<Object> rows) {
    }

    private static <T> SortedRows readRows(DataInputStream d, TableSpec<T> spec, Codec codec) throws IOException {
        int count = count(d.readInt(), "row count");
        List<String> ids = new ArrayList<>(Math.min(count, 1 << 16)); // a corrupt count must not pre-allocate
        List<Object> rows = new ArrayList<>(Math.min(count, 1 << 16));
        for (int r = 0; r < count; r++) {
            int length = count(d.readInt(), "row length");
            byte[] bytes = d.readNBytes(length); // grows with the data actually present: a bad length cannot OOM us
            if (bytes.length != length) {
                throw new EOFException("state snapshot truncated in table " + spec.name());
            }
            T row;
            try {
                row = spec.type().cast(codec.decode(spec, bytes));
            } catch (RuntimeException e) {
                throw new IOException("cannot decode a row of table " + spec.name() + ": " + e, e);
            }
            if (row == null) {
                throw new IOException("codec decoded a null row in table " + spec.name());
            }
            String id = spec.idOf(row);
            // Rows are written in primary-key order; anything else (including duplicates) is corruption.
            if (!ids.isEmpty() && ids.get(ids.size() - 1).compareTo(id) >= 0) {
                throw new IOException("rows of table " + spec.name() + " out of order at " + id);
            }
            ids.add(id);
            rows.add(row);
        }
        return new SortedRows(ids, rows);
    }

    private static TableSpec<?> spec(Map<String, TableSpec<?>> byName, String name) throws IOException {
        TableSpec<?> spec = byName.get(name);
        if (spec == null) {
            throw new IOException("state snapshot has unknown table " + name);
        }
        return spec;
    }

    private static int count(int n, String what) throws IOException {
        if (n < 0) {
            throw new IOException("state snapshot corrupt: negative " + what);
        }
        return n;
    }
}
