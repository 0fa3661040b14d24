package io.caravan.client.internal.hooks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.Allocation;

/**
 * Where a task's templates read variables and services: the servers, through the node's endpoint (blocking queries
 * with an index, as {@link io.caravan.api.endpoint.NodeEndpoint#taskVariables} and
 * {@link io.caravan.api.endpoint.NodeEndpoint#taskServices}).
 */
public interface TemplateSource {
    /** No servers: every read fails (runners whose tests use no templates). */
    TemplateSource NONE = new TemplateSource() {
        @Override
        public CompletionStage<TaskVariables> variables(Allocation alloc, String task, List<String> paths,
                                                        List<String> prefixes, long minIndex, Duration maxWait) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "no servers"));
        }

        @Override
        public CompletionStage<TaskServices> services(Allocation alloc, List<String> names, long minIndex,
                                                      Duration maxWait) {
            return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "no servers"));
        }
    };

    CompletionStage<TaskVariables> variables(Allocation alloc, String task, List<String> paths, List<String> prefixes,
                                             long minIndex, Duration maxWait);

    CompletionStage<TaskServices> services(Allocation alloc, List<String> names, long minIndex, Duration maxWait);
}
