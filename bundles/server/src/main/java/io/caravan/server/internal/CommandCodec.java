package io.caravan.server.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    static byte[] encode(Command command) {
        ObjectNode envelope = NomadJson.mapper().createObjectNode();
        envelope.put("Type", command.getClass().getSimpleName());
        envelope.set("Command", NomadJson.mapper().valueToTree(command));
        try {
            return NomadJson.mapper().writeValueAsBytes(envelope);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @throws IllegalArgumentException for an entry no version of this server wrote: a bug, not a user error */
    static Command decode(byte[] entry) {
        try {
            JsonNode envelope = NomadJson.mapper().readTree(entry);
            Class<?> type = TYPES.get(envelope.path("Type").asText());
            if (type == null) {
                throw new IllegalArgumentException("unknown command type " + envelope.path("Type"));
            }
            return (Command) NomadJson.mapper().treeToValue(envelope.get("Command"), type);
        } catch (IOException e) {
            throw new IllegalArgumentException("undecodable log entry: " + e.getMessage(), e);
        }
    }

    static byte[] encodeResult(Command.Result result) {
        try {
            return NomadJson.mapper().writeValueAsBytes(result);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Command.Result decodeResult(byte[] bytes) {
        try {
            return NomadJson.mapper().readValue(bytes, Command.Result.class);
        } catch (IOException e) {
            throw new IllegalStateException("undecodable apply result", e);
        }
    }
}
