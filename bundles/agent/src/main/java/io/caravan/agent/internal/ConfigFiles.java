package io.caravan.agent.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonLocation;
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
            throw new ConfigException(where(file, e.getLocation()) + "unknown key \"" + keyPath(e) + "\"");
        } catch (JsonMappingException e) {
            throw new ConfigException(where(file, e.getLocation()) + "invalid value for \"" + keyPath(e) + "\": "
                    + firstSentence(e.getOriginalMessage()));
        } catch (JsonProcessingException e) {
            throw new ConfigException(where(file, e.getLocation()) + firstSentence(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new ConfigException("Error loading configuration from " + file + ": " + e.getMessage());
        }
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
