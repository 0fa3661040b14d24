package io.caravan.client.internal.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;

/**
 * A server in a map: registered nodes, allocations by ID with a table index, blocking {@code clientAllocs}
 * answered when the index passes {@code minIndex} (or at the deadline), and a log of what clients sent.
 */
public final class InMemoryNodeEndpoint implements NodeEndpoint, AutoCloseable {
    public final List<Node> registrations = new CopyOnWriteArrayList<>();
    public final List<String> statusUpdates = new CopyOnWriteArrayList<>();
    public final List<List<Allocation>> allocUpdates = new CopyOnWriteArrayList<>();
    /** Registered services by ID, as the client's upserts and deletes left them. */
    public final Map<String, ServiceRegistration> services = new ConcurrentHashMap<>();

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-endpoint");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Map<String, Allocation> allocs = new LinkedHashMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    private long index = 1;
    private volatile Duration heartbeatTtl = Duration.ofSeconds(10);

    public void heartbeatTtl(Duration ttl) {
        heartbeatTtl = ttl;
    }

    private volatile boolean unreachable;

    /** As if the network to the servers were cut: heartbeats and updates fail until it is restored. */
    public void unreachable(boolean cut) {
        unreachable = cut;
    }

    private <T> CompletionStage<T> cutOff() {
        return CompletableFuture.failedFuture(new CaravanException(io.caravan.api.ErrorCode.NO_LEADER,
                "No servers reachable"));
    }

    private record Waiter(String nodeId, long minIndex, long knownIndex, CompletableFuture<ClientAllocs> answer) {
    }

    /** As if the node had been garbage-collected: the next heartbeat gets "node not found". */
    public synchronized void forgetNode(String id) {
        nodes.remove(id);
    }

    public synchronized Node node(String id) {
        return nodes.get(id);
    }

    /** Places (or replaces) an allocation; bumps its AllocModifyIndex and wakes blocking queries. */
    public synchronized void place(Allocation alloc) {
        index++;
        allocs.put(alloc.id(), alloc.withIndexes(index, index, index));
        wake();
    }

    public synchronized void stopAlloc(String allocId) {
        Allocation a = allocs.get(allocId);
        place(a.withDesiredStatus(Allocation.DESIRED_STOP, "alloc not needed"));
    }

    public synchronized void remove(String allocId) {
        index++;
        allocs.remove(allocId);
        wake();
    }

    public synchronized Allocation alloc(String id) {
        return allocs.get(id);
    }

    /** Every client status the client reported for an allocation, in order. */
    public List<String> reportedStatuses(String allocId) {
        List<String> out = new ArrayList<>();
        for (List<Allocation> batch : allocUpdates) {
            for (Allocation a : batch) {
                if (a.id().equals(allocId) && (out.isEmpty() || !out.get(out.size() - 1).equals(a.clientStatus()))) {
                    out.add(a.clientStatus());
                }
            }
        }
        return out;
    }

