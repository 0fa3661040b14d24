package io.caravan.server.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;

/** Typed reads of a request body's optional fields, each refused with a 400 naming the field when ill-typed. */
final class BodyFields {
    private BodyFields() {
    }

    /** An object of strings ({@code Meta}); empty when absent or null. */
    static Map<String, String> strings(JsonNode body, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode m = body.path(field);
        if (m.isMissingNode() || m.isNull()) {
            return out;
        }
        if (!m.isObject()) {
            throw CaravanException.invalid(field, "must be an object of strings");
        }
        for (var e = m.fields(); e.hasNext(); ) {
            var entry = e.next();
            if (!entry.getValue().isTextual()) {
                throw CaravanException.invalid(field + "." + entry.getKey(), "must be a string");
            }
            out.put(entry.getKey(), entry.getValue().asText());
        }
        return out;
    }

    /** A string ({@code Description}); empty when absent or null. */
    static String text(JsonNode body, String field) {
        JsonNode v = body.path(field);
        if (!v.isMissingNode() && !v.isNull() && !v.isTextual()) {
            throw CaravanException.invalid(field, "must be a string");
        }
        return v.asText("");
    }
}
