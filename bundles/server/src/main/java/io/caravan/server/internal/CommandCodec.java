package io.caravan.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.caravan.api.json.NomadJson;

/**
 * Commands as log entries: {@code {"Type": "JobRegister", "Command": {...}, "RequestID": "<uuid>"}} in Nomad's JSON.
 * The type name is the record's simple name; the table is built from the sealed hierarchy, so no command can be
 * forgotten. The request ID names one logical write through all its retries, so that it applies once
 * ({@link AppliedRequests}); entries written before request IDs existed have none.
 */
final class CommandCodec {
    static final String REQUEST_ID = "RequestID";
    private static final int UUID_CHARS = 36;
    private static final Map<String, Class<?>> TYPES = new HashMap<>();

    /** A decoded log entry: the command and the write it belongs to (null: an entry without one). */
    record Entry(UUID requestId, Command command) {}

    /** An entry this server encoded, kept until it applies; {@code bytes} is what {@link #encode} returned. */
    private record Encoded(byte[] bytes, Entry entry) {}

    /**
     * The leader encodes a write, then Raft hands the same bytes back twice: to the gate ({@link #decode}) and to the
     * apply ({@link #decodeEntry}). Decoding them again cost more CPU than the rest of a register; so the commands
     * this server encoded, or its gate decoded (a write a follower forwarded), are kept by request ID and handed back
     * for entries whose bytes are exactly those
     * (the command is immutable, and decoding its encoding gives an equal one). Bounded in number and in bytes: an
     * entry that never applies (a refused or abandoned write, a plan committed in parts) is dropped with the oldest.
     */
    private static final Kept ENCODED = new Kept(1024, 64L << 20);
    /** Tests set it: every kept command is also decoded and must equal what its bytes decode to. */
    private static final boolean VERIFY = Boolean.getBoolean("caravan.codec.verify");
    /** What ends every entry with a request ID: {@code "RequestID":"<36 characters>"}}. */
    private static final byte[] ID_TAIL = ("\"" + REQUEST_ID + "\":\"").getBytes(StandardCharsets.US_ASCII);

    static {
        for (Class<?> type : Command.class.getPermittedSubclasses()) {
            if (TYPES.put(type.getSimpleName(), type) != null) {
                throw new IllegalStateException("two commands named " + type.getSimpleName());
            }
        }
    }

    private CommandCodec() {
    }

    /**
     * A new write: the command with a fresh random request ID. Encode once and retry the same bytes (as
     * {@link RaftWrites} does), so that every retry carries that ID.
     */
    static byte[] encode(Command command) {
        return encode(UUID.randomUUID(), command);
    }

