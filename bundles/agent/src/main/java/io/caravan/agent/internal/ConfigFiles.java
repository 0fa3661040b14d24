package io.caravan.agent.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * Reads {@code -config} paths as Nomad does: a file, or a directory whose {@code *.hcl} and {@code *.json} files
 * are read in lexical order (subdirectories and hidden files skipped). Every error names file, line and column.
 *
 * <p>JSON only for now: the keys of {@link AgentConfig}, strictly (an unknown key is an error). HCL files and the
 * rest of Nomad's keys arrive with the configuration issue, on the shared HCL parser.
 */
final class ConfigFiles {
    /** One parsed file, in merge order. */
    record Loaded(Path file, AgentConfig config) {}

    static final class ConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        ConfigException(String message) {
            super(message);
        }
    }

    /** Nomad's JSON wraps blocks in one-element arrays (HCL's JSON form); both shapes are accepted. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.UNWRAP_SINGLE_VALUE_ARRAYS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    private ConfigFiles() {
    }

    static List<Loaded> load(List<String> paths) throws ConfigException {
        List<Loaded> loaded = new ArrayList<>();
        for (String path : paths) {
            for (Path file : expand(Paths.get(path))) {
                loaded.add(new Loaded(file, parse(file)));
            }
        }
        return loaded;
    }

    static List<Path> expand(Path path) throws ConfigException {
        if (Files.isDirectory(path)) {
            try (Stream<Path> files = Files.list(path)) {
                return files.filter(Files::isRegularFile)
                        .filter(f -> !f.getFileName().toString().startsWith("."))
                        .filter(f -> isConfigFile(f.getFileName().toString()))
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new ConfigException("Error loading configuration from " + path + ": " + e.getMessage());
            }
        }
        if (!Files.isRegularFile(path)) {
            throw new ConfigException("Error loading configuration from " + path + ": no such file or directory");
        }
        return List.of(path);
    }

    private static boolean isConfigFile(String name) {
        return name.endsWith(".json") || name.endsWith(".hcl");
    }

    static AgentConfig parse(Path file) throws ConfigException {
        String name = file.getFileName().toString();
        if (name.endsWith(".hcl")) {
            throw new ConfigException(file + ": HCL agent configuration is not supported yet; write it as JSON");
        }
        try {
            AgentConfig config = JSON.readValue(file.toFile(), AgentConfig.class);
            return config == null ? AgentConfig.EMPTY : config;
        } catch (UnrecognizedPropertyException e) {
            String key = keyPath(e);
            throw new ConfigException(where(file, keyLocation(file, key, e.getLocation())) + "unknown key \"" + key
                    + "\"");
        } catch (JsonMappingException e) {
            String key = keyPath(e);
            throw new ConfigException(where(file, keyLocation(file, key, e.getLocation())) + "invalid value for \""
                    + key + "\": " + firstSentence(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new ConfigException(where(file, e.getLocation()) + firstSentence(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new ConfigException("Error loading configuration from " + file + ": " + e.getMessage());
        }
    }

    /**
     * Where a key is written. Jackson reports the end of the enclosing object for records (their creator buffers
     * properties), so a second, streaming pass finds the key itself.
     */
    private static JsonLocation keyLocation(Path file, String key, JsonLocation fallback) {
        try (JsonParser parser = JSON.getFactory().createParser(file.toFile())) {
            // One frame per open container: its key, or "" for the root and array elements (which add no key).
            java.util.Deque<String> frames = new java.util.ArrayDeque<>();
            String pending = "";
            for (JsonToken t = parser.nextToken(); t != null; t = parser.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    pending = parser.currentName();
                    if (key.equals(join(frames, pending))) {
                        return parser.currentTokenLocation();
                    }
                } else if (t.isStructStart()) {
                    frames.addLast(pending);
                    pending = "";
                } else if (t.isStructEnd()) {
                    frames.removeLast();
                } else {
                    pending = "";
                }
            }
        } catch (IOException ignored) {
            // Fall back to Jackson's location.
        }
        return fallback;
    }

    private static String join(java.util.Deque<String> frames, String last) {
        StringBuilder path = new StringBuilder();
        for (String frame : frames) {
            if (!frame.isEmpty()) {
                path.append(frame).append('.');
            }
        }
        return path.append(last).toString();
    }

    private static String where(Path file, JsonLocation location) {
        return location == null ? file + ": "
                : file + ":" + location.getLineNr() + ":" + location.getColumnNr() + ": ";
    }

    private static String keyPath(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
            }
        }
        return path.toString();
    }

    private static String firstSentence(String message) {
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }
}
