package io.caravan.server.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.acl.AclToken;
import io.caravan.api.timer.SharedTimer;
import io.caravan.state.ChangeListener;
import io.caravan.state.RowChange;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nomad's event broker: turns each applied Raft entry's changed rows into events ({@link Events}), keeps the last
 * {@code event_buffer_size} batches ({@link EventBuffer}) and feeds the subscribers of {@code /v1/event/stream}
 * ({@link EventSubscription}) from a small shared pool, with a heartbeat {@code {}} every 10 seconds. Every server
 * runs one: a follower applies the same entries, so it publishes the same events at the same indexes and serves its
 * own subscribers, as Nomad's servers do.
 *
 * <p>Subscriptions of a token end (Nomad's error, so the client resubscribes and is checked again) when the token is
 * changed, deleted or expires, or when a policy or role it may depend on changes; all of them end when the state is
 * replaced by a snapshot.
 */
@Component(service = EventBroker.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class EventBroker implements ChangeListener, ServerState.AppliedListener {
    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    /** How long the pool keeps a thread with no subscriber work: an agent nobody streams from keeps none. */
    private static final Duration POOL_IDLE = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(EventBroker.class);

    /** The server block's keys (Nomad's names and defaults). */
    @interface Config {
        boolean enable_event_broker() default true;

        int event_buffer_size() default 100;
    }

    /** Who a subscription's token is, to end it when the token or what it grants changes. */
    record TokenWatch(String accessorId, Instant expires, Set<String> policies, boolean hasRoles) {
        static TokenWatch of(AclToken token) {
            return new TokenWatch(token.accessorId(), token.expirationTime(), Set.copyOf(token.policies()),
                    !token.roles().isEmpty());
        }

        /** Whether the ACL event may change what this token grants. */
        boolean affectedBy(Events.Event event) {
            return switch (event.topic()) {
                case Events.ACL_TOKEN -> event.key().equals(accessorId);
                case Events.ACL_POLICY -> policies.contains(event.key()) || hasRoles;
                case Events.ACL_ROLE -> hasRoles;
                default -> false;
            };
        }
    }

    private final ServerState state;
    private final boolean enabled;
    private final EventBuffer buffer;
    private final ScheduledThreadPoolExecutor pool;
    private final ScheduledExecutorService ticker;
    private final Set<EventSubscription> subscribers = ConcurrentHashMap.newKeySet();
    private final AutoCloseable registration;
    private final AtomicBoolean wakePending = new AtomicBoolean();

    // Apply-thread only: the rows the entry being applied changed, until it is reported applied.
    private long changedIndex = -1;
    private List<RowChange> changed;

    @Activate
    public EventBroker(@Reference ServerState state, @Reference SharedTimer shared, Config config) {
        this(state, config.enable_event_broker(), config.event_buffer_size(), HEARTBEAT,
                shared.timer("caravan-events-heartbeat"));
    }

    EventBroker(ServerState state, boolean enabled, int bufferSize, Duration heartbeat) {
        this(state, enabled, bufferSize, heartbeat, null);
    }

    /** @param ticker where the heartbeat sweep is timed (null: on the broker's own pool) */
    private EventBroker(ServerState state, boolean enabled, int bufferSize, Duration heartbeat,
                        ScheduledExecutorService ticker) {
        this.state = state;
        this.enabled = enabled;
        if (bufferSize < 1) {
            LOG.atWarn().addKeyValue("event_buffer_size", bufferSize)
                    .log("event_buffer_size below 1: keeping the latest batch of events only");
        }
        this.buffer = new EventBuffer(Math.max(1, bufferSize));
        AtomicInteger n = new AtomicInteger();
        this.pool = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "caravan-events-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true);
        // Its threads start with the first subscriber's work and end a while after the last subscriber left.
        pool.setKeepAliveTime(POOL_IDLE.toMillis(), TimeUnit.MILLISECONDS);
        pool.allowCoreThreadTimeOut(true);
        this.ticker = ticker == null ? pool : ticker;
        if (enabled) {
            registration = state.store().addChangeListener(this);
            state.addListener(this);
            this.ticker.scheduleAtFixedRate(() -> {
                if (!subscribers.isEmpty()) {
                    run(this::sweep, 0);
                }
            }, heartbeat.toMillis(), heartbeat.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            registration = () -> { };
        }
    }

    /**
     * Another server setting changed (a reload): the broker keeps running with its buffer and subscribers. Its own
     * two keys are marked restart-only in the agent's schema, so the reload report says they wait for a restart.
     */
    @Modified
    void modified() {
        // nothing to change
    }

    @Deactivate
    void deactivate() {
        state.removeListener(this);
        try {
            registration.close();
        } catch (Exception e) {
            LOG.atDebug().addKeyValue("error", e.toString()).log("change listener not removed");
        }
        ticker.shutdownNow();
        pool.shutdownNow();
        for (EventSubscription s : subscribers) {
            s.close("server stopping");
        }
    }

    boolean enabled() {
        return enabled;
    }

    /**
     * A subscription from {@code index} (Nomad's rule: the first batch at or after it still buffered; 0 for the whole
     * buffer). It starts sending when its response starts it.
     */
    EventSubscription subscribe(EventFilter filter, long index, TokenWatch token) {
        return new EventSubscription(this, filter, buffer.cursorFor(Math.max(0, index)), token);
    }

    // ---- fed by the FSM, on the apply thread ----------------------------------------------------------------------

    @Override
    public void committed(long index, List<RowChange> changes) {
        changedIndex = index;
        changed = changes;
    }

    @Override
    public void applied(long index, Command command) {
        if (index != changedIndex) {
            return; // the entry changed nothing
        }
        List<RowChange> changes = changed;
        changed = null;
        changedIndex = -1;
        List<Events.Event> events = Events.of(index, command, changes);
        if (events.isEmpty()) {
            return;
        }
        publish(index, events);
    }

    void publish(long index, List<Events.Event> events) {
        List<EventBuffer.Encoded> encoded = new ArrayList<>(events.size());
        for (Events.Event e : events) {
            encoded.add(new EventBuffer.Encoded(e));
        }
        try {
            buffer.append(index, encoded);
        } catch (IllegalArgumentException e) {
            // Never expected (the log's indexes only grow), and never worth stopping the apply thread for.
            LOG.atError().addKeyValue("index", index).addKeyValue("error", e.getMessage())
                    .log("events not published");
            return;
        }
        if (events.stream().anyMatch(e -> e.topic().startsWith("ACL"))) {
            for (EventSubscription s : subscribers) {
                if (s.token() != null && events.stream().anyMatch(s.token()::affectedBy)) {
                    s.close("its ACL token or policies changed");
                }
            }
        }
        // Waking a thousand subscribers is the pool's work, not the apply thread's; one pending wake-up covers
        // every batch appended before it runs.
        if (!subscribers.isEmpty() && wakePending.compareAndSet(false, true)) {
            run(this::wakeAll, 0);
        }
    }

    private void wakeAll() {
        wakePending.set(false);
        for (EventSubscription s : subscribers) {
            s.wake();
        }
    }

    @Override
    public void restored() {
        // The log was skipped over: the events in between are unknown, so every subscriber must start again.
        changed = null;
        changedIndex = -1;
        buffer.reset();
        for (EventSubscription s : subscribers) {
            s.close("state restored from a snapshot");
        }
    }

    // ---- for subscriptions ----------------------------------------------------------------------------------------

    EventBuffer buffer() {
        return buffer;
    }

    void added(EventSubscription s) {
        subscribers.add(s);
    }

    void removed(EventSubscription s) {
        subscribers.remove(s);
    }

    int subscriberCount() {
        return subscribers.size();
    }

    void run(Runnable task, long delayMillis) {
        try {
            pool.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopping: the subscription's response is closed by deactivate
        }
    }

    /** Every heartbeat: a {@code {}} to each subscriber, and the end of those whose token expired. */
    private void sweep() {
        Instant now = Instant.now();
        for (EventSubscription s : subscribers) {
            TokenWatch token = s.token();
            if (token != null && token.expires() != null && !now.isBefore(token.expires())) {
                s.close("ACL token expired");
            } else {
                s.heartbeat();
            }
        }
    }
}
