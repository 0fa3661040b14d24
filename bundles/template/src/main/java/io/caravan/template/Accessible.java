package io.caravan.template;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A data object whose fields and methods templates may use: {@code {{.Name}}} asks {@code access("Name", [])},
 * {@code {{.Method 1 "x"}}} asks {@code access("Method", [1, "x"])}. Return {@link #NO_SUCH} for a name the object
 * does not have (the template then fails with Go's "can't evaluate field" error, or, for an object that is also a
 * {@link java.util.Map}, reads the map's entry as Go does for a map type with methods).
 */
@ConsumerType
@FunctionalInterface
public interface Accessible {
    /** The answer for a name the object does not have. */
    Object NO_SUCH = new Object() {
        @Override public String toString() { return "NO_SUCH"; }
    };

    Object access(String name, List<Object> args) throws Exception;
}
