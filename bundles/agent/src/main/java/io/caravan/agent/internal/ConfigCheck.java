package io.caravan.agent.internal;

import java.util.List;
import java.util.Map;

import io.caravan.agent.internal.config.ConfigException;
import io.caravan.agent.internal.config.ConfigLoader;

/** The agent's own load-and-resolve, minus starting anything: what {@code caravan config validate} runs. */
public final class ConfigCheck {
    private ConfigCheck() {
    }

    public static List<String> problems(List<String> paths) {
        try {
            ConfigLoader.Loaded loaded = ConfigLoader.load(false, paths, Map.of());
            AgentSettings.resolve(loaded.config(), false, loaded.files(), null, "validate");
            return List.of();
        } catch (ConfigException e) {
            return e.problems().stream().map(ConfigException.Problem::toString).toList();
        } catch (AgentSettings.InvalidConfigException e) {
            return List.of(e.getMessage());
        }
    }
}