    /**
     * Streams the envelope: no intermediate JSON tree (tree conversions dominated the register path's CPU).
     *
     * @param requestId the write's request ID; null for none (applied without de-duplication)
     */
    static byte[] encode(UUID requestId, Command command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        try (JsonGenerator g = NomadJson.internalMapper().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("Type", command.getClass().getSimpleName());
            g.writeFieldName("Command");
            NomadJson.internalMapper().writeValue(g, command);
            if (requestId != null) {
                // Last: a server of an older version reads the command and ignores the rest.
                g.writeStringField(REQUEST_ID, requestId.toString());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = out.toByteArray();
        if (requestId != null) {
            ENCODED.put(requestId.toString(), new Encoded(bytes, new Entry(requestId, command)));
        }
        return bytes;
    }

    /**
     * Forgets what {@link #encode} kept for these bytes: the caller will not submit them (a plan too large for one
     * entry is committed in parts, each encoded on its own).
     */
    static void forget(byte[] entry) {
        encodedHere(entry, true);
    }

    /** The encoded entries kept, oldest first, within a count and a byte budget. */
    private static final class Kept {
        private final int maxEntries;
        private final long maxBytes;
        private final java.util.LinkedHashMap<String, Encoded> entries = new java.util.LinkedHashMap<>();
        private long bytes;

        Kept(int maxEntries, long maxBytes) {
            this.maxEntries = maxEntries;
            this.maxBytes = maxBytes;
        }

        synchronized void put(String id, Encoded e) {
            Encoded old = entries.put(id, e);
            bytes += e.bytes().length - (old == null ? 0 : old.bytes().length);
            var oldest = entries.values().iterator();
            while ((entries.size() > maxEntries || bytes > maxBytes) && oldest.hasNext()) {
                bytes -= oldest.next().bytes().length;
                oldest.remove();
            }
        }

        synchronized void putIfAbsent(String id, Encoded e) {
            if (!entries.containsKey(id)) {
                put(id, e);
            }
        }

        synchronized Encoded get(String id) {
            return entries.get(id);
        }

        synchronized Encoded remove(String id) {
            Encoded e = entries.remove(id);
            if (e != null) {
                bytes -= e.bytes().length;
            }
            return e;
        }
    }

    /** The entry this server encoded as exactly these bytes, or null; {@code take} forgets it. */
    private static Entry encodedHere(byte[] entry, boolean take) {
        int idAt = entry.length - 2 - UUID_CHARS;
        if (idAt - ID_TAIL.length < 0 || entry[entry.length - 1] != '}' || entry[entry.length - 2] != '"'
                || !java.util.Arrays.equals(entry, idAt - ID_TAIL.length, idAt, ID_TAIL, 0, ID_TAIL.length)) {
            return null;
        }
        String id = new String(entry, idAt, UUID_CHARS, StandardCharsets.US_ASCII);
        Encoded kept = take ? ENCODED.remove(id) : ENCODED.get(id);
        if (kept == null || !java.util.Arrays.equals(kept.bytes(), entry)) {
            return null;
        }
        if (VERIFY && !same(kept.entry(), read(entry))) {
            throw new IllegalStateException("a kept " + kept.entry().command().getClass().getSimpleName()
                    + " differs from what its entry decodes to");
        }
        return kept.entry();
    }

    /** Equal entries; a record compares an array by identity, so a restore chunk's bytes are compared here. */
    private static boolean same(Entry a, Entry b) {
        return a.equals(b) || java.util.Objects.equals(a.requestId(), b.requestId())
                && a.command() instanceof Command.SnapshotRestoreChunk x
                && b.command() instanceof Command.SnapshotRestoreChunk y && x.restoreId().equals(y.restoreId())
                && x.part() == y.part() && java.util.Arrays.equals(x.data(), y.data());
    }

    /** The command of an entry {@link #encode} wrote; see {@link #decodeEntry}. */
    static Command decode(byte[] entry) {
        Entry here = encodedHere(entry, false);
        if (here == null) {
            // Decoded by the leader's gate (a write another server encoded): its apply takes this one.
            here = read(entry);
            if (here.requestId() != null) {
                ENCODED.putIfAbsent(here.requestId().toString(), new Encoded(entry, here));
            }
        }
        return here.command();
    }

    /**
     * Reads what {@link #encode} wrote ({@code Type} first, {@code Command} second, then the optional
     * {@code RequestID}), binding {@code Command} straight to its record.
     *
     * @throws IllegalArgumentException for bytes that are not one of our commands (whatever Jackson or a record's
     *     constructor threw while reading them), or whose request ID is not a UUID
     */
    static Entry decodeEntry(byte[] entry) {
        Entry here = encodedHere(entry, true);
        return here != null ? here : read(entry);
    }

    private static Entry read(byte[] entry) {
        try (JsonParser p = NomadJson.internalMapper().getFactory().createParser(entry)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "an object");
            expect("Type".equals(p.nextFieldName()), "\"Type\" first");
            Class<?> type = TYPES.get(p.nextTextValue());
            expect(type != null, "a known command type");
            expect("Command".equals(p.nextFieldName()), "\"Command\" second");
            p.nextToken();
            Command command = (Command) NomadJson.internalMapper().readValue(p, type);
            UUID requestId = REQUEST_ID.equals(p.nextFieldName()) ? requestId(p.nextTextValue()) : null;
            return new Entry(requestId, command);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("undecodable log entry: " + e.getMessage(), e);
        }
    }

    /** Only the canonical form: {@link UUID#fromString} also takes short forms such as {@code 1-2-3-4-5}. */
    private static UUID requestId(String text) {
        expect(text != null && text.length() == UUID_CHARS, "a UUID as \"RequestID\"");
        UUID id = UUID.fromString(text);
        expect(id.toString().equals(text), "a UUID as \"RequestID\"");
        return id;
    }

    private static void expect(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("undecodable log entry: expected " + what);
        }
    }

    static byte[] encodeResult(Command.Result result) {
        try {
            return NomadJson.internalMapper().writeValueAsBytes(result);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Command.Result decodeResult(byte[] bytes) {
        try {
            return NomadJson.internalMapper().readValue(bytes, Command.Result.class);
        } catch (IOException e) {
            throw new IllegalStateException("undecodable apply result", e);
        }
    }
}
