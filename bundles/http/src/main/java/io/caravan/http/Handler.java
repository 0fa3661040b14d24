package io.caravan.http;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Serves one route. Throw {@link io.caravan.api.CaravanException} for an expected failure (its code picks the
 * status, its message becomes the plain-text body); anything else is a 500 and is logged.
 */
@ConsumerType
@FunctionalInterface
public interface Handler {
    ApiResponse handle(ApiRequest request) throws Exception;
}
