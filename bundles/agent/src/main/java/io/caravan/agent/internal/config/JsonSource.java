package io.caravan.agent.internal.config;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/** Reads a JSON configuration file into {@link Node}s, keeping every key's and value's line and column. */
public final class JsonSource {
    /** HCL's JSON reader, which Nomad uses, accepts trailing commas; Nomad's own example files have them. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_TRAILING_COMMA).build();

    private JsonSource() {
    }

    public static Node.Obj read(Path file) throws ConfigException {
        return read(file.toString(), () -> JSON.createParser(file.toFile()));
    }

    public static Node.Obj read(String name, String text) throws ConfigException {
        return read(name, () -> JSON.createParser(text));
    }

    private interface Opener {
        JsonParser open() throws IOException;
    }

    private static Node.Obj read(String name, Opener opener) throws ConfigException {
        try (JsonParser p = opener.open()) {
            JsonToken first = p.nextToken();
            if (first == null) {
                return new Node.Obj(Pos.of(name), List.of());
            }
            Node root = value(p, name);
            if (!(root instanceof Node.Obj obj)) {
                throw new ConfigException(root.pos(), "a configuration file must hold a JSON object");
            }
            if (p.nextToken() != null) {
                throw new ConfigException(pos(name, p.currentTokenLocation()), "unexpected content after the object");
            }
            return obj;
        } catch (JsonParseException e) {
            String message = e.getOriginalMessage();
            int newline = message.indexOf('\n');
            throw new ConfigException(pos(name, e.getLocation()), newline < 0 ? message : message.substring(0, newline));
        } catch (IOException e) {
            throw new ConfigException(Pos.of(name), "cannot read: " + e.getMessage());
        }
    }

    private static Node value(JsonParser p, String name) throws IOException {
        Pos at = pos(name, p.currentTokenLocation());
        switch (p.currentToken()) {
            case START_OBJECT: {
                List<Node.Entry> entries = new ArrayList<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    Pos keyPos = pos(name, p.currentTokenLocation());
                    p.nextToken();
                    entries.add(new Node.Entry(key, keyPos, value(p, name)));
                }
                return new Node.Obj(at, entries);
            }
            case START_ARRAY: {
                List<Node> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(value(p, name));
                }
                return new Node.Arr(at, items);
            }
            case VALUE_STRING:
                return new Node.Scalar(at, p.getText());
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return new Node.Scalar(at, p.getDecimalValue());
            case VALUE_TRUE:
                return new Node.Scalar(at, Boolean.TRUE);
            case VALUE_FALSE:
                return new Node.Scalar(at, Boolean.FALSE);
            default:
                return new Node.Scalar(at, null);
        }
    }

    private static Pos pos(String name, JsonLocation location) {
        return location == null ? Pos.of(name) : new Pos(name, location.getLineNr(), location.getColumnNr());
    }
}
