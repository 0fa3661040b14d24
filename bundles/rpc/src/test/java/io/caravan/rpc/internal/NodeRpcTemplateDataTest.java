package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariable;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.ServiceRegistration;
import org.junit.jupiter.api.Test;

/** The template data calls travel the RPC codec whole: requests and the nested variables and services they answer. */
class NodeRpcTemplateDataTest {
    @Test
    void templateDataRoundTripsThroughTheCodec() {
        NodeRpc.TaskVariablesRequest request = new NodeRpc.TaskVariablesRequest("n", "s", "a1", "app",
                List.of("nomad/jobs/web"), List.of("nomad/jobs"), 7, 300_000);
        assertEquals(request, RpcCodec.decode(RpcCodec.encode(request), NodeRpc.TaskVariablesRequest.class));

        TaskVariable v = new TaskVariable("default", "nomad/jobs/web", Map.of("password", "one"), 3, 10, 4, 11);
        TaskVariables answer = new TaskVariables(List.of(v), Map.of("nomad/jobs", List.of(v)), 4);
        assertEquals(answer, RpcCodec.decode(RpcCodec.encode(answer), TaskVariables.class));

        TaskServices services = new TaskServices(List.of(new ServiceRegistration("id", "db", "default", "n", "dc1",
                "web", "a1", List.of("primary"), "10.0.0.1", 5432, 1, 2)), 9);
        assertEquals(services, RpcCodec.decode(RpcCodec.encode(services), TaskServices.class));
    }
}
