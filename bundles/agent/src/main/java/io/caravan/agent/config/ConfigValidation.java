package io.caravan.agent.config;

import java.util.List;

import io.caravan.agent.UnsupportedKey;
import io.caravan.agent.internal.ConfigCheck;

/** Reads Nomad agent configuration files as an agent would, and says what is wrong with them. */
public final class ConfigValidation {
    private ConfigValidation() {
    }

    /**
     * What a check found.
     *
     * @param problems every problem, each as {@code file:line:column: message} where a position is known; empty when
     *     the files are valid
     * @param unsupported the keys the files set that Caravan does not act on yet (valid, but without effect)
     */
    public record Result(List<String> problems, List<UnsupportedKey> unsupported) {
        public Result {
            problems = List.copyOf(problems);
            unsupported = List.copyOf(unsupported);
        }
    }

    /** @param paths files or directories, merged in order as {@code -config} paths are */
    public static Result check(List<String> paths) {
        return ConfigCheck.check(paths);
    }

    /**
     * @param paths files or directories, merged in order as {@code -config} paths are
     * @return every problem, each as {@code file:line:column: message} where a position is known; empty when valid
     */
    public static List<String> validate(List<String> paths) {
        return check(paths).problems();
    }
}
