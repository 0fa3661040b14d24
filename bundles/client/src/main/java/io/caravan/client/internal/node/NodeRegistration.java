package io.caravan.client.internal.node;

import java.time.Duration;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint.NodeUpdateResponse;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's side of Nomad's register/heartbeat protocol (NOMAD-REFERENCE §3.2–3.4, ARCHITECTURE §5): register,
 * heartbeat within the TTL the server returns (at half of it, plus jitter), register again when the node's
 * attributes or drivers change (debounced) or when the server no longer knows the node, and ask for {@code ready}
 * only once the first allocation sync has been sent. Failures back off exponentially. All timing runs on the
 * client's one scheduler thread; no call blocks it.
 */
public final class NodeRegistration {
    static final Duration REREGISTER_DEBOUNCE = Duration.ofSeconds(1);
    static final Duration MIN_BACKOFF = Duration.ofMillis(500);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    static final Duration MIN_HEARTBEAT_DEADLINE = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(NodeRegistration.class);

    /** What the client does once the server knows the node, and when contact comes back after a loss. */
    public interface Listener {
        void registered();

        /**
         * Heartbeats failed and now succeed again (or the node had to register again): the servers may have marked
         * the node down and will keep it {@code initializing} until it sends its allocations again (ARCHITECTURE §5).
         */
        void reconnected();
    }

    /**
     * Nomad 1.11's credentials around registration: the JWT a registration presents (the client introduction token
     * until the node has registered once, its node identity after), and where the node identities the servers sign
     * go. Called on the client's scheduler thread.
     */
    public interface Credentials {
        Credentials NONE = new Credentials() {
            @Override
            public String registrationToken() {
                return "";
            }

            @Override
            public void registered(String signedIdentity) {
            }
        };

        /** The JWT to present when registering; empty for none. */
        String registrationToken();

        /** A registration or heartbeat succeeded; {@code signedIdentity} is a new node identity, or empty. */
        void registered(String signedIdentity);
    }

    private final ScheduledExecutorService scheduler;
    private final Supplier<Node> node;
    private final Listener listener;
    private final Random random;
    private final Credentials credentials;

    private NodeEndpoint endpoint;
    private boolean running;
    private boolean registered;
    private boolean registering;
    private boolean allocsSynced;
    private boolean nodeChangedWhileRegistering;
    private boolean contactLost;
    private long lastContactNanos; // System.nanoTime() of the last successful heartbeat or registration
    private boolean reregisterDue;
    private String status = Node.STATUS_INITIALIZING;
    private Duration ttl = Duration.ofSeconds(10);
    private Duration backoff = MIN_BACKOFF;
    private ScheduledFuture<?> heartbeat;
    private ScheduledFuture<?> reregister;
    private long generation; // bumped on endpoint change and stop: late answers to older calls are ignored

    public NodeRegistration(ScheduledExecutorService scheduler, Supplier<Node> node, Listener listener,
                            Random random) {
        this(scheduler, node, listener, random, Credentials.NONE);
    }

    public NodeRegistration(ScheduledExecutorService scheduler, Supplier<Node> node, Listener listener,
                            Random random, Credentials credentials) {
        this.scheduler = scheduler;
        this.node = node;
        this.listener = listener;
        this.random = random;
        this.credentials = credentials;
    }

    public synchronized void start() {
        running = true;
        scheduler.execute(this::register);
    }

    public synchronized void stop() {
        running = false;
        generation++;
        cancel(heartbeat);
        cancel(reregister);
    }

    /** A new (or no) endpoint: start over with a registration through it. */
    public synchronized void endpoint(NodeEndpoint endpoint) {
        this.endpoint = endpoint;
        generation++;
        registered = false;
        registering = false;
        cancel(heartbeat);
        if (running && endpoint != null) {
            scheduler.execute(this::register);
        }
    }

    public synchronized NodeEndpoint endpoint() {
        return endpoint;
    }

    public synchronized boolean registered() {
        return registered;
    }

    /** {@link System#nanoTime()} of the last successful registration or heartbeat; 0 before the first. */
    public synchronized long lastContactNanos() {
        return lastContactNanos;
    }

    /** The status the server last accepted from this node. */
    public synchronized String status() {
        return status;
    }

