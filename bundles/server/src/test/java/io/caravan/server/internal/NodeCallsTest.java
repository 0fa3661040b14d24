package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import org.junit.jupiter.api.Test;

/** A call for a node whose connection is at another server: relayed to the servers, and what the caller hears. */
class NodeCallsTest {
    private static final String FAR = "10.0.0.2:4647";
    private static final String SELF = "10.0.0.1:4647";
    private static final CaravanException NOT_HERE = new CaravanException(ErrorCode.NOT_FOUND,
            "Unknown node n-1: no RPC connection to this server");

    private final AgentReloadsTest.Calls rpc = new AgentReloadsTest.Calls();

    private static HttpForward.Answer notConnected() {
        return new HttpForward.Answer(404, Map.of(), NOT_HERE.getMessage().getBytes(StandardCharsets.UTF_8));
    }

    private ApiResponse relay(AgentReloadsTest.Request request, List<String> servers) {
        return NodeCalls.orViaOtherServers(CompletableFuture.failedFuture(NOT_HERE), request, rpc, servers).join();
    }

    private CaravanException failure(AgentReloadsTest.Request request, List<String> servers) {
        CompletionException e = assertThrows(CompletionException.class, () -> relay(request, servers));
        return assertInstanceOf(CaravanException.class, e.getCause());
    }

    @Test
    void theServerThatHoldsTheConnectionAnswersWhicheverPlaceItHasInTheList() {
        rpc.servers.put(SELF, NodeCallsTest::notConnected);
        rpc.servers.put(FAR, () -> new HttpForward.Answer(200, Map.of(), "{}".getBytes(StandardCharsets.UTF_8)));

        assertEquals(200, relay(AgentReloadsTest.request(""), List.of(SELF, FAR)).status());
        assertEquals(List.of(SELF + " Agent.HTTP", FAR + " Agent.HTTP"), rpc.sent);
        HttpForward.Call relayed = (HttpForward.Call) rpc.requests.get(1);
        assertEquals("1", relayed.headers().get(HttpForward.FORWARDED), "marked: not relayed again");
    }

    @Test
    void aFailedRelayIsA500WithItsReasonNotTheLastServers404() {
        // The holder cannot be reached (no answer configured: connection refused); this server, last, has no connection.
        rpc.servers.put(SELF, NodeCallsTest::notConnected);

        CaravanException e = failure(AgentReloadsTest.request(""), List.of(FAR, SELF));
        assertEquals(ErrorCode.INTERNAL, e.code());
        assertTrue(e.getMessage().contains(FAR + ": connection refused"), e.getMessage());
    }

    @Test
    void noServerWithTheConnectionIsThe404() {
        rpc.servers.put(SELF, NodeCallsTest::notConnected);
        rpc.servers.put(FAR, NodeCallsTest::notConnected);

        CaravanException e = failure(AgentReloadsTest.request(""), List.of(FAR, SELF));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
    }

    @Test
    void aRelayedCallIsNotRelayedAgain() {
        CaravanException e = failure(AgentReloadsTest.relayed(""), List.of(FAR, SELF));
        assertEquals(ErrorCode.NOT_FOUND, e.code());
        assertEquals(List.of(), rpc.sent);
    }
}
