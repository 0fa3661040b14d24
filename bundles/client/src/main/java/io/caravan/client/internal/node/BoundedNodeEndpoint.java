package io.caravan.client.internal.node;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.api.timer.Deadlines;

/**
 * The client's calls with a deadline each. A server that stops answering without closing the connection (a paused
 * process, a partition) would otherwise hold a heartbeat, an update batch or the allocation poll for the transport's
 * whole call timeout (minutes), and the node would miss heartbeats or miss stops while other servers could answer.
 * A call past its deadline fails, and the caller's retry goes to whichever server answers now.
 */
public final class BoundedNodeEndpoint implements NodeEndpoint {
    /** Room for a leader election and a forward (the RPC layer waits up to 5 s for a leader). */
    public static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final NodeEndpoint delegate;
    private final ScheduledExecutorService timer;

    /** @param timer times the deadlines (the client's own timer: the JDK's would keep a thread of its own) */
    public BoundedNodeEndpoint(NodeEndpoint delegate, ScheduledExecutorService timer) {
        this.delegate = delegate;
        this.timer = timer;
    }

    @Override
    public CompletionStage<NodeUpdateResponse> register(Node node) {
        return bounded(delegate.register(node), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<NodeUpdateResponse> register(Node node, String introToken) {
        return bounded(delegate.register(node, introToken), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status) {
        return bounded(delegate.updateStatus(nodeId, secretId, status), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates) {
        return bounded(delegate.updateAllocs(nodeId, secretId, updates), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                      Duration maxWait) {
        return bounded(delegate.clientAllocs(nodeId, secretId, minIndex, maxWait), maxWait.plus(CALL_TIMEOUT));
    }

    @Override
    public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex, long knownIndex,
                                                      Duration maxWait) {
        return bounded(delegate.clientAllocs(nodeId, secretId, minIndex, knownIndex, maxWait),
                maxWait.plus(CALL_TIMEOUT));
    }

    @Override
    public CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> allocIds) {
        return bounded(delegate.allocs(nodeId, secretId, allocIds), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<Long> updateServices(String nodeId, String secretId, List<ServiceRegistration> upserts,
                                                List<String> deleteIds) {
        return bounded(delegate.updateServices(nodeId, secretId, upserts, deleteIds), CALL_TIMEOUT);
    }

    @Override
    public CompletionStage<TaskVariables> taskVariables(String nodeId, String secretId, String allocId, String task,
                                                        List<String> paths, List<String> prefixes, long minIndex,
                                                        Duration maxWait) {
        return bounded(delegate.taskVariables(nodeId, secretId, allocId, task, paths, prefixes, minIndex, maxWait),
                maxWait.plus(CALL_TIMEOUT));
    }

    @Override
    public CompletionStage<TaskServices> taskServices(String nodeId, String secretId, String allocId,
                                                      List<String> names, long minIndex, Duration maxWait) {
        return bounded(delegate.taskServices(nodeId, secretId, allocId, names, minIndex, maxWait),
                maxWait.plus(CALL_TIMEOUT));
    }

    @Override
    public CompletionStage<List<SignedIdentity>> signIdentities(String nodeId, String secretId,
                                                               List<IdentityRequest> requests) {
        return bounded(delegate.signIdentities(nodeId, secretId, requests), CALL_TIMEOUT);
    }

    private <T> CompletionStage<T> bounded(CompletionStage<T> call, Duration timeout) {
        return bounded(call, timeout, timer);
    }

    static <T> CompletionStage<T> bounded(CompletionStage<T> call, Duration timeout, ScheduledExecutorService timer) {
        return Deadlines.orTimeout(call.toCompletableFuture().copy(), timeout.toMillis(), TimeUnit.MILLISECONDS, timer);
    }
}
