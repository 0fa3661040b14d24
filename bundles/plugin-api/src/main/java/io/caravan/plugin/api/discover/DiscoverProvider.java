package io.caravan.plugin.api.discover;

import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Names a discovery provider: {@code @DiscoverProvider("dns")} sets {@code caravan.discover.provider=dns} (DS derives
 * {@code discover.provider} from this annotation's simple name and prepends {@link #PREFIX_}).
 */
@ComponentPropertyType
public @interface DiscoverProvider {
    String PREFIX_ = "caravan.";

    /** The service property this annotation sets. */
    String PROPERTY = "caravan.discover.provider";

    /** The go-discover provider name, as written after {@code provider=} ({@code dns}, {@code file}, {@code aws}). */
    String value();
}
