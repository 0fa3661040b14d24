package io.caravan.client.internal.node;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.InMemoryNodeEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeRegistrationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
    private final AtomicInteger failRegisters = new AtomicInteger();
    private final AtomicInteger registeredCalls = new AtomicInteger();
    private final AtomicInteger reconnectedCalls = new AtomicInteger();
    /** Heartbeats left unanswered, as by a server paused mid-call. */
    private final AtomicInteger silentHeartbeats = new AtomicInteger();
    private final Node node = Fixtures.node("node-1", Map.of(), Map.of()).withStatus("initializing", "", 0);
    private final Node withSecret = new Node(node.id(), "secret-1", node.datacenter(), node.name(), "", "", false,
            node.attributes(), null, null, Map.of(), Map.of(), "", "default", null, null, "eligible", "initializing",
            "", null, 0, List.of(), Map.of(), null, null, Map.of(), null, null, 0, 0, 0, 0, 0);

    /** The tokens registrations presented; while {@link #introRequired}, one without a token is refused. */
    private final List<String> presented = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean introRequired;

    /** The in-memory server, with registrations that fail while {@link #failRegisters} is positive. */
    private final NodeEndpoint flaky = new NodeEndpoint() {
        /** Like a server under {@code strict}: a token or a refusal; each success signs a new node identity. */
        @Override
        public CompletionStage<NodeUpdateResponse> register(Node n, String token) {
            presented.add(token);
            if (introRequired && token.isEmpty()) {
                return CompletableFuture.failedFuture(new CaravanException(ErrorCode.PERMISSION_DENIED,
                        "Permission denied: node registration without introduction token"));
            }
            return register(n).thenApply(r -> r.withIdentity("identity-" + presented.size()));
        }

        @Override
        public CompletionStage<NodeUpdateResponse> register(Node n) {
            if (failRegisters.getAndDecrement() > 0) {
                return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
            }
            return server.register(n);
        }

        @Override
        public CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status) {
            if (silentHeartbeats.getAndDecrement() > 0) {
                return new CompletableFuture<>(); // never answered
            }
            return server.updateStatus(nodeId, secretId, status);
        }

        @Override
        public CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates) {
            return server.updateAllocs(nodeId, secretId, updates);
        }

        @Override
        public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                          Duration maxWait) {
            return server.clientAllocs(nodeId, secretId, minIndex, maxWait);
        }

        @Override
        public CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> ids) {
            return server.allocs(nodeId, secretId, ids);
        }

        @Override
        public CompletionStage<Long> updateServices(String nodeId, String secretId,
                                                    List<ServiceRegistration> upserts,
                                                    List<String> deleteIds) {
            return server.updateServices(nodeId, secretId, upserts, deleteIds);
        }

        @Override
        public CompletionStage<TaskVariables> taskVariables(String nodeId, String secretId, String allocId,
                                                            String task, List<String> paths, List<String> prefixes,
                                                            long minIndex, Duration maxWait) {
            return server.taskVariables(nodeId, secretId, allocId, task, paths, prefixes, minIndex, maxWait);
        }

        @Override
        public CompletionStage<TaskServices> taskServices(String nodeId, String secretId, String allocId,
                                                          List<String> names, long minIndex, Duration maxWait) {
            return server.taskServices(nodeId, secretId, allocId, names, minIndex, maxWait);
        }
    };

    private final NodeRegistration registration = new NodeRegistration(scheduler, () -> withSecret,
            new NodeRegistration.Listener() {
                @Override
                public void registered() {
                    registeredCalls.incrementAndGet();
                }

                @Override
                public void reconnected() {
                    reconnectedCalls.incrementAndGet();
                }
            }, new Random(1));

    @AfterEach
    void tearDown() {
        registration.stop();
        scheduler.shutdownNow();
        server.close();
    }

    @Test
    void registrationRetriesWithBackoffThenHeartbeatsReadyAfterTheFirstSync() {
        server.heartbeatTtl(Duration.ofMillis(400));
        failRegisters.set(2);
        registration.start();
        registration.endpoint(flaky);
        await(WAIT, "registered", registration::registered);
        assertEquals(1, server.registrations.size());
        assertEquals(1, registeredCalls.get());
        assertEquals(Node.STATUS_INITIALIZING, registration.status());

        await(WAIT, "a heartbeat", () -> !server.statusUpdates.isEmpty());
        assertEquals(Node.STATUS_INITIALIZING, server.statusUpdates.get(0), "not ready before the first alloc sync");
        registration.allocsSynced();
        await(WAIT, "ready", () -> Node.STATUS_READY.equals(registration.status()));
        assertEquals(Node.STATUS_READY, server.node("node-1").status());
    }

    @Test
    void theIntroTokenIsPresentedUntilTheNodeHoldsAnIdentityWhichItPresentsAfter() {
        server.heartbeatTtl(Duration.ofMillis(400));
        introRequired = true;
        java.util.concurrent.atomic.AtomicReference<String> intro = new java.util.concurrent.atomic.AtomicReference<>("");
        java.util.concurrent.atomic.AtomicReference<String> identity =
                new java.util.concurrent.atomic.AtomicReference<>("");
        NodeRegistration introduced = new NodeRegistration(scheduler, () -> withSecret, new NodeRegistration.Listener() {
            @Override
            public void registered() {
            }

            @Override
            public void reconnected() {
            }
        }, new Random(1), new NodeRegistration.Credentials() {
            @Override
            public String registrationToken() {
                return identity.get().isEmpty() ? intro.get() : identity.get();
            }

            @Override
            public void registered(String signedIdentity) {
                if (!signedIdentity.isEmpty()) {
                    identity.set(signedIdentity);
                }
            }
        });
        try {
            introduced.start();
            introduced.endpoint(flaky);
            await(WAIT, "a refused registration", () -> presented.size() >= 1);
            intro.set("intro.jwt"); // the operator places the token; the retry presents it
            await(WAIT, "registered", introduced::registered);
            assertEquals("", presented.get(0));
            assertEquals("intro.jwt", presented.get(presented.size() - 1));
            assertEquals("identity-" + presented.size(), identity.get());

            String held = identity.get();
            server.forgetNode("node-1");
            await(WAIT, "registered again after node not found", () -> presented.size() >= 2
                    && presented.get(presented.size() - 1).equals(held));
        } finally {
            introduced.stop();
        }
    }

    @Test
    void changesAreDebouncedIntoOneRegistrationAndAForgottenNodeRegistersAgain() throws Exception {
        server.heartbeatTtl(Duration.ofMillis(400));
        registration.start();
        registration.endpoint(flaky);
        await(WAIT, "registered", registration::registered);
        registration.nodeChanged();
        registration.nodeChanged();
        registration.nodeChanged();
        await(WAIT, "re-registered", () -> server.registrations.size() == 2);
        Thread.sleep(NodeRegistration.REREGISTER_DEBOUNCE.toMillis() + 300);
        assertEquals(2, server.registrations.size(), "three changes, one registration");

        server.forgetNode("node-1");
        await(WAIT, "registered after node not found", () -> server.registrations.size() == 3);
        await(WAIT, "told to resend", () -> reconnectedCalls.get() == 1);
        assertTrue(registeredCalls.get() >= 2);
    }

    @Test
    void aHeartbeatHeldBySilentServerFailsAtItsDeadlineAndTheNextOneResendsTheAllocations() {
        server.heartbeatTtl(Duration.ofSeconds(4));
        registration.start();
        registration.endpoint(flaky);
        registration.allocsSynced();
        await(WAIT, "ready", () -> Node.STATUS_READY.equals(registration.status()));
        int before = server.statusUpdates.size();
        silentHeartbeats.set(1);
        long started = System.nanoTime();
        // The held heartbeat fails after TTL/2 = 2 s, then a retry within the backoff lands: well inside TTL + grace.
        await(WAIT, "a heartbeat after the silent one", () -> server.statusUpdates.size() > before);
        assertTrue(System.nanoTime() - started < Duration.ofSeconds(8).toNanos(), "the retry came in time");
        await(WAIT, "told to resend", () -> reconnectedCalls.get() == 1);
    }

    @Test
    void nodeNotFoundIsRecognised() {
        assertTrue(NodeRegistration.nodeNotFound(CaravanException.notFound("node not found")));
        assertTrue(NodeRegistration.nodeNotFound(new RuntimeException("rpc error: Node not found")));
        assertEquals(false, NodeRegistration.nodeNotFound(new RuntimeException("timeout")));
    }
}
