package io.caravan.agent.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSIX signal handlers through {@code sun.misc.Signal}, the JDK's only signal API. Closing restores the
 * handlers that were there before, so a stopped agent bundle leaves the JVM as it found it.
 */
final class Signals implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

    private final List<Runnable> restore = new ArrayList<>();

    /** @param handlers signal name without "SIG" → what to do; the handler runs on a JVM signal thread */
    static Signals install(Map<String, Runnable> handlers) {
        Signals signals = new Signals();
        try {
            handlers.forEach((name, action) -> {
                try {
                    sun.misc.Signal signal = new sun.misc.Signal(name);
                    sun.misc.SignalHandler previous = sun.misc.Signal.handle(signal, s -> action.run());
                    signals.restore.add(() -> sun.misc.Signal.handle(signal, previous));
                } catch (IllegalArgumentException e) {
                    LOG.atWarn().addKeyValue("signal", name).addKeyValue("error", e.getMessage())
                            .log("cannot handle signal");
                }
            });
        } catch (NoClassDefFoundError e) {
            LOG.warn("signal handling is not available in this runtime (no sun.misc)");
        }
        return signals;
    }

    @Override
    public void close() {
        restore.forEach(Runnable::run);
        restore.clear();
    }
}
