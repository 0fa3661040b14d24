/**
 * How a bundle adds HTTP API endpoints: provide an {@link io.caravan.http.ApiRoutes} service. The HTTP bundle owns
 * everything Nomad's wire contract fixes (paths, query options, {@code X-Nomad-*} headers, JSON casing, plain-text
 * errors); a route only turns a request into a response.
 */
@Version("2.4.0")
package io.caravan.http;

import org.osgi.annotation.versioning.Version;
