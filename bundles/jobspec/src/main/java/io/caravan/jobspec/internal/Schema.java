package io.caravan.jobspec.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What one HCL block body may contain and where each item goes in the API JSON. The whole jobspec is a table of
 * these ({@link JobSchema}) read by one generic {@link Decoder}, so adding a Nomad field is one line, not code.
 */
final class Schema {

    /** How an attribute value is converted (HCL's type conversion, then Go's JSON form). */
    enum Kind {
        STRING, INT, FLOAT, BOOL,
        /** Go {@code time.Duration}: a string such as {@code "30s"} (or a number of ns) → integer nanoseconds. */
        DURATION,
        STRINGS,
        /** {@code map[string]string}: values are stringified ({@code meta { n = 10 }} → {@code "10"}). */
        STRING_MAP,
        /** {@code map[string][]string} (check headers). */
        STRINGS_MAP,
        /** Anything, kept as written ({@code config}); nested blocks become lists of objects, as HCL1 decoded them. */
        ANY
    }

    /** How a block type maps to JSON. */
    enum Card {
        /** At most one block → an object. */
        ONE,
        /** Repeatable → an array, in source order. */
        LIST,
        /** Repeatable, one label → an object keyed by the label. */
        MAP
    }

    record Attr(String json, Kind kind) {
    }

    /**
     * A nested block. {@code labelKey}: JSON key receiving the single label (null: the block takes no label);
     * {@code labelPrefix} is prepended to it (task {@code scaling "cpu"} → {@code vertical_cpu}); {@code router}, when
     * set, picks the JSON key from the decoded object (ports: reserved vs dynamic); {@code allowedLabels}, when set,
     * is the closed, case-insensitive set of labels, each allowed once (task {@code scaling}: cpu, mem).
     */
    record Nested(String json, Schema schema, Card card, String labelKey, String labelPrefix,
                  Function<ObjectNode, String> router, Set<String> allowedLabels) {

        Nested(String json, Schema schema, Card card, String labelKey, String labelPrefix,
               Function<ObjectNode, String> router) {
            this(json, schema, card, labelKey, labelPrefix, router, null);
        }
    }

    /** A free-form map, accepted both as a block ({@code env { A = "1" }}) and as an attribute ({@code env = {...}}). */
    record Free(String json, Kind kind) {
    }

    /**
     * Why an item is not acted on; {@code when} picks the values that are not (a block: each one), e.g. a volume
     * whose type is not {@code host}.
     */
    record Unsupported(String reason, Predicate<JsonNode> when) {
    }

    /** The HCL block type described; documents the table. */
    final String name;
    final Map<String, Attr> attrs = new LinkedHashMap<>();
    final Map<String, Nested> blocks = new LinkedHashMap<>();
    final Map<String, Free> free = new LinkedHashMap<>();
    /** Attributes that must be present (Nomad's parser rejects their absence, not only validation). */
    final Set<String> required = new LinkedHashSet<>();
    /**
     * Items Caravan parses but does not act on yet, by HCL name, with why; {@link Ignored} names each one a job sets
     * in the registration's {@code Warnings}. Marks disappear as features land.
     */
    final Map<String, Unsupported> unsupported = new LinkedHashMap<>();
    /** Structural conversions Nomad's parser does after decoding (e.g. periodic {@code SpecType}). */
    Consumer<ObjectNode> post = node -> { };
    /** Checks Nomad's parser makes on the decoded block (not validation, which is the server's). */
    Check check = (node, reporter) -> { };

    /** Reports a problem at an attribute of the block being checked (or at the block when it is absent). */
    interface Reporter {
        void error(String attribute, String summary, String detail);
    }

    interface Check {
        void apply(ObjectNode node, Reporter reporter);
    }

    Schema(String name) {
        this.name = name;
    }

    Schema attr(String hcl, String json, Kind kind) {
        attrs.put(hcl, new Attr(json, kind));
        return this;
    }

    Schema one(String hcl, String json, Schema schema) {
        blocks.put(hcl, new Nested(json, schema, Card.ONE, null, "", null));
        return this;
    }

    Schema list(String hcl, String json, Schema schema) {
        blocks.put(hcl, new Nested(json, schema, Card.LIST, null, "", null));
        return this;
    }

    Schema labelled(String hcl, String json, String labelKey, Schema schema) {
        blocks.put(hcl, new Nested(json, schema, Card.LIST, labelKey, "", null));
        return this;
    }

    Schema nested(Nested nested, String hcl) {
        blocks.put(hcl, nested);
        return this;
    }

    Schema map(String hcl, String json, String labelKey, Schema schema) {
        blocks.put(hcl, new Nested(json, schema, Card.MAP, labelKey, "", null));
        return this;
    }

    Schema free(String hcl, String json, Kind kind) {
        free.put(hcl, new Free(json, kind));
        return this;
    }

    Schema required(String... hcl) {
        required.addAll(List.of(hcl));
        return this;
    }

    /** Marks an attribute or block of this schema as parsed but not acted on. */
    Schema unsupported(String hcl, String reason) {
        return unsupported(hcl, reason, value -> true);
    }

    Schema unsupported(String hcl, String reason, Predicate<JsonNode> when) {
        if (!attrs.containsKey(hcl) && !blocks.containsKey(hcl) && !free.containsKey(hcl)) {
            throw new IllegalArgumentException(name + " has no " + hcl);
        }
        unsupported.put(hcl, new Unsupported(reason, when));
        return this;
    }

    Schema post(Consumer<ObjectNode> hook) {
        this.post = hook;
        return this;
    }

    Schema check(Check check) {
        this.check = check;
        return this;
    }
}
