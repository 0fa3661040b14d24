package io.caravan.client.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import io.caravan.api.json.NomadJson;

/** Decodes a framed stream as a Nomad client does: concatenated JSON objects. */
final class Frames {
    private Frames() {
    }

    static List<JsonNode> parse(byte[] body) {
        List<JsonNode> out = new ArrayList<>();
        if (body.length == 0) {
            return out;
        }
        try (MappingIterator<JsonNode> it = NomadJson.mapper().readerFor(JsonNode.class).readValues(body)) {
            while (it.hasNext()) {
                out.add(it.next());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The data of all frames, in order. */
    static String data(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (JsonNode frame : parse(body)) {
            if (frame.has("Data")) {
                out.writeBytes(Base64.getDecoder().decode(frame.get("Data").asText()));
            }
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Data of possibly incomplete output (a follower mid-stream): only complete frames count. */
    static String dataSoFar(byte[] body) {
        String text = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        int end = text.lastIndexOf('}');
        if (end < 0) {
            return "";
        }
        try {
            return data(text.substring(0, end + 1).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (UncheckedIOException e) {
            return "";
        }
    }
}
