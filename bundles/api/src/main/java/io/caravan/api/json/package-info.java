/**
 * Nomad's JSON wire format: PascalCase names with Go's initialisms ({@code ID}, {@code HTTPAddr}),
 * case-insensitive and lenient input.
 */
@Version("1.2.0")
package io.caravan.api.json;

import org.osgi.annotation.versioning.Version;
