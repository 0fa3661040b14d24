package io.caravan.state;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A read run against one snapshot, possibly several times (once per wake-up of a blocking query).
 *
 * <p>It must be side-effect free. Reads through the given snapshot register themselves in {@code ws}; the
 * query may add more (for example the table whose index it reports when its result is empty).
 */
@ConsumerType
@FunctionalInterface
public interface StateQuery<R> {
    Indexed<R> run(StateSnapshot snapshot, WatchSet ws);
}
