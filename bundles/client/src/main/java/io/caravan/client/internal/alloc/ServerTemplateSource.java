package io.caravan.client.internal.alloc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.Allocation;
import io.caravan.client.internal.hooks.TemplateSource;

/** Templates read through the node's endpoint, as the node (its secret) on behalf of the allocation's task. */
public final class ServerTemplateSource implements TemplateSource {
    private final Supplier<AllocUpdateBatcher.Target> target;

    public ServerTemplateSource(Supplier<AllocUpdateBatcher.Target> target) {
        this.target = target;
    }

    @Override
    public CompletionStage<TaskVariables> variables(Allocation alloc, String task, List<String> paths,
                                                    List<String> prefixes, long minIndex, Duration maxWait) {
        AllocUpdateBatcher.Target t = target.get();
        return t == null ? notRegistered() : t.endpoint().taskVariables(t.nodeId(), t.secretId(), alloc.id(), task,
                paths, prefixes, minIndex, maxWait);
    }

    @Override
    public CompletionStage<TaskServices> services(Allocation alloc, List<String> names, long minIndex,
                                                  Duration maxWait) {
        AllocUpdateBatcher.Target t = target.get();
        return t == null ? notRegistered() : t.endpoint().taskServices(t.nodeId(), t.secretId(), alloc.id(), names,
                minIndex, maxWait);
    }

    private static <T> CompletionStage<T> notRegistered() {
        return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER,
                "the node is not registered with the servers yet"));
    }
}
