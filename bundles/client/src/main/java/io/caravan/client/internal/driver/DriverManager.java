package io.caravan.client.internal.driver;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.caravan.api.model.DriverInfo;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.TaskDriver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task drivers bound right now, by Nomad name ({@code caravan.driver.name}), and their health as the node
 * reports it ({@code Node.Drivers}). Health is polled at bind and every {@link #POLL_INTERVAL}; the listener hears
 * about a changed {@code Drivers} map (not about a mere new {@code UpdateTime}), and about drivers arriving and
 * leaving so that their tasks can be parked and recovered (a driver bundle update never kills a workload).
 */
public final class DriverManager {
    public static final Duration POLL_INTERVAL = Duration.ofSeconds(15);

    private static final Logger LOG = LoggerFactory.getLogger(DriverManager.class);

    /** What the client does when drivers come, go or change health. */
    public interface Listener {
        void driversChanged(Map<String, DriverInfo> drivers);

        void driverBound(String name);

        void driverUnbound(String name);
    }

    private record Bound(TaskDriver driver, DriverInfo info) {
    }

    private final ScheduledExecutorService scheduler;
    private final Clock clock;
    private final Duration pollInterval;
    private final Listener listener;
    private final Map<String, Bound> drivers = new ConcurrentHashMap<>();
    private ScheduledFuture<?> poller;

    public DriverManager(ScheduledExecutorService scheduler, Clock clock, Duration pollInterval, Listener listener) {
        this.scheduler = scheduler;
        this.clock = clock;
        this.pollInterval = pollInterval;
        this.listener = listener;
    }

    public synchronized void start() {
        poller = scheduler.scheduleWithFixedDelay(this::pollAll, pollInterval.toMillis(), pollInterval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    public synchronized void stop() {
        if (poller != null) {
            poller.cancel(false);
        }
    }

    public Optional<TaskDriver> driver(String name) {
        return Optional.ofNullable(drivers.get(name)).map(Bound::driver);
    }

    /** {@code Node.Drivers}: name → info, sorted. */
    public Map<String, DriverInfo> infos() {
        Map<String, DriverInfo> out = new TreeMap<>();
        drivers.forEach((name, b) -> out.put(name, b.info()));
        return out;
    }

    public void bind(String name, TaskDriver driver) {
        synchronized (this) {
            drivers.put(name, new Bound(driver, check(name, driver, null)));
        }
        LOG.atInfo().addKeyValue("driver", name).log("driver bound");
        listener.driverBound(name);
        listener.driversChanged(infos());
    }

    public void unbind(String name, TaskDriver driver) {
        boolean removed;
        synchronized (this) {
            Bound current = drivers.get(name);
            // A stale unbind (the driver was already replaced under the same name) changes nothing.
            removed = current != null && current.driver() == driver && drivers.remove(name, current);
        }
        if (removed) {
            LOG.atInfo().addKeyValue("driver", name).log("driver unbound; its tasks are parked until it returns");
            listener.driverUnbound(name);
            listener.driversChanged(infos());
        }
    }

    /** Polls every driver; tells the listener once if anything but the update time changed. */
    public void pollAll() {
        boolean changed = false;
        synchronized (this) {
            for (Map.Entry<String, Bound> e : drivers.entrySet()) {
                DriverInfo before = e.getValue().info();
                DriverInfo after = check(e.getKey(), e.getValue().driver(), before);
                if (after != before) {
                    e.setValue(new Bound(e.getValue().driver(), after));
                    changed = true;
                }
            }
        }
        if (changed) {
            listener.driversChanged(infos());
        }
    }

    /** The driver's current info; {@code before} itself when nothing the scheduler reads changed. */
    private DriverInfo check(String name, TaskDriver driver, DriverInfo before) {
        DriverHealth health;
        try {
            health = driver.health();
        } catch (RuntimeException | LinkageError e) {
            health = new DriverHealth(DriverHealth.State.UNHEALTHY, "health check failed: " + e, Map.of());
        }
        boolean detected = health.state() != DriverHealth.State.UNDETECTED;
        boolean healthy = health.state() == DriverHealth.State.HEALTHY;
        if (before != null && before.detected() == detected && before.healthy() == healthy
                && Objects.equals(before.healthDescription(), health.description())
                && before.attributes().equals(health.attributes())) {
            return before;
        }
        if (before != null) {
            LOG.atInfo().addKeyValue("driver", name).addKeyValue("healthy", healthy)
                    .addKeyValue("description", health.description()).log("driver health changed");
        }
        return new DriverInfo(health.attributes(), detected, healthy, health.description(), clock.instant());
    }
}
