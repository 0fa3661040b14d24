package io.caravan.rpc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import io.caravan.api.endpoint.NodeEndpoint.IdentityRequest;
import io.caravan.api.endpoint.NodeEndpoint.SignedIdentity;
import org.junit.jupiter.api.Test;

/** {@code Alloc.SignIdentities} travels intact: what a client-only agent asks and what it gets back. */
class NodeRpcCodecTest {
    @Test
    void signIdentitiesRequestAndReplyRoundTrip() {
        var request = new NodeRpc.SignIdentitiesRequest("node-1", "secret-1",
                List.of(new IdentityRequest("alloc-1", "server", "default"),
                        new IdentityRequest("alloc-1", "server", "vault")));
        assertEquals(request, RpcCodec.decode(RpcCodec.encode(request), NodeRpc.SignIdentitiesRequest.class));
        var reply = new NodeRpc.SignIdentitiesResponse(List.of(new SignedIdentity("alloc-1", "server", "default",
                "a.b.c", 0), new SignedIdentity("alloc-1", "server", "vault", "d.e.f", 1_800_000_000L)));
        assertEquals(reply, RpcCodec.decode(RpcCodec.encode(reply), NodeRpc.SignIdentitiesResponse.class));
    }
}
