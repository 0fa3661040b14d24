package io.caravan.agent.internal;

import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.timer.SharedTimer;
import io.caravan.api.timer.SharedTimers;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * The agent's one {@link SharedTimer}: its thread, {@code caravan-timer}, replaces the one-purpose timer threads the
 * server, client, RPC and telemetry bundles each used to keep. Created with its first user.
 */
@Component(service = SharedTimer.class)
public final class SharedTimerComponent implements SharedTimer {
    private final SharedTimers timers = new SharedTimers();

    @Override
    public ScheduledExecutorService timer(String owner) {
        return timers.timer(owner);
    }

    @Override
    public ScheduledExecutorService worker(String owner) {
        return timers.worker(owner);
    }

    @Deactivate
    void deactivate() {
        timers.close();
    }
}
