package io.caravan.http;

import java.time.Duration;

/**
 * Nomad's common query parameters. {@code minIndex > 0} makes a query blocking for up to {@code maxWait}, which
 * already includes Nomad's random jitter of up to a sixteenth (so many clients with the same wait do not all
 * return at once); {@code perPage} 0 means no paging.
 */
public record QueryOptions(String region, String namespace, long minIndex, Duration maxWait, boolean allowStale,
                           String prefix, String filter, int perPage, String nextToken, boolean reverse) {
    public static final String DEFAULT_NAMESPACE = "default";
    /** Nomad caps a blocking query at five minutes, and waits that long when no {@code wait} is given. */
    public static final Duration MAX_WAIT = Duration.ofMinutes(5);

    public boolean blocking() {
        return minIndex > 0;
    }
}
