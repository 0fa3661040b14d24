package io.caravan.launcher.log;

import java.io.PrintStream;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.event.KeyValuePair;
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
    private static volatile boolean json;
    /** Live readers of the log ({@code /v1/agent/monitor}), each at its own level and format. */
    private static final List<Tap> TAPS = new CopyOnWriteArrayList<>();
    /** The most verbose level a tap asks for; null without taps. Lets a monitor see debug lines the agent omits. */
    private static volatile LogLevel tapFloor;

    /** A reader of the log: lines at {@code level} and above, in the text or JSON format, handed to {@code sink}. */
    private record Tap(LogLevel level, boolean json, Consumer<String> sink) {}

    private AgentLog() {
    }

    public static LogLevel level() {
        return level;
    }

    public static void setLevel(LogLevel newLevel) {
        level = newLevel;
    }

    /** Nomad's {@code log_json}: one JSON object per line, as hclog writes it. */
    public static void setJson(boolean enabled) {
        json = enabled;
    }

    /** Redirects the log (tests). */
    public static void setOutput(PrintStream stream) {
        out = stream;
    }

    /**
     * Hands every line at {@code level} and above, as {@code json} or text lines, to {@code sink} until the returned
     * handle is closed. The sink runs on the logging thread: it must not block (queue and return).
     */
    public static AutoCloseable tap(LogLevel level, boolean json, Consumer<String> sink) {
        Tap tap = new Tap(level, json, sink);
        TAPS.add(tap);
        updateFloor();
        return () -> {
            TAPS.remove(tap);
            updateFloor();
        };
    }

    private static void updateFloor() {
        tapFloor = TAPS.stream().map(Tap::level).min(Comparator.naturalOrder()).orElse(null);
    }

    static boolean enabled(LogLevel event, boolean ours) {
        LogLevel floor = tapFloor;
        return admits(level, event, ours) || floor != null && admits(floor, event, ours);
    }

    private static boolean admits(LogLevel threshold, LogLevel event, boolean ours) {
        if (!ours && threshold.ordinal() < LogLevel.WARN.ordinal()) {
            threshold = threshold == LogLevel.TRACE ? LogLevel.INFO : LogLevel.WARN;
        }
        return threshold.admits(event);
    }

    static void write(LogLevel event, boolean ours, String logger, String message, List<KeyValuePair> pairs,
                      Throwable error) {
        if (admits(level, event, ours)) {
            print(format(event, logger, message, pairs, error, json), error);
        }
        for (Tap tap : TAPS) {
            if (admits(tap.level(), event, ours)) {
                try {
                    tap.sink().accept(format(event, logger, message, pairs, error, tap.json()));
                } catch (RuntimeException e) {
                    // A reader's failure is its own; the log goes on.
                }
            }
        }
    }

    private static void print(String line, Throwable error) {
        PrintStream stream = out;
        synchronized (stream) {
            stream.println(line);
            if (error != null && !json) {
                error.printStackTrace(stream);
            }
        }
    }

    private static String format(LogLevel event, String logger, String message, List<KeyValuePair> pairs,
                                 Throwable error, boolean json) {
        StringBuilder line = new StringBuilder(96 + message.length());
        if (json) {
            line.append("{\"@level\":\"").append(event.name().toLowerCase(Locale.ROOT))
                    .append("\",\"@message\":").append(quote(message))
                    .append(",\"@module\":").append(quote(logger))
                    .append(",\"@timestamp\":\"").append(Instant.now()).append('"');
            for (KeyValuePair pair : pairs) {
                line.append(',').append(quote(pair.key)).append(':').append(quote(String.valueOf(pair.value)));
            }
            if (error != null) {
                line.append(",\"error\":").append(quote(error.toString()));
            }
            line.append('}');
        } else {
            line.append(TIME.format(ZonedDateTime.now())).append(" [").append(event.name()).append(']');
            line.append(event.name().length() == 4 ? "  " : " ").append(logger).append(": ").append(message);
            if (!pairs.isEmpty()) {
                line.append(':');
                for (KeyValuePair pair : pairs) {
                    line.append(' ').append(pair.key).append('=').append(quoteIfNeeded(String.valueOf(pair.value)));
                }
            }
        }
        return line.toString();
    }

    private static String quoteIfNeeded(String value) {
        return value.isEmpty() || value.chars().anyMatch(c -> c == ' ' || c == '"' || c == '=')
                ? '"' + value.replace("\"", "\\\"") + '"'
                : value;
    }

    /** A JSON string literal. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
