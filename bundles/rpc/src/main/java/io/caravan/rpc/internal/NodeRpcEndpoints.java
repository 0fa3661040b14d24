package io.caravan.rpc.internal;

import java.util.List;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.LeaderLocator;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** A server's {@code Node.*} RPC endpoints, for the local (not the remote) {@link NodeEndpoint}. */
@Component(service = EndpointProvider.class)
public final class NodeRpcEndpoints implements EndpointProvider {
    private final List<Endpoint<?, ?>> endpoints;
    private volatile LeaderLocator locator;

    @Activate
    public NodeRpcEndpoints(@Reference(target = "(!(" + RpcComponent.REMOTE + "=true))") NodeEndpoint local) {
        this.endpoints = NodeRpc.endpoints(local, () -> {
            LeaderLocator l = locator;
            return l == null ? List.of() : l.serverRpcAddresses();
        });
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindLocator(LeaderLocator l) {
        locator = l;
    }

    void unbindLocator(LeaderLocator l) {
        if (locator == l) {
            locator = null;
        }
    }

    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return endpoints;
    }
}
