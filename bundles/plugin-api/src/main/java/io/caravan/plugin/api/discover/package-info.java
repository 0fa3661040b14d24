/**
 * Cloud auto-join discovery: turns a go-discover string such as
 * {@code provider=dns name=servers.example.com port=4647} into addresses to join. A provider is a DS component
 * providing {@link io.caravan.plugin.api.discover.Discoverer} with the service property
 * {@code caravan.discover.provider} (set with {@link io.caravan.plugin.api.discover.DiscoverProvider});
 * {@link io.caravan.plugin.api.discover.DiscoverString} splits a string into that provider name and its arguments.
 *
 * <p>{@link io.caravan.plugin.api.discover.DiscoverResolver} resolves {@code retry_join} entries with them (servers'
 * and clients' {@code server_join}, NOMAD-REFERENCE §10.2).
 */
@Version("1.2.0")
package io.caravan.plugin.api.discover;

import org.osgi.annotation.versioning.Version;
