package io.caravan.agent.internal.config;

import java.util.List;

/** One or more configuration problems, each with its position; the message lists them one per line. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    /** One problem: where and what. */
    public record Problem(Pos pos, String message) {
        @Override
        public String toString() {
            return pos + ": " + message;
        }
    }

    private final transient List<Problem> problems;

    public ConfigException(List<Problem> problems) {
        super(String.join("\n", problems.stream().map(Problem::toString).toList()));
        this.problems = List.copyOf(problems);
    }

    public ConfigException(Pos pos, String message) {
        this(List.of(new Problem(pos, message)));
    }

    public List<Problem> problems() {
        return problems;
    }
}
