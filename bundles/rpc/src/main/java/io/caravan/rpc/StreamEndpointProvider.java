package io.caravan.rpc;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/** A group of streaming endpoints, registered as a service (whiteboard), as {@link EndpointProvider} for calls. */
@ConsumerType
public interface StreamEndpointProvider {
    List<StreamEndpoint<?>> streams();
}
