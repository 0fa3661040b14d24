package io.caravan.server.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import io.caravan.api.json.NomadJson;

/**
 * Commands as log entries: {@code {"Type": "JobRegister", "Command": {...}}} in Nomad's JSON. The type name is the
 * record's simple name; the table is built from the sealed hierarchy, so no command can be forgotten.
 */
final class CommandCodec {
    private static final Map<String, Class<?>> TYPES = new HashMap<>();

    static {
        for (Class<?> type : Command.class.getPermittedSubclasses()) {
            if (TYPES.put(type.getSimpleName(), type) != null) {
                throw new IllegalStateException("two commands named " + type.getSimpleName());
            }
        }
    }

    private CommandCodec() {
    }

    /** Streams the envelope: no intermediate JSON tree (tree conversions dominated the register path's CPU). */
    static byte[] encode(Command command) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(512);
        try (com.fasterxml.jackson.core.JsonGenerator g = NomadJson.internalMapper().getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("Type", command.getClass().getSimpleName());
            g.writeFieldName("Command");
            NomadJson.internalMapper().writeValue(g, command);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * Reads what {@link #encode} wrote ({@code Type} first), binding {@code Command} straight to its record.
     *
     * @throws IllegalArgumentException for bytes that are not one of our commands (whatever Jackson or a record's
     *     constructor threw while reading them)
     */
    static Command decode(byte[] entry) {
        try (com.fasterxml.jackson.core.JsonParser p = NomadJson.internalMapper().getFactory().createParser(entry)) {
            expect(p.nextToken() == com.fasterxml.jackson.core.JsonToken.START_OBJECT, "an object");
            expect("Type".equals(p.nextFieldName()), "\"Type\" first");
            Class<?> type = TYPES.get(p.nextTextValue());
            expect(type != null, "a known command type");
            expect("Command".equals(p.nextFieldName()), "\"Command\" second");
            p.nextToken();
            return (Command) NomadJson.internalMapper().readValue(p, type);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("undecodable log entry: " + e.getMessage(), e);
        }
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
