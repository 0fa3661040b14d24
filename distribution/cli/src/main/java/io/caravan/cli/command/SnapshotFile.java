package io.caravan.cli.command;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;

/**
 * A file {@code GET /v1/operator/snapshot} wrote: the header line {@code caravan-snapshot 1}, one line of JSON metadata
 * (ID, Index, Term, Size, SHA256, Tables), then the state. Checked here the way the server checks it before a restore
 * (header, size, SHA-256), so {@code save} and {@code inspect} catch a bad file early.
 */
record SnapshotFile(JsonNode meta, int stateBytes) {
    static final String HEADER = "caravan-snapshot 1\n";

    /** @throws IllegalArgumentException saying what is wrong */
    static SnapshotFile read(byte[] file) {
        byte[] header = HEADER.getBytes(StandardCharsets.US_ASCII);
        if (file.length < header.length || !Arrays.equals(file, 0, header.length, header, 0, header.length)) {
            throw new IllegalArgumentException("not a Caravan snapshot of a version this command reads");
        }
        int end = -1;
        for (int i = header.length; i < file.length; i++) {
            if (file[i] == '\n') {
                end = i;
                break;
            }
        }
        if (end < 0) {
            throw new IllegalArgumentException("snapshot metadata is missing or truncated");
        }
        JsonNode meta;
        try {
            meta = NomadJson.mapper().readTree(Arrays.copyOfRange(file, header.length, end));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("snapshot metadata is not valid JSON");
        }
        byte[] state = Arrays.copyOfRange(file, end + 1, file.length);
        if (state.length != meta.path("Size").asLong(-1)) {
            throw new IllegalArgumentException("snapshot is truncated or padded: its state has " + state.length
                    + " bytes, its metadata says " + meta.path("Size").asText());
        }
        String sha;
        try {
            sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(state));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        if (!sha.equalsIgnoreCase(meta.path("SHA256").asText())) {
            throw new IllegalArgumentException("snapshot checksum mismatch (SHA-256 " + sha + ", metadata says "
                    + meta.path("SHA256").asText() + ")");
        }
        return new SnapshotFile(meta, state.length);
    }
}
