/**
 * Nomad's {@code ?filter=} expressions (go-bexpr syntax), evaluated against the full object as JSON with Nomad's
 * field names: {@code Status == "running" and Meta["rack"] matches "^r1"}.
 */
@Version("1.0.0")
package io.caravan.http.filter;

import org.osgi.annotation.versioning.Version;
