package io.caravan.membership.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.caravan.membership.Member;
import io.caravan.membership.Member.Status;
import io.caravan.membership.Membership;
import io.caravan.membership.MembershipException;

/**
 * One server's gossip: a Jetty core listener on the serf address answering {@code POST /v1/serf/exchange}, and a
 * daemon thread that, every {@link GossipSettings#gossipInterval()}, bumps this member's incarnation (the heartbeat),
 * marks members whose incarnation stood still for {@link GossipSettings#suspectTimeout()} FAILED, reaps long-dead ones,
 * and push-pulls the whole member map with one random other member.
 *
 * <p>Merge rule: a higher incarnation wins (and, unless it says LEFT, makes the member ALIVE here, since only the
 * member itself raises it); at an equal incarnation LEFT wins over anything. FAILED is this server's own opinion and is
 * never taken from others for a member we already know. A member told that it is LEFT or FAILED at its current
 * incarnation or later refutes it by jumping past that incarnation (a restarted server also starts from the wall
 * clock, so it is ahead of its previous life).
 *
 * <p>Use: {@code new Gossip(settings)}, {@link #start()}, then {@link #join}; {@link #close()} stops it (no leave).
 */
public final class Gossip implements Membership, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Gossip.class);
    /** Every n-th round gossips with a FAILED member instead of an alive one, so healed partitions merge again. */
    private static final int FAILED_PROBE_EVERY = 5;

    private final GossipSettings settings;
    private final GossipKey key;
    private final Object lock = new Object();
    private final Map<String, Entry> members = new HashMap<>();          // guarded by lock
    private final Map<String, Tombstone> reaped = new HashMap<>();       // guarded by lock
    private final List<Consumer<List<Member>>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicInteger rounds = new AtomicInteger();

    private volatile Member self;        // written under lock
    private boolean left;                // guarded by lock
    private boolean closed;              // guarded by lock
    private Server server;
    private ScheduledExecutorService scheduler;
    private final ScheduledExecutorService sharedTimer;
    private ScheduledFuture<?> task;
    private ExecutorService notifier;
    private ExecutorService httpExecutor;
    private Supplier<HttpClient> http;
    private final Object clientLock = new Object();
    private HttpClient client;

    public Gossip(GossipSettings settings) {
        this(settings, null);
    }

    /**
     * @param timer where the rounds run (the agent's shared timer: a round sends without waiting), or null for a
     *     thread of its own
     */
    public Gossip(GossipSettings settings, ScheduledExecutorService timer) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.key = GossipKey.parse(settings.encrypt());
        this.sharedTimer = timer;
    }

    /**
     * Binds the serf listener and starts gossiping.
     *
     * @throws IOException when the serf address cannot be bound (the message names it)
     */
    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        HostPort bind = settings.bindAddress();
        QueuedThreadPool pool = new QueuedThreadPool(16, 1);   // min 1: the selector; workers come when needed
        pool.setName("caravan-serf-http");
        pool.setDaemon(true);
        Server jetty = new Server(pool);
        ServerConnector connector = new ServerConnector(jetty, 0, 1);   // the selector accepts: no acceptor thread
        connector.setHost(bind.host());
        connector.setPort(bind.port());
        connector.setIdleTimeout(30_000);
        jetty.addConnector(connector);
        jetty.setHandler(new ExchangeHandler());
        try {
            jetty.start();
        } catch (Exception e) {
            stopQuietly(jetty);
            Throwable cause = e;
            while (cause.getCause() != null && !(cause instanceof BindException)) {
                cause = cause.getCause();
            }
            String why = cause instanceof BindException ? "address already in use or not available: " + cause.getMessage()
                    : String.valueOf(e.getMessage());
            throw new IOException("cannot listen for serf gossip on " + bind + ": " + why, e);
        }
        this.server = jetty;
        HostPort advertise = settings.advertise() == null || settings.advertise().isBlank() ? bind
                : HostPort.parse(settings.advertise(), bind.port());
        if (advertise.port() == 0) {
            advertise = advertise.withPort(connector.getLocalPort());
        }
        synchronized (lock) {
            self = new Member(settings.name(), advertise.toString(), Status.ALIVE, settings.tags(),
                    System.currentTimeMillis());
            Entry e = new Entry(self, System.nanoTime());
            members.put(self.name(), e);
        }
        httpExecutor = Executors.newCachedThreadPool(daemon("caravan-serf-client"));
        // Built at the first exchange: a JDK client holds a selector thread, and a server alone never sends one.
        http = () -> HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(settings.httpTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(httpExecutor)
                .build();
        notifier = Executors.newSingleThreadExecutor(daemon("caravan-serf-events"));
        scheduler = sharedTimer != null ? sharedTimer
                : Executors.newSingleThreadScheduledExecutor(daemon("caravan-serf-gossip"));
        long every = settings.gossipInterval().toMillis();
        task = scheduler.scheduleWithFixedDelay(this::round, every, every, TimeUnit.MILLISECONDS);
        LOG.info("Serf gossip for {} listening on {} (advertised {}){}", settings.name(), bind, advertise,
                key == null ? "" : ", encrypted");
        fireChanged();
    }

    /** The port the serf listener is bound to (useful with port 0). */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }

    /** Stops gossip and the listener, without leaving: the others will see this member FAILED. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
        synchronized (this) {
            if (task != null) {
                task.cancel(false);
            }
            shutdown(scheduler);
            shutdown(notifier);
            if (server != null) {
                stopQuietly(server);
            }
            shutdown(httpExecutor);
        }
    }

    // ---------------------------------------------------------------- Membership

    @Override
    public Member self() {
        synchronized (lock) {
            requireStarted();
            return self;
        }
    }

    @Override
    public void setTags(Map<String, String> tags) {
        synchronized (lock) {
            requireStarted();
            Map<String, String> merged = new java.util.TreeMap<>(self.tags());
            tags.forEach((k, v) -> {
                if (v == null) {
                    merged.remove(k);
                } else {
                    merged.put(k, v);
                }
            });
            if (merged.equals(self.tags())) {
                return;
            }
            self = new Member(self.name(), self.address(), self.status(), merged, self.incarnation() + 1);
            members.get(self.name()).member = self;
        }
        fireChanged();
    }

    @Override
    public List<Member> members() {
        synchronized (lock) {
            requireStarted();
            List<Member> out = new ArrayList<>(members.size());
            for (Entry e : members.values()) {
                out.add(e.member);
            }
            out.sort(Comparator.comparing(Member::name));
            return List.copyOf(out);
        }
    }

    @Override
    public int join(List<String> addresses) throws MembershipException {
        requireStarted();
        if (addresses == null || addresses.isEmpty()) {
            throw new MembershipException("no addresses to join");
        }
        Map<String, CompletableFuture<Void>> attempts = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        for (String address : addresses) {
            HostPort target;
            try {
                target = HostPort.parse(address, DEFAULT_PORT);
            } catch (IllegalArgumentException e) {
                failures.put(address, e.getMessage());
                continue;
            }
            attempts.put(address, exchangeAsync(target));
        }
        int answered = 0;
        for (Map.Entry<String, CompletableFuture<Void>> a : attempts.entrySet()) {
            try {
                a.getValue().get(settings.httpTimeout().toMillis() * 2 + 1000, TimeUnit.MILLISECONDS);
                answered++;
            } catch (ExecutionException e) {
                failures.put(a.getKey(), reason(e.getCause()));
            } catch (TimeoutException e) {
                a.getValue().cancel(true);
                failures.put(a.getKey(), "timed out");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MembershipException("interrupted while joining");
            }
        }
        if (answered == 0) {
            StringBuilder msg = new StringBuilder("Failed to join any nodes: ");
            String sep = "";
            for (Map.Entry<String, String> f : failures.entrySet()) {
                msg.append(sep).append(f.getKey()).append(": ").append(f.getValue());
                sep = "; ";
            }
            throw new MembershipException(msg.toString());
        }
        for (Map.Entry<String, String> f : failures.entrySet()) {
            LOG.warn("Serf join: {} did not answer: {}", f.getKey(), f.getValue());
        }
        return answered;
    }

    @Override
    public void leave() {
        List<HostPort> targets = new ArrayList<>();
        synchronized (lock) {
            requireStarted();
            if (left) {
                return;
            }
            left = true;
            self = new Member(self.name(), self.address(), Status.LEFT, self.tags(), self.incarnation() + 1);
            Entry mine = members.get(self.name());
            mine.member = self;
            mine.statusSince = System.nanoTime();
            for (Entry e : members.values()) {
                if (e.member.status() == Status.ALIVE && !e.member.name().equals(self.name())) {
                    try {
                        targets.add(HostPort.parse(e.member.address(), DEFAULT_PORT));
                    } catch (IllegalArgumentException ignored) {
                        // a malformed address gossiped by someone else: nothing to tell
                    }
                }
            }
        }
        synchronized (this) {
            if (task != null) {
                task.cancel(false);
            }
        }
        LOG.info("Serf: {} leaving; telling {} member(s)", settings.name(), targets.size());
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (HostPort t : targets) {
            sent.add(exchangeAsync(t));
        }
        for (CompletableFuture<Void> f : sent) {
            try {
                f.get(settings.httpTimeout().toMillis() * 2 + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("Serf leave: a member did not answer", e);
            }
        }
        fireChanged();
    }

    @Override
    public boolean forceLeave(String name) {
        boolean changed = false;
        boolean result;
        synchronized (lock) {
            requireStarted();
            Entry e = members.get(name);
            if (e == null || name.equals(self.name())) {
                result = false;
            } else if (e.member.status() == Status.LEFT) {
                result = true;
            } else if (e.member.status() == Status.FAILED) {
                e.setStatus(Status.LEFT, System.nanoTime());
                changed = true;
                result = true;
            } else {
                result = false;
            }
        }
        if (changed) {
            LOG.info("Serf: force-leave {}: failed -> left", name);
            fireChanged();
        }
        return result;
    }

    @Override
    public void addListener(Consumer<List<Member>> onChange) {
        listeners.add(Objects.requireNonNull(onChange));
    }

    @Override
    public void removeListener(Consumer<List<Member>> onChange) {
        listeners.remove(onChange);
    }

    // ---------------------------------------------------------------- gossip round

    private void round() {
        try {
            HostPort target = null;
            boolean changed = false;
            long now = System.nanoTime();
            synchronized (lock) {
                if (left || closed) {
                    return;
                }
                self = new Member(self.name(), self.address(), Status.ALIVE, self.tags(), self.incarnation() + 1);
                Entry mine = members.get(self.name());
                mine.member = self;
                mine.lastAdvance = now;
                changed |= detectFailures(now);
                changed |= reap(now);
                target = pickTarget(rounds.incrementAndGet() % FAILED_PROBE_EVERY == 0);
            }
            if (changed) {
                fireChanged();
            }
            if (target != null) {
                // Not awaited: a slow or black-holed member must not hold back our own heartbeat. The HTTP timeouts
                // bound how many exchanges can be in flight (about httpTimeout / gossipInterval).
                HostPort to = target;
                exchangeAsync(to).whenComplete((ok, failure) -> {
                    if (failure != null) {
                        LOG.debug("Serf gossip with {} failed: {}", to, reason(failure));
                    }
                });
            }
        } catch (RuntimeException | Error e) {
            LOG.warn("Serf gossip round failed", e);
        }
    }

    /** Guarded by lock. */
    private boolean detectFailures(long now) {
        boolean changed = false;
        long suspect = settings.suspectTimeout().toNanos();
        for (Entry e : members.values()) {
            if (e.member.status() == Status.ALIVE && !e.member.name().equals(self.name())
                    && now - e.lastAdvance > suspect) {
                LOG.info("Serf: member {} failed (no heartbeat for {} ms)", e.member.name(),
                        TimeUnit.NANOSECONDS.toMillis(now - e.lastAdvance));
                e.setStatus(Status.FAILED, now);
                changed = true;
            }
        }
        return changed;
    }

    /** Guarded by lock. */
    private boolean reap(long now) {
        boolean changed = false;
        long after = settings.reapAfter().toNanos();
        for (Iterator<Entry> it = members.values().iterator(); it.hasNext();) {
            Entry e = it.next();
            if (e.member.status() != Status.ALIVE && !e.member.name().equals(self.name())
                    && now - e.statusSince > after) {
                LOG.info("Serf: reaping {} member {}", e.member.status().wireName(), e.member.name());
                reaped.put(e.member.name(), new Tombstone(e.member.incarnation(), now));
                it.remove();
                changed = true;
            }
        }
        reaped.values().removeIf(t -> now - t.since > after);
        return changed;
    }

    /** Guarded by lock. A random alive other member; a failed one instead when asked, or when none is alive. */
    private HostPort pickTarget(boolean preferFailed) {
        List<Member> alive = new ArrayList<>();
        List<Member> failed = new ArrayList<>();
        for (Entry e : members.values()) {
            if (e.member.name().equals(self.name())) {
                continue;
            }
            if (e.member.status() == Status.ALIVE) {
                alive.add(e.member);
            } else if (e.member.status() == Status.FAILED) {
                failed.add(e.member);
            }
        }
        List<Member> from = (preferFailed && !failed.isEmpty()) || alive.isEmpty() ? failed : alive;
        if (from.isEmpty()) {
            return null;
        }
        Member m = from.get(ThreadLocalRandom.current().nextInt(from.size()));
        try {
            return HostPort.parse(m.address(), DEFAULT_PORT);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- merge

    /** Merges a received member map; returns whether anything a listener cares about changed. */
    private boolean merge(List<Wire.WireMember> received) {
        boolean changed = false;
        long now = System.nanoTime();
        synchronized (lock) {
            for (Wire.WireMember w : received) {
                Member m = w.toMember();
                if (m.name().equals(self.name())) {
                    refute(m);
                    continue;
                }
                Tombstone t = reaped.get(m.name());
                if (t != null) {
                    if (m.incarnation() <= t.incarnation) {
                        continue;
                    }
                    reaped.remove(m.name());
                }
                Entry e = members.get(m.name());
                if (e == null) {
                    members.put(m.name(), new Entry(m, now));
                    LOG.info("Serf: member {} joined ({} at {})", m.name(), m.status().wireName(), m.address());
                    changed = true;
                } else if (m.incarnation() > e.member.incarnation()) {
                    Status status = m.status() == Status.LEFT ? Status.LEFT : Status.ALIVE;
                    Member old = e.member;
                    e.member = new Member(m.name(), m.address(), status, m.tags(), m.incarnation());
                    e.lastAdvance = now;
                    if (old.status() != status) {
                        e.statusSince = now;
                        LOG.info("Serf: member {} {} -> {}", m.name(), old.status().wireName(), status.wireName());
                        changed = true;
                    }
                    changed |= !old.tags().equals(m.tags()) || !old.address().equals(m.address());
                } else if (m.incarnation() == e.member.incarnation() && m.status() == Status.LEFT
                        && e.member.status() != Status.LEFT) {
                    LOG.info("Serf: member {} {} -> left", m.name(), e.member.status().wireName());
                    e.setStatus(Status.LEFT, now);
                    changed = true;
                }
            }
        }
        return changed;
    }

    /** Guarded by lock: someone says we are LEFT or FAILED; unless we left, jump past that incarnation. */
    private void refute(Member claim) {
        if (left || closed || claim.status() == Status.ALIVE && claim.incarnation() <= self.incarnation()) {
            return;
        }
        if (claim.incarnation() >= self.incarnation()) {
            self = new Member(self.name(), self.address(), Status.ALIVE, self.tags(), claim.incarnation() + 1);
            members.get(self.name()).member = self;
        }
    }

    /** Guarded by lock. */
    private List<Member> snapshot() {
        List<Member> out = new ArrayList<>(members.size());
        for (Entry e : members.values()) {
            out.add(e.member);
        }
        return out;
    }

    private void fireChanged() {
        if (listeners.isEmpty()) {
            return;
        }
        ExecutorService n = notifier;
        if (n == null || n.isShutdown()) {
            return;
        }
        try {
            n.execute(() -> {
                List<Member> now = members();
                for (Consumer<List<Member>> l : listeners) {
                    try {
                        l.accept(now);
                    } catch (RuntimeException e) {
                        LOG.warn("Membership listener failed", e);
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    // ---------------------------------------------------------------- client side

    private HttpClient client() {
        synchronized (clientLock) {   // not this: start and stop hold it while they wait for other locks
            if (client == null) {
                client = http.get();
            }
            return client;
        }
    }

    private CompletableFuture<Void> exchangeAsync(HostPort target) {
        byte[] plain;
        synchronized (lock) {
            plain = Wire.encode(self.name(), snapshot());
        }
        byte[] body = key == null ? plain : key.seal(plain, Wire.PATH);
        URI uri;
        try {
            uri = URI.create("http://" + target + Wire.PATH);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new ExchangeException("bad address " + target));
        }
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(settings.httpTimeout())
                .header("Content-Type", key == null ? Wire.PLAIN_TYPE : Wire.SEALED_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return client().sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            if (response.statusCode() == 403) {
                throw new ExchangeException("wrong gossip key (" + target
                        + " rejected our message: wrong or missing encrypt key)");
            }
            if (response.statusCode() != 200) {
                throw new ExchangeException("HTTP " + response.statusCode() + " from " + target
                        + " (is it a Caravan server's serf port?)");
            }
            String type = response.headers().firstValue("Content-Type").orElse("");
            byte[] answer = response.body();
            if (key != null) {
                if (!type.startsWith(Wire.SEALED_TYPE)) {
                    throw new ExchangeException("wrong gossip key (" + target + " answered without encryption)");
                }
                try {
                    answer = key.open(answer, Wire.PATH);
                } catch (GeneralSecurityException e) {
                    throw new ExchangeException("wrong gossip key (the answer from " + target
                            + " failed authentication)");
                }
            } else if (type.startsWith(Wire.SEALED_TYPE)) {
                throw new ExchangeException("wrong gossip key (" + target + " answered encrypted; no encrypt key here)");
            }
            Wire.Exchange exchange;
            try {
                exchange = Wire.decode(answer);
            } catch (IOException e) {
                throw new ExchangeException("malformed answer from " + target + ": " + e.getMessage());
            }
            if (merge(exchange.members())) {
                fireChanged();
            }
            return null;
        });
    }

    private static String reason(Throwable t) {
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof ExchangeException) {
            return t.getMessage();
        }
        if (t instanceof HttpTimeoutException) {
            return "timed out";
        }
        if (t instanceof ConnectException) {
            return "connection refused or unreachable";
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }

    // ---------------------------------------------------------------- server side

    /** {@code POST /v1/serf/exchange}: merge their map, answer with ours. */
    private final class ExchangeHandler extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            if (!Wire.PATH.equals(Request.getPathInContext(request))) {
                return error(response, callback, 404, "not found");
            }
            if (!"POST".equals(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ALLOW, "POST");
                return error(response, callback, 405, "method not allowed");
            }
            String remote = Request.getRemoteAddr(request) + ":" + Request.getRemotePort(request);
            byte[] body;
            try (InputStream in = Content.Source.asInputStream(request)) {
                body = in.readNBytes(Wire.MAX_BODY + 1);
            }
            if (body.length > Wire.MAX_BODY) {
                return error(response, callback, 413, "gossip message too large");
            }
            String type = Objects.requireNonNullElse(request.getHeaders().get(HttpHeader.CONTENT_TYPE), "");
            boolean sealed = type.startsWith(Wire.SEALED_TYPE);
            byte[] plain = body;
            boolean authentic = key == null ? !sealed : sealed;
            if (authentic && key != null) {
                try {
                    plain = key.open(body, Wire.PATH);
                } catch (GeneralSecurityException e) {
                    authentic = false;
                }
            }
            if (!authentic) {
                LOG.warn("gossip message from {} failed authentication (wrong or missing encrypt key)", remote);
                return error(response, callback, 403, "gossip message failed authentication");
            }
            Wire.Exchange exchange;
            try {
                exchange = Wire.decode(plain);
            } catch (IOException e) {
                LOG.warn("malformed gossip message from {}: {}", remote, e.getMessage());
                return error(response, callback, 400, "malformed gossip message");
            }
            boolean changed;
            byte[] answer;
            synchronized (lock) {
                if (closed) {
                    return error(response, callback, 503, "shutting down");
                }
                changed = merge(exchange.members());
                answer = Wire.encode(self.name(), snapshot());
            }
            if (changed) {
                fireChanged();
            }
            byte[] out = key == null ? answer : key.seal(answer, Wire.PATH);
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, key == null ? Wire.PLAIN_TYPE : Wire.SEALED_TYPE);
            response.write(true, ByteBuffer.wrap(out), callback);
            return true;
        }

        private boolean error(Response response, Callback callback, int status, String message) {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
            Content.Sink.write(response, true, message + "\n", callback);
            return true;
        }
    }

    // ---------------------------------------------------------------- helpers

    private void requireStarted() {
        if (self == null) {
            throw new IllegalStateException("gossip not started");
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static void shutdown(ExecutorService e) {
        if (e == null) {
            return;
        }
        e.shutdownNow();
        try {
            e.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
    }

    private static void stopQuietly(Server s) {
        try {
            s.stop();
        } catch (Exception e) {
            LOG.debug("Stopping the serf listener failed", e);
        }
    }

    /** One exchange's failure, with the reason join() reports. */
    private static final class ExchangeException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExchangeException(String message) {
            super(message, null, false, false);
        }
    }

    private static final class Entry {
        Member member;
        long lastAdvance;   // nanoTime when the incarnation last rose (or first seen)
        long statusSince;   // nanoTime of the last status change

        Entry(Member member, long now) {
            this.member = member;
            this.lastAdvance = now;
            this.statusSince = now;
        }

        void setStatus(Status status, long now) {
            member = member.withStatus(status);
            statusSince = now;
        }
    }

    private record Tombstone(long incarnation, long since) {
    }
}
