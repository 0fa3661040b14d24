package io.caravan.launcher.log;

import java.io.PrintStream;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The agent's log: one line per event in Nomad's format ({@code 2026-11-22T04:21:52.123+0000 [INFO]  agent: msg:
 * key=value}), to standard output. The level is one process-wide setting that a reload can change at any time.
 * Libraries (Jetty, Felix, Ratis) are held one step quieter than our own code, so {@code -log-level=debug} shows
 * Caravan's debug lines without Jetty's.
 */
public final class AgentLog {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXX");

    private static volatile LogLevel level = LogLevel.parse(System.getProperty("caravan.log.level")).orElse(LogLevel.INFO);
    private static volatile PrintStream out = System.out;

    private AgentLog() {
    }

    public static LogLevel level() {
        return level;
    }

    public static void setLevel(LogLevel newLevel) {
        level = newLevel;
    }

    /** Redirects the log (tests). */
    public static void setOutput(PrintStream stream) {
        out = stream;
    }

    static boolean enabled(LogLevel event, boolean ours) {
        LogLevel threshold = level;
        if (!ours && threshold.ordinal() < LogLevel.WARN.ordinal()) {
            threshold = threshold == LogLevel.TRACE ? LogLevel.INFO : LogLevel.WARN;
        }
        return threshold.admits(event);
    }

    static void write(LogLevel event, String logger, CharSequence message, Throwable error) {
        StringBuilder line = new StringBuilder(64 + message.length());
        line.append(TIME.format(ZonedDateTime.now())).append(" [").append(event.name()).append(']');
        line.append(event.name().length() == 4 ? "  " : " ").append(logger).append(": ").append(message);
        PrintStream stream = out;
        synchronized (stream) {
            stream.println(line);
            if (error != null) {
                error.printStackTrace(stream);
            }
        }
    }
}
