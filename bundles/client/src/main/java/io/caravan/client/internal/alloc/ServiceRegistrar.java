package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.caravan.api.model.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the client's service registrations ({@code provider = "nomad"}) to the servers: registrations and removals
 * are queued, the latest word on an ID wins, and a failed send is queued again and retried with backoff, so a
 * registration made while the servers are unreachable arrives once they answer. One call in flight.
 */
public class ServiceRegistrar {
    /** A registrar that registers nothing (tests of runners that do not look at services). */
    public static final ServiceRegistrar NONE = new ServiceRegistrar(null, () -> null) {
        @Override
        public void register(String allocId, List<ServiceRegistration> services) {
        }

        @Override
        public void deregister(List<String> ids) {
        }
    };

    static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(ServiceRegistrar.class);

    private final ScheduledExecutorService scheduler;
    private final Supplier<AllocUpdateBatcher.Target> target;
    private final Map<String, ServiceRegistration> upserts = new LinkedHashMap<>();
    private final Set<String> deletes = new LinkedHashSet<>();
    private final Map<String, Set<String>> byAlloc = new HashMap<>();
    private boolean inFlight;
    private boolean scheduled;
    private Duration backoff = MIN_BACKOFF;

    public ServiceRegistrar(ScheduledExecutorService scheduler, Supplier<AllocUpdateBatcher.Target> target) {
        this.scheduler = scheduler;
        this.target = target;
    }

    /** Registers (or replaces, by ID) services of an allocation. */
    public synchronized void register(String allocId, List<ServiceRegistration> services) {
        for (ServiceRegistration r : services) {
            deletes.remove(r.id());
            upserts.put(r.id(), r);
            byAlloc.computeIfAbsent(allocId, k -> new HashSet<>()).add(r.id());
        }
        schedule(Duration.ZERO);
    }

    public synchronized void deregister(List<String> ids) {
        for (String id : ids) {
            upserts.remove(id);
            deletes.add(id);
            byAlloc.values().forEach(s -> s.remove(id));
        }
        schedule(Duration.ZERO);
    }

    /** Removes every service this client registered for the allocation. */
    public synchronized void deregisterAlloc(String allocId) {
        Set<String> ids = byAlloc.remove(allocId);
        if (ids != null) {
            deregister(new ArrayList<>(ids));
        }
    }

    private void schedule(Duration delay) {
        if (scheduled || inFlight || (upserts.isEmpty() && deletes.isEmpty())) {
            return;
        }
        scheduled = true;
        scheduler.schedule(this::send, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void send() {
        List<ServiceRegistration> up;
        List<String> del;
        AllocUpdateBatcher.Target t = target.get();
        synchronized (this) {
            scheduled = false;
            if (t == null) {
                // Not registered with the servers yet: try again shortly.
                scheduled = true;
                scheduler.schedule(this::send, backoff.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            up = new ArrayList<>(upserts.values());
            del = new ArrayList<>(deletes);
            upserts.clear();
            deletes.clear();
            inFlight = true;
        }
        t.endpoint().updateServices(t.nodeId(), t.secretId(), up, del).whenComplete((index, error) -> {
            synchronized (this) {
                inFlight = false;
                if (error == null) {
                    backoff = MIN_BACKOFF;
                    schedule(Duration.ZERO);
                    return;
                }
                LOG.atWarn().addKeyValue("error", error.toString()).addKeyValue("retry_in", backoff)
                        .log("service registration update failed");
                // What was newer meanwhile wins; the failed rest goes again.
                for (ServiceRegistration r : up) {
                    if (!deletes.contains(r.id())) {
                        upserts.putIfAbsent(r.id(), r);
                    }
                }
                for (String id : del) {
                    if (!upserts.containsKey(id)) {
                        deletes.add(id);
                    }
                }
                Duration wait = backoff;
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
                schedule(wait);
            }
        });
    }
}
