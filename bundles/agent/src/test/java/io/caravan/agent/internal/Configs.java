package io.caravan.agent.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.caravan.agent.internal.config.ConfigLoader;
import io.caravan.agent.internal.config.ConfigView;

/** Test helper: settings from JSON files and flags, through the real loader. */
final class Configs {
    private Configs() {
    }

    /** Settings and the configuration they were resolved from. */
    record Both(AgentSettings settings, ConfigView config) {}

    static AgentSettings settings(Path dir, List<String> flags, String... jsonFiles) throws Exception {
        return both(dir, flags, jsonFiles).settings();
    }

    static Both both(Path dir, List<String> flags, String... jsonFiles) throws Exception {
        List<String> args = new ArrayList<>(flags);
        for (int i = 0; i < jsonFiles.length; i++) {
            Path file = dir.resolve("layer" + i + ".json");
            Files.writeString(file, jsonFiles[i]);
            args.add("-config");
            args.add(file.toString());
        }
        AgentFlags.Parsed parsed = AgentFlags.parse(args);
        ConfigLoader.Loaded loaded = ConfigLoader.load(parsed.dev(), parsed.configPaths(), parsed.layer());
        return new Both(AgentSettings.resolve(loaded.config(), parsed.dev(), loaded.files(), dir.resolve("dev"),
                "host1"), loaded.config());
    }

    static AgentSettings dev(Path dir, String... jsonFiles) throws Exception {
        return settings(dir, List.of("-dev"), jsonFiles);
    }
}
