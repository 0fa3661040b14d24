package io.caravan.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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
        return out.toByteArray();
    }

    /** The command of an entry {@link #encode} wrote; see {@link #decodeEntry}. */
    static Command decode(byte[] entry) {
        return decodeEntry(entry).command();
    }

    /**
     * Reads what {@link #encode} wrote ({@code Type} first, {@code Command} second, then the optional
     * {@code RequestID}), binding {@code Command} straight to its record.
     *
     * @throws IllegalArgumentException for bytes that are not one of our commands (whatever Jackson or a record's
     *     constructor threw while reading them), or whose request ID is not a UUID
     */
    static Entry decodeEntry(byte[] entry) {
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
