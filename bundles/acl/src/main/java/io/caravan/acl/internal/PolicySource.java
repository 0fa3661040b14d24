package io.caravan.acl.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;

import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Range;
import io.caravan.hcl.Value;

/** Reads policy text, HCL or JSON, into {@link Node}s. */
final class PolicySource {
    /** HCL1's JSON reader, which Nomad uses, takes trailing commas (Nomad's own examples have them). */
    private static final JsonFactory JSON = JsonFactory.builder().enable(JsonReadFeature.ALLOW_TRAILING_COMMA).build();
    private static final EvalContext LITERAL = EvalContext.empty();
    /** Block types that take one label (the name or glob), and those that take none. */
    private static final Set<String> LABELLED = Set.of("namespace", "host_volume", "path", "node_pool");
    private static final Set<String> UNLABELLED = Set.of("variables", "node", "agent", "operator", "quota",
            "plugin", "sentinel");
    private static final String NAME = "policy";

    private PolicySource() {
    }

    /** JSON when the text starts with '{' (no HCL body can), HCL otherwise. */
    static Node.Obj read(String text) {
        if (!text.stripLeading().startsWith("{")) {
            return hcl(text);
        }
        try (JsonParser p = JSON.createParser(text)) {
            p.nextToken();
            Node root = value(p);
            if (!(root instanceof Node.Obj obj)) {
                throw PolicyDecoder.error(root.pos(), "a JSON policy must be an object");
            }
            if (p.nextToken() != null) {
                throw PolicyDecoder.error(pos(p.currentTokenLocation()), "unexpected text after the JSON object");
            }
            return obj;
        } catch (JsonProcessingException e) {
            // The first line, without Jackson's note on where an unclosed object started
            String message = e.getOriginalMessage().lines().findFirst().orElse("invalid JSON");
            int note = message.indexOf(" (start marker");
            throw PolicyDecoder.error(pos(e.getLocation()), note < 0 ? message : message.substring(0, note));
        } catch (IOException e) { // reading a String fails only on its syntax, above
            throw PolicyDecoder.error(Node.Pos.UNKNOWN, "invalid JSON: " + e.getMessage());
        }
    }

    private static Node value(JsonParser p) throws IOException {
        Node.Pos at = pos(p.currentTokenLocation());
        switch (p.currentToken()) {
            case START_OBJECT -> {
                List<Node.Entry> entries = new ArrayList<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    Node.Pos keyPos = pos(p.currentTokenLocation());
                    p.nextToken();
                    entries.add(new Node.Entry(key, keyPos, value(p)));
                }
                return new Node.Obj(at, entries);
            }
            case START_ARRAY -> {
                List<Node> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(value(p));
                }
                return new Node.Arr(at, items);
            }
            case VALUE_STRING -> {
                return new Node.Scalar(at, p.getText());
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                return new Node.Scalar(at, p.getDecimalValue());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return new Node.Scalar(at, p.getBooleanValue());
            }
            default -> {
                return new Node.Scalar(at, null);
            }
        }
    }

    private static Node.Pos pos(JsonLocation location) {
        return location == null ? Node.Pos.UNKNOWN : new Node.Pos(location.getLineNr(), location.getColumnNr());
    }

    private static Node.Obj hcl(String text) {
        try {
            // HCL1-style quoted names ("policy" = "read") are accepted, as Nomad's HCL1 parser does.
            return body(HclParser.parse(text, NAME, HclParser.Options.HCL1_NAMES).body().items(), Node.Pos.UNKNOWN);
        } catch (HclException e) {
            Diagnostic d = e.diagnostics().get(0);
            String detail = d.detail() == null || d.detail().isEmpty() ? "" : "; " + d.detail();
            throw PolicyDecoder.error(pos(d.subject()), d.summary() + detail);
        }
    }

    private static Node.Obj body(List<BodyItem> items, Node.Pos at) {
        List<Node.Entry> entries = new ArrayList<>();
        for (BodyItem item : items) {
            if (item instanceof Attribute a) {
                entries.add(new Node.Entry(a.name(), pos(a.nameRange()), expression(a.expression())));
                continue;
            }
            Block b = (Block) item;
            Node.Pos typePos = pos(b.typeRange());
            int wanted = LABELLED.contains(b.type()) ? 1 : UNLABELLED.contains(b.type()) ? 0 : b.labels().size();
            if (b.labels().size() != wanted) {
                throw PolicyDecoder.error(typePos, wanted == 1
                        ? b.type() + " block needs one label, the name or a glob: " + b.type() + " \"<name>\" { }"
                        : b.type() + " block takes no label");
            }
            Node value = body(b.body().items(), pos(b.openBraceRange()));
            // Labels become keys one level down; an unknown block may have several (the decoder refuses it).
            for (int i = b.labels().size() - 1; i >= 0; i--) {
                Node.Pos labelPos = pos(b.labelRanges().get(i));
                value = new Node.Obj(labelPos, List.of(new Node.Entry(b.labels().get(i), labelPos, value)));
            }
            entries.add(new Node.Entry(b.type(), typePos, value));
        }
        return new Node.Obj(at, entries);
    }

    /** Tuples are walked so that each element keeps its own position. */
    private static Node expression(Expression e) {
        if (e instanceof Expression.Tuple tuple) {
            List<Node> items = new ArrayList<>();
            for (Expression element : tuple.elements()) {
                items.add(expression(element));
            }
            return new Node.Arr(pos(tuple.range()), items);
        }
        Value v = e.evaluate(LITERAL); // an HclException (unknown variable, ...) carries its own position
        Node.Pos at = pos(e.range());
        if (v instanceof Value.StringValue s) {
            return new Node.Scalar(at, s.value());
        }
        if (v instanceof Value.ListValue list) {
            return new Node.Arr(at, list.elements().stream().map(x -> (Node) scalar(x, at)).toList());
        }
        return scalar(v, at);
    }

    private static Node.Scalar scalar(Value v, Node.Pos at) {
        if (v instanceof Value.StringValue s) {
            return new Node.Scalar(at, s.value());
        }
        if (v instanceof Value.BoolValue b) {
            return new Node.Scalar(at, b.value());
        }
        if (v instanceof Value.NumberValue n) {
            return new Node.Scalar(at, n.value());
        }
        // objects, null: never valid in a policy, described by their HCL type name
        return new Node.Scalar(at, v.isNull() ? null : new Opaque(v.typeName()));
    }

    /** A value of a type no policy field takes; only its type name is kept, for the message. */
    record Opaque(String typeName) {}

    private static Node.Pos pos(Range range) {
        return range == null ? Node.Pos.UNKNOWN : new Node.Pos(range.start().line(), range.start().column());
    }
}