    /** Attributes, resources or drivers changed: register again, once per burst of changes. */
    public synchronized void nodeChanged() {
        if (!running || !registered) {
            nodeChangedWhileRegistering |= registering;
            return; // the pending registration reads the node when it runs
        }
        if (reregister == null || reregister.isDone()) {
            reregister = scheduler.schedule(() -> {
                synchronized (this) {
                    reregisterDue = true;
                    register();
                }
            }, REREGISTER_DEBOUNCE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The first allocation sync has reached the server: the node may now ask to be {@code ready}. */
    public synchronized void allocsSynced() {
        if (!allocsSynced) {
            allocsSynced = true;
            if (registered) {
                scheduleHeartbeat(Duration.ZERO);
            }
        }
    }

    /** Registers unless already registered (start, a new endpoint and retries may all ask). */
    private synchronized void register() {
        if (!running || endpoint == null || registering || registered && !reregisterDue) {
            return;
        }
        reregisterDue = false;
        registering = true;
        nodeChangedWhileRegistering = false;
        long gen = generation;
        NodeEndpoint ep = endpoint;
        try {
            ep.register(node.get(), credentials.registrationToken()).whenCompleteAsync((response, error) -> registered(gen, response, error),
                    scheduler);
        } catch (RuntimeException e) {
            registered(gen, null, e);
        }
    }

    private synchronized void registered(long gen, NodeUpdateResponse response, Throwable error) {
        if (gen != generation || !running) {
            return;
        }
        registering = false;
        if (error != null) {
            LOG.atWarn().addKeyValue("error", cause(error).getMessage()).addKeyValue("retry", backoff)
                    .log("node registration failed");
            scheduler.schedule(this::register, nextBackoff().toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        backoff = MIN_BACKOFF;
        lastContactNanos = System.nanoTime();
        credentials.registered(response.signedIdentity());
        boolean first = !registered;
        registered = true;
        ttl = positive(response.heartbeatTtl());
        LOG.atDebug().addKeyValue("heartbeat_ttl", ttl).log("node registration complete");
        if (first) {
            listener.registered();
        }
        if (contactLost) {
            contactLost = false;
            listener.reconnected();
        }
        scheduleHeartbeat(allocsSynced ? Duration.ZERO : next(ttl));
        if (nodeChangedWhileRegistering) {
            nodeChanged();
        }
        if (reregisterDue) {
            scheduler.execute(this::register); // a change arrived while this registration was in flight
        }
    }

    private synchronized void heartbeat() {
        if (!running || endpoint == null || !registered) {
            return;
        }
        long gen = generation;
        String asked = allocsSynced ? Node.STATUS_READY : Node.STATUS_INITIALIZING;
        Node current = node.get();
        try {
            // Within half the TTL: a heartbeat held by a silent server fails in time for a retry elsewhere.
            Duration deadline = ttl.dividedBy(2).compareTo(MIN_HEARTBEAT_DEADLINE) < 0 ? MIN_HEARTBEAT_DEADLINE
                    : ttl.dividedBy(2);
            BoundedNodeEndpoint.bounded(endpoint.updateStatus(current.id(), current.secretId(), asked), deadline,
                            scheduler)
                    .whenCompleteAsync((response, error) -> heartbeatDone(gen, asked, response, error), scheduler);
        } catch (RuntimeException e) {
            heartbeatDone(gen, asked, null, e);
        }
    }

    private synchronized void heartbeatDone(long gen, String asked, NodeUpdateResponse response, Throwable error) {
        if (gen != generation || !running) {
            return;
        }
        if (error != null) {
            Throwable cause = cause(error);
            contactLost = true;
            if (nodeNotFound(cause)) {
                LOG.atInfo().log("server does not know this node; registering again");
                registered = false;
                scheduler.execute(this::register);
                return;
            }
            Duration retry = nextBackoff();
            Duration capped = retry.compareTo(ttl.dividedBy(2)) > 0 ? ttl.dividedBy(2) : retry;
            LOG.atWarn().addKeyValue("error", cause.getMessage()).addKeyValue("retry", capped).log("heartbeat failed");
            scheduleHeartbeat(capped);
            return;
        }
        backoff = MIN_BACKOFF;
        if (!response.signedIdentity().isEmpty()) {
            credentials.registered(response.signedIdentity());
        }
        long now = System.nanoTime();
        // Late without a failure (a long pause): the servers may have missed the TTL and marked the node down too.
        boolean late = lastContactNanos != 0 && now - lastContactNanos > ttl.toNanos();
        lastContactNanos = now;
        if (contactLost || late) {
            contactLost = false;
            LOG.atInfo().addKeyValue("late", late).log("heartbeats succeed again; resending allocation states");
            listener.reconnected();
        }
        if (!asked.equals(status)) {
            LOG.atInfo().addKeyValue("status", asked).log("node status sent");
        }
        status = asked;
        ttl = positive(response.heartbeatTtl());
        scheduleHeartbeat(next(ttl));
    }

    private void scheduleHeartbeat(Duration delay) {
        cancel(heartbeat);
        heartbeat = scheduler.schedule(this::heartbeat, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Half the TTL plus up to a quarter of it: never later than the TTL, and clients do not beat in step. */
    private Duration next(Duration ttl) {
        long half = ttl.toMillis() / 2;
        return Duration.ofMillis(half + (long) (random.nextDouble() * (ttl.toMillis() / 4.0)));
    }

    private Duration nextBackoff() {
        Duration current = backoff;
        backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
        return current;
    }

    private static Duration positive(Duration ttl) {
        return ttl == null || ttl.isZero() || ttl.isNegative() ? Duration.ofSeconds(10) : ttl;
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    static Throwable cause(Throwable error) {
        Throwable t = error;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static boolean nodeNotFound(Throwable cause) {
        return cause instanceof CaravanException ce && ce.code() == ErrorCode.NOT_FOUND
                || String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT).contains("node not found");
    }
}
