package io.caravan.launcher.log;

import java.util.List;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.event.KeyValuePair;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventAware;

/** One named logger; key-value pairs from SLF4J's fluent API are written as Nomad writes hclog fields. */
final class AgentLogger extends LegacyAbstractLogger implements LoggingEventAware {
    private static final long serialVersionUID = 1L;

    /**
     * Libraries that log expected events as warnings and errors: Ratis' LifeCycle and log appenders report every failed
     * connection to a peer that is down or not yet started (every 0.1-0.3 s), with a stack trace. Their events show at
     * debug level only.
     */
    private static final List<String> CHATTY = List.of("org.apache.ratis.util.LifeCycle",
            "org.apache.ratis.grpc.server.GrpcLogAppender", "org.apache.ratis.server.leader.LogAppender");

    private final transient String shortName;
    private final transient boolean ours;
    private final transient boolean chatty;

    AgentLogger(String name) {
        this.name = name;
        this.ours = name.startsWith("io.caravan.");
        this.chatty = CHATTY.stream().anyMatch(name::startsWith);
        this.shortName = shorten(name);
    }

    private LogLevel adjust(LogLevel level) {
        return chatty && level.ordinal() > LogLevel.DEBUG.ordinal() ? LogLevel.DEBUG : level;
    }

    /** {@code io.caravan.agent.internal.AgentRuntime} → {@code agent.AgentRuntime}; others keep their name. */
    static String shorten(String name) {
        if (!name.startsWith("io.caravan.")) {
            return name;
        }
        return name.substring("io.caravan.".length()).replace(".internal", "");
    }

    @Override
    public boolean isTraceEnabled() {
        return AgentLog.enabled(adjust(LogLevel.TRACE), ours);
    }

    @Override
    public boolean isDebugEnabled() {
        return AgentLog.enabled(adjust(LogLevel.DEBUG), ours);
    }

    @Override
    public boolean isInfoEnabled() {
        return AgentLog.enabled(adjust(LogLevel.INFO), ours);
    }

    @Override
    public boolean isWarnEnabled() {
        return AgentLog.enabled(adjust(LogLevel.WARN), ours);
    }

    @Override
    public boolean isErrorEnabled() {
        return AgentLog.enabled(adjust(LogLevel.ERROR), ours);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
        AgentLog.write(adjust(map(level)), ours, shortName, MessageFormatter.basicArrayFormat(pattern, args),
                List.of(), t);
    }

    @Override
    public void log(LoggingEvent event) {
        LogLevel level = adjust(map(event.getLevel()));
        if (!AgentLog.enabled(level, ours)) {
            return;
        }
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        AgentLog.write(level, ours, shortName, MessageFormatter.basicArrayFormat(event.getMessage(),
                event.getArgumentArray()), pairs == null ? List.of() : pairs, event.getThrowable());
    }

    private static LogLevel map(Level level) {
        return switch (level) {
            case TRACE -> LogLevel.TRACE;
            case DEBUG -> LogLevel.DEBUG;
            case INFO -> LogLevel.INFO;
            case WARN -> LogLevel.WARN;
            case ERROR -> LogLevel.ERROR;
        };
    }
}
