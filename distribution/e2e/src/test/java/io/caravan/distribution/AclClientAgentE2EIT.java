package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

/**
 * A client-only agent with ACLs on has no ACL tables: it resolves tokens through its server
 * ({@code ACL.ResolveToken}) and enforces the same rules on its own routes, and the calls it forwards are
 * authorized by the server.
 */
class AclClientAgentE2EIT {
    @Test
    void aClientAgentEnforcesTokensItResolvesThroughItsServer() throws Exception {
        try (AclServerAndClient acl = AclServerAndClient.start("caravan-acl-client-")) {
            AgentProcess server = acl.server;
            AgentProcess client = acl.client;
            String management = acl.management;
            String reader = server.tokenWith(management, "reader", "namespace \"default\" { policy = \"read\" }");
            String agentReader = server.tokenWith(management, "agent-reader", "agent { policy = \"read\" }");

            // The client's own routes, checked with tokens it resolved through the server.
            assertEquals(200, client.call("GET", "/v1/agent/health", null, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/agent/self", null, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/agent/self", reader, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/agent/self", agentReader, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/agent/self", management, null).statusCode());
            HttpResponse<String> unknown = client.call("GET", "/v1/agent/self",
                    "00000000-0000-4000-8000-000000000000", null);
            assertEquals(403, unknown.statusCode(), unknown.body());
            assertEquals("ACL token not found", unknown.body().strip());
            assertEquals(403, client.call("PUT", "/v1/agent/reload", agentReader, null).statusCode());

            // Calls the client forwards are authorized by the server.
            assertEquals(403, client.call("GET", "/v1/jobs", null, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/jobs", reader, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/nodes", reader, null).statusCode());
        }
    }
}
