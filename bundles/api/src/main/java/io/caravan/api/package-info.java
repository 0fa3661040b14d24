/**
 * Caravan's exported vocabulary: error codes and the exception that carries them across bundles, RPC and HTTP.
 */
@Version("1.1.0")
package io.caravan.api;

import org.osgi.annotation.versioning.Version;
