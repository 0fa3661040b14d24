package io.caravan.http;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A group of API endpoints, contributed as a whiteboard service. When two groups register the same method and
 * path, the service with the higher {@code service.ranking} wins and the conflict is logged.
 */
@ConsumerType
public interface ApiRoutes {
    void register(RouteTable routes);
}
