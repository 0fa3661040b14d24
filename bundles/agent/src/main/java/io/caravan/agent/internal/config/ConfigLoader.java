package io.caravan.agent.internal.config;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.caravan.agent.UnsupportedKey;

/**
 * Nomad's loading order: the defaults, the {@code -dev} defaults, each {@code -config} path in order (a directory
 * contributes its {@code *.hcl} and {@code *.json} files in lexical order), then the flags. Every file is read and
 * checked before anything is merged, and all problems are reported together, so a load is all or nothing.
 */
public final class ConfigLoader {
    /**
     * The merged configuration, the files it came from, and the keys files and flags set that Caravan does not act
     * on yet (each once, where it was first set).
     */
    public record Loaded(List<Path> files, ConfigView config, List<UnsupportedKey> unsupported) {}

    static final String COMMAND_LINE = "command line";

    private static final Schema.Block ROOT = Schema.nomadAgent().root();

    private ConfigLoader() {
    }

    public static Loaded load(boolean dev, List<String> paths, Map<String, Object> flags) throws ConfigException {
        List<Path> files = new ArrayList<>();
        List<ConfigException.Problem> problems = new ArrayList<>();
        for (String path : paths) {
            try {
                files.addAll(expand(Paths.get(path)));
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            }
        }
        List<Map<String, Object>> layers = new ArrayList<>();
        layers.add(builtin("defaults.json"));
        if (dev) {
            layers.add(builtin("dev-defaults.json"));
        }
        // Only what the operator set is reported, not the built-in defaults.
        Map<String, UnsupportedKey> unsupported = new LinkedHashMap<>();
        List<Decoder.Decoded> sources = new ArrayList<>();
        for (Path file : files) {
            try {
                sources.add(decode(file));
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            }
        }
        try {
            sources.add(Decoder.read((Node.Obj) node(flags, Pos.of(COMMAND_LINE)), ROOT));
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        for (Decoder.Decoded source : sources) {
            layers.add(source.values());
            source.unsupported().forEach(u -> unsupported.putIfAbsent(u.key(), u));
        }
        Map<String, Object> merged = layers.get(0);
        for (Map<String, Object> layer : layers.subList(1, layers.size())) {
            merged = Merger.merge(merged, layer, ROOT);
        }
        return new Loaded(List.copyOf(files), new ConfigView(merged), List.copyOf(unsupported.values()));
    }

    /** Reads and checks one file without an agent ({@code caravan config validate}). */
    public static Map<String, Object> read(Path file) throws ConfigException {
        return decode(file).values();
    }

    private static Decoder.Decoded decode(Path file) throws ConfigException {
        String name = file.getFileName().toString();
        Node.Obj source = name.endsWith(".hcl") ? HclSource.read(file) : JsonSource.read(file);
        return Decoder.read(source, ROOT);
    }

    /** The flags' layer as a source, so the schema checks and reports flags as it does files. */
    private static Node node(Object value, Pos pos) {
        if (value instanceof Map<?, ?> map) {
            List<Node.Entry> entries = new ArrayList<>();
            map.forEach((k, v) -> entries.add(new Node.Entry(k.toString(), pos, node(v, pos))));
            return new Node.Obj(pos, entries);
        }
        if (value instanceof List<?> list) {
            return new Node.Arr(pos, list.stream().map(v -> node(v, pos)).toList());
        }
        return new Node.Scalar(pos, value instanceof Number n ? new BigDecimal(n.toString()) : value);
    }

    static List<Path> expand(Path path) throws ConfigException {
        if (Files.isDirectory(path)) {
            try (Stream<Path> entries = Files.list(path)) {
                return entries.filter(Files::isRegularFile)
                        .filter(f -> !f.getFileName().toString().startsWith("."))
                        .filter(f -> f.toString().endsWith(".hcl") || f.toString().endsWith(".json"))
                        .sorted()
                        .toList();
            } catch (IOException e) {
                throw new ConfigException(Pos.of(path.toString()), "cannot read directory: " + e.getMessage());
            }
        }
        if (!Files.isRegularFile(path)) {
            throw new ConfigException(Pos.of(path.toString()), "no such file or directory");
        }
        return List.of(path);
    }

    private static Map<String, Object> builtin(String resource) {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(resource)) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return Decoder.decode(JsonSource.read(resource, text), ROOT);
        } catch (IOException | ConfigException e) {
            throw new IllegalStateException("built-in configuration " + resource + " is broken", e);
        }
    }
}
