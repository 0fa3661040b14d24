package io.caravan.launcher.log;

import java.util.Locale;
import java.util.Optional;

/** Nomad's log levels, most verbose first. */
public enum LogLevel {
    TRACE, DEBUG, INFO, WARN, ERROR, OFF;

    /** Parses a level as Nomad accepts it ({@code -log-level=debug}); empty when it is not one. */
    public static Optional<LogLevel> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String upper = text.trim().toUpperCase(Locale.ROOT);
        if (upper.equals("WARNING")) {
            return Optional.of(WARN);
        }
        for (LogLevel level : values()) {
            if (level.name().equals(upper)) {
                return Optional.of(level);
            }
        }
        return Optional.empty();
    }

    boolean admits(LogLevel event) {
        return this != OFF && event.ordinal() >= ordinal();
    }
}
