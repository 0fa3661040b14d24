package io.caravan.acl.internal;

import java.util.List;

/**
 * A policy as written, before its meaning is checked: objects (whose keys may repeat, as blocks do), lists and
 * scalars, each with its position. HCL and JSON both read into this, the way HCL1 (which Nomad parses policies with)
 * sees them: a block's label is a key one level down, {@code namespace "a" { }} being {@code {"namespace": {"a":
 * {}}}}.
 */
sealed interface Node permits Node.Obj, Node.Arr, Node.Scalar {

    Pos pos();

    /** A line and column, 1-based; 0 when unknown. */
    record Pos(int line, int column) {
        static final Pos UNKNOWN = new Pos(0, 0);

        @Override
        public String toString() {
            return line + ":" + column;
        }
    }

    /** One key of an object and where the key itself was written. */
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

    /** A String, a number, a Boolean, or null. */
    record Scalar(Pos pos, Object value) implements Node {}

    /** What a node holds, in words, for messages. */
    static String describe(Node node) {
        if (node instanceof Obj) {
            return "a block";
        }
        if (node instanceof Arr) {
            return "a list";
        }
        Object v = ((Scalar) node).value();
        if (v instanceof PolicySource.Opaque o) {
            return "a value of type " + o.typeName();
        }
        return v == null ? "null" : v instanceof String ? "a string" : v instanceof Boolean ? "a bool" : "a number";
    }
}
