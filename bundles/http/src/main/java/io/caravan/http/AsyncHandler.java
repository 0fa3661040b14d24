package io.caravan.http;

import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Serves one route whose answer may come later: a blocking query ({@code ?index=N&wait=...}) returns a stage that
 * completes when the data changes or the wait ends. No thread waits meanwhile: the request is parked on the
 * servlet container's async support. Failures follow {@link Handler}'s rules.
 */
@ConsumerType
@FunctionalInterface
public interface AsyncHandler {
    CompletionStage<ApiResponse> handle(ApiRequest request) throws Exception;
}
