package io.caravan.agent.internal.config;

import java.util.List;

/**
 * A configuration file as written, before it meets the schema: objects (whose keys may repeat, as HCL blocks do),
 * lists and scalars, each with its position. HCL and JSON sources both produce this, so everything after them —
 * validation, types, merging — is shared.
 */
public sealed interface Node permits Node.Obj, Node.Arr, Node.Scalar {
    Pos pos();

    /** One key of an object, with where the key itself was written. */
    record Entry(String key, Pos keyPos, Node value) {}

    record Obj(Pos pos, List<Entry> entries) implements Node {
        public Obj {
            entries = List.copyOf(entries);
        }
    }

    record Arr(Pos pos, List<Node> items) implements Node {
        public Arr {
            items = List.copyOf(items);
        }
    }

    /** A string, a {@link java.math.BigDecimal}, a Boolean, or null. */
    record Scalar(Pos pos, Object value) implements Node {}

    /** What a node holds, in words, for error messages. */
    static String describe(Node node) {
        if (node instanceof Obj) {
            return "a block";
        }
        if (node instanceof Arr) {
            return "a list";
        }
        Object v = ((Scalar) node).value();
        return v == null ? "null" : v instanceof String ? "a string" : v instanceof Boolean ? "a bool" : "a number";
    }
}
