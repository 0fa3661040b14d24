/**
 * Fingerprinters: what a client learns about its host. A fingerprinter is a DS component providing
 * {@link io.caravan.plugin.api.fingerprint.Fingerprinter} with {@code caravan.fingerprint.name} and
 * {@code caravan.fingerprint.phase} ({@code host} runs before {@code env}, as in Nomad).
 */
@Version("2.0.0")
package io.caravan.plugin.api.fingerprint;

import org.osgi.annotation.versioning.Version;
