package io.caravan.agent.internal;

import org.osgi.framework.Bundle;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends OSGi LogService entries (Declarative Services, Config Admin and FileInstall report there) to the agent's
 * log, named after the bundle they concern, so a component that fails to activate shows up where operators look.
 */
@Component(immediate = true)
public final class OsgiLogBridge implements LogListener {
    private final LogReaderService reader;

    @Activate
    public OsgiLogBridge(@Reference LogReaderService reader) {
        this.reader = reader;
        reader.addLogListener(this);
    }

    @Deactivate
    void deactivate() {
        reader.removeLogListener(this);
    }

    @Override
    public void logged(LogEntry entry) {
        // The spec republishes every bundle and service event under "Events.*"; only their problems matter.
        if (entry.getLoggerName() != null && entry.getLoggerName().startsWith("Events.")
                && entry.getLogLevel().implies(org.osgi.service.log.LogLevel.INFO)) {
            return;
        }
        Bundle bundle = entry.getBundle();
        Logger log = LoggerFactory.getLogger(bundle != null && bundle.getSymbolicName() != null
                ? bundle.getSymbolicName() : entry.getLoggerName());
        String message = entry.getMessage();
        Throwable error = entry.getException();
        switch (entry.getLogLevel()) {
            case AUDIT, ERROR -> log.error(message, error);
            case WARN -> log.warn(message, error);
            case INFO -> log.info(message, error);
            case DEBUG -> log.debug(message, error);
            default -> log.trace(message, error);
        }
    }
}
