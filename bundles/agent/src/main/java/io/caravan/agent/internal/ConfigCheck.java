package io.caravan.agent.internal;

import java.util.List;
import java.util.Map;

import io.caravan.agent.config.ConfigValidation;
import io.caravan.agent.internal.config.ConfigException;
import io.caravan.agent.internal.config.ConfigLoader;

/** The agent's own load-and-resolve, minus starting anything: what {@code caravan config validate} runs. */
public final class ConfigCheck {
    private ConfigCheck() {
    }

    public static ConfigValidation.Result check(List<String> paths) {
        try {
            ConfigLoader.Loaded loaded = ConfigLoader.load(false, paths, Map.of());
            AgentSettings.resolve(loaded.config(), false, loaded.files(), null, "validate");
            return new ConfigValidation.Result(List.of(), loaded.unsupported());
        } catch (ConfigException e) {
            return new ConfigValidation.Result(e.problems().stream().map(ConfigException.Problem::toString).toList(),
                    List.of());
        } catch (AgentSettings.InvalidConfigException e) {
            return new ConfigValidation.Result(List.of(e.getMessage()), List.of());
        }
    }
}
