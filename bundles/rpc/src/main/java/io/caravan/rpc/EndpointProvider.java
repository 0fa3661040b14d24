package io.caravan.rpc;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A group of endpoints, registered as a service (whiteboard). The dispatcher picks them up as they come and go; two
 * providers declaring one name is a conflict, logged, and the higher {@code service.ranking} wins.
 */
@ConsumerType
public interface EndpointProvider {
    List<Endpoint<?, ?>> endpoints();
}
