package io.caravan.rpc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Calls over the RPC transport. Failures complete the stage with a {@link io.caravan.api.CaravanException}: the
 * remote side's code, field and message, or {@code NO_LEADER} ("No servers reachable …") when no server answered.
 */
@ProviderType
public interface Rpc {

    /**
     * Serves a call here, through this agent's dispatcher: the endpoint's routing applies, so a {@code LEADER}
     * endpoint called on a follower is forwarded. How HTTP routes call endpoints.
     */
    <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response);

    /** Calls the servers this agent knows, in order, moving one that fails to the end and trying the next. */
    <R> CompletionStage<R> call(String method, Object request, Class<R> response);

    /**
     * The same, giving each server at most {@code attemptTimeout} to answer: a server that stays silent past it (a
     * paused process, a partition that keeps the connection open) counts as failed, so the call goes on to the next
     * server and later calls try it last. For calls whose answer time is known (a heartbeat; a blocking query plus
     * its wait); without it a silent server holds the call for the transport's whole call timeout.
     */
    default <R> CompletionStage<R> call(String method, Object request, Class<R> response, Duration attemptTimeout) {
        return call(method, request, response);
    }

    /** Calls the server at {@code host:port}. */
    <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response);

    /**
     * Calls a client node through the connection that node opened to this server (servers may not be able to reach
     * clients). Fails with {@code NOT_FOUND} when the node has no connection here.
     */
    <R> CompletionStage<R> callNode(String nodeId, String method, Object request, Class<R> response);

    /**
     * Opens a stream ({@link StreamEndpoint}) on a client node, through the connection that node opened to this
     * server. Fails with {@code NOT_FOUND} when the node has no connection here.
     */
    CompletionStage<RpcStream> openNodeStream(String nodeId, String method, Object request);

    /** Opens a stream on the server at {@code host:port}. */
    CompletionStage<RpcStream> openStreamAt(String address, String method, Object request);

    /** What each endpoint served here so far (forwarded calls included), by method name. */
    List<EndpointStats> stats();

    /** Calls served by one endpoint: how many, how many failed, and their durations. */
    record EndpointStats(String method, long calls, long errors, double totalMillis, double minMillis,
                         double maxMillis) {}

    /** The servers calls go to, in the order they will be tried. */
    List<String> servers();

    /** Replaces the server list ({@code host[:port]}, port 4647 by default). */
    void setServers(List<String> addresses);
}
