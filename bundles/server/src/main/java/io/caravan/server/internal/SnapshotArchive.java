package io.caravan.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.caravan.api.json.NomadJson;

/**
 * The file {@code GET /v1/operator/snapshot} serves and {@code PUT} restores. Nomad's is a gzip'd tar of Raft metadata
 * and state; Caravan's is its own, self-describing, versioned and checksummed:
 * <pre>
 *   "caravan-snapshot 1\n"                 the format and its version
 *   one line of JSON: {@link Meta}, "\n"  index, term, size and SHA-256 of the state, row counts per table
 *   the state store's snapshot stream      itself versioned and CRC-checked (io.caravan.state)
 * </pre>
 * A reader checks the header, the size and the SHA-256 before it looks at the state, so a truncated or altered file is
 * refused before anything is changed.
 */
final class SnapshotArchive {
    static final String HEADER = "caravan-snapshot 1\n";
    static final int VERSION = 1;
    /** The metadata line is small; a longer one is not ours. */
    private static final int MAX_META = 1 << 20;

    /**
     * What the file says of itself ({@code caravan operator snapshot inspect} shows it).
     *
     * @param tables rows per table, as {@code inspect} lists them
     */
    record Meta(@JsonProperty("Version") int version, @JsonProperty("ID") String id,
                @JsonProperty("Index") long index, @JsonProperty("Term") long term,
                @JsonProperty("CreatedMillis") long createdMillis, @JsonProperty("Size") long size,
                @JsonProperty("SHA256") String sha256, @JsonProperty("Tables") Map<String, Integer> tables) {}

    /** A verified archive: its metadata and the state stream it carries. */
    record Read(Meta meta, byte[] state) {}

    private SnapshotArchive() {
    }

    static byte[] write(Meta meta, byte[] state) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(state.length + 1024);
            out.write(HEADER.getBytes(StandardCharsets.US_ASCII));
            out.write(NomadJson.internalMapper().writeValueAsBytes(meta));
            out.write('\n');
            out.write(state);
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Reads and verifies an archive.
     *
     * @throws IllegalArgumentException saying what is wrong (not a snapshot, unknown version, truncated, checksum)
     */
    static Read read(byte[] file) {
        byte[] header = HEADER.getBytes(StandardCharsets.US_ASCII);
        if (file.length < header.length || !Arrays.equals(file, 0, header.length, header, 0, header.length)) {
            if (file.length >= 9 && new String(file, 0, 9, StandardCharsets.US_ASCII).startsWith("caravan-s")) {
                throw new IllegalArgumentException("unsupported snapshot format version: "
                        + new String(file, 0, Math.min(file.length, 32), StandardCharsets.US_ASCII).split("\n")[0]);
            }
            throw new IllegalArgumentException("not a Caravan snapshot (missing '" + HEADER.trim() + "' header)");
        }
        int end = -1;
        for (int i = header.length; i < Math.min(file.length, header.length + MAX_META); i++) {
            if (file[i] == '\n') {
                end = i;
                break;
            }
        }
        if (end < 0) {
            throw new IllegalArgumentException("snapshot metadata is missing or truncated");
        }
        Meta meta;
        try {
            meta = NomadJson.internalMapper().readValue(Arrays.copyOfRange(file, header.length, end), Meta.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("snapshot metadata is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException("snapshot metadata unreadable: " + e.getMessage());
        }
        if (meta.version() != VERSION) {
            throw new IllegalArgumentException("unsupported snapshot version " + meta.version());
        }
        byte[] state = Arrays.copyOfRange(file, end + 1, file.length);
        if (state.length != meta.size()) {
            throw new IllegalArgumentException("snapshot is truncated or padded: its state has " + state.length
                    + " bytes, its metadata says " + meta.size());
        }
        String actual = sha256(state);
        if (!actual.equalsIgnoreCase(String.valueOf(meta.sha256()))) {
            throw new IllegalArgumentException("snapshot checksum mismatch: SHA-256 of its state is " + actual
                    + ", its metadata says " + meta.sha256());
        }
        return new Read(meta, state);
    }
}