    @Override
    public synchronized CompletionStage<NodeUpdateResponse> register(Node node) {
        registrations.add(node);
        Node known = nodes.get(node.id());
        if (known != null && !known.secretId().equals(node.secretId())) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.PERMISSION_DENIED,
                    "node secret ID does not match. Not registering node."));
        }
        String status = known == null ? Node.STATUS_INITIALIZING : known.status();
        nodes.put(node.id(), node.withStatus(status, "", 0));
        return CompletableFuture.completedFuture(new NodeUpdateResponse(heartbeatTtl, ++index, List.of()));
    }

    @Override
    public synchronized CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status) {
        if (unreachable) {
            return cutOff();
        }
        Node known = nodes.get(nodeId);
        if (known == null) {
            return CompletableFuture.failedFuture(CaravanException.notFound("node not found"));
        }
        statusUpdates.add(status);
        nodes.put(nodeId, known.withStatus(status, "", 0));
        return CompletableFuture.completedFuture(new NodeUpdateResponse(heartbeatTtl, ++index, List.of()));
    }

    @Override
    public synchronized CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates) {
        if (unreachable) {
            return cutOff();
        }
        allocUpdates.add(List.copyOf(updates));
        for (Allocation u : updates) {
            Allocation a = allocs.get(u.id());
            if (a != null) {
                // Client updates change ModifyIndex, not AllocModifyIndex (as in Nomad).
                allocs.put(a.id(), a.withClientStatus(u.clientStatus(), u.clientDescription()));
            }
        }
        return CompletableFuture.completedFuture(++index);
    }

    @Override
    public synchronized CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                                   Duration maxWait) {
        return clientAllocs(nodeId, secretId, minIndex, 0, maxWait);
    }

    /** As the servers: only what changed after {@code knownIndex}, with the node's total. */
    @Override
    public synchronized CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                                   long knownIndex, Duration maxWait) {
        CompletableFuture<ClientAllocs> answer = new CompletableFuture<>();
        if (index > minIndex) {
            answer.complete(snapshot(nodeId, knownIndex));
            return answer;
        }
        Waiter w = new Waiter(nodeId, minIndex, knownIndex, answer);
        waiters.add(w);
        timers.schedule(() -> {
            synchronized (this) {
                if (waiters.remove(w)) {
                    answer.complete(snapshot(nodeId, knownIndex));
                }
            }
        }, maxWait.toMillis(), TimeUnit.MILLISECONDS);
        return answer;
    }

    @Override
    public synchronized CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> ids) {
        List<Allocation> out = new ArrayList<>();
        for (String id : ids) {
            if (allocs.containsKey(id)) {
                out.add(allocs.get(id));
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    private ClientAllocs snapshot(String nodeId, long knownIndex) {
        Map<String, Long> out = new LinkedHashMap<>();
        List<Allocation> mine = allocs.values().stream().filter(a -> nodeId.equals(a.nodeId())).toList();
        mine.stream().filter(a -> a.allocModifyIndex() > knownIndex).forEach(a -> out.put(a.id(), a.allocModifyIndex()));
        return new ClientAllocs(out, index, mine.size());
    }

    private void wake() {
        List<Waiter> ready = new ArrayList<>(waiters);
        waiters.clear();
        // Complete outside the caller's stack? The client's callbacks hop to its own threads, so completing here is fine.
        ready.forEach(w -> timers.execute(() -> {
            synchronized (this) {
                w.answer().complete(snapshot(w.nodeId(), w.knownIndex()));
            }
        }));
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }

    @Override
    public synchronized CompletionStage<Long> updateServices(String nodeId, String secretId,
                                                             List<ServiceRegistration> upserts,
                                                             List<String> deleteIds) {
        if (unreachable) {
            return cutOff();
        }
        upserts.forEach(r -> services.put(r.id(), r));
        deleteIds.forEach(services::remove);
        return CompletableFuture.completedFuture(++index);
    }

    /** No variables here: a first query answers at once, a later one at its deadline. */
    @Override
    public CompletionStage<TaskVariables> taskVariables(String nodeId, String secretId, String allocId, String task,
                                                        List<String> paths, List<String> prefixes, long minIndex,
                                                        Duration maxWait) {
        return later(new TaskVariables(List.of(), Map.of(), 1), minIndex, maxWait);
    }

    /** The services clients registered here. */
    @Override
    public CompletionStage<TaskServices> taskServices(String nodeId, String secretId, String allocId,
                                                      List<String> names, long minIndex, Duration maxWait) {
        return later(new TaskServices(services.values().stream()
                .filter(r -> names.isEmpty() || names.contains(r.serviceName())).toList(), 1), minIndex, maxWait);
    }

    private <T> CompletionStage<T> later(T answer, long minIndex, Duration maxWait) {
        if (minIndex < 1) {
            return CompletableFuture.completedFuture(answer);
        }
        CompletableFuture<T> out = new CompletableFuture<>();
        timers.schedule(() -> out.complete(answer), maxWait.toMillis(), TimeUnit.MILLISECONDS);
        return out;
    }
}
