package io.caravan.agent.config;

import java.util.List;

import io.caravan.agent.internal.ConfigCheck;

/** Reads Nomad agent configuration files as an agent would, and says what is wrong with them. */
public final class ConfigValidation {
    private ConfigValidation() {
    }

    /**
     * @param paths files or directories, merged in order as {@code -config} paths are
     * @return every problem, each as {@code file:line:column: message} where a position is known; empty when valid
     */
    public static List<String> validate(List<String> paths) {
        return ConfigCheck.problems(paths);
    }
}
