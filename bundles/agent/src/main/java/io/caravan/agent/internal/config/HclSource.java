package io.caravan.agent.internal.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.Body;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Range;
import io.caravan.hcl.Value;

/**
 * HCL configuration files, read with the shared parser. Nomad reads agent configuration with HCL1, so quoted and
 * dotted names are allowed ({@code "/opt/app" = "/etc"}, {@code driver.allowlist = "docker"}) and a block's labels
 * are keys one level down ({@code client "meta" { }} is {@code client { meta { } }}), which is also how HCL's JSON
 * form writes labelled blocks. Strings are literal: {@code ${...}} stays as written. As in HCL1, items may share a
 * line ({@code ports { http = 4646, rpc = 4647 }}), an object key may be dotted ({@code options = {
 * driver.raw_exec.enable = "1" }}), and an attribute set twice keeps its last value.
 */
final class HclSource {
    private static final EvalContext LITERAL = EvalContext.empty().deferringUnknownVariables();

    private HclSource() {
    }

    static Node.Obj read(Path file) throws ConfigException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(Pos.of(file.toString()), "cannot read: " + e.getMessage());
        }
        try {
            String text = HclParser.decode(bytes, file.toString());
            Body body = HclParser.parse(text, file.toString(), HclParser.Options.HCL1_NAMES).body();
            return body(body);
        } catch (HclException e) {
            throw new ConfigException(e.diagnostics().stream()
                    .map(d -> new ConfigException.Problem(pos(d.subject()),
                            d.summary() + (d.detail() == null || d.detail().isEmpty() ? "" : "; " + d.detail())))
                    .toList());
        }
    }

    private static Node.Obj body(Body body) throws ConfigException {
        // HCL1 lets an attribute be set again; decoding then keeps the last setting, so the earlier ones are dropped.
        Map<String, Attribute> last = new HashMap<>();
        for (BodyItem item : body.items()) {
            if (item instanceof Attribute a) {
                last.put(a.name(), a);
            }
        }
        List<Node.Entry> entries = new ArrayList<>();
        for (BodyItem item : body.items()) {
            if (item instanceof Attribute a) {
                if (last.get(a.name()) != a) {
                    continue;
                }
                entries.add(new Node.Entry(a.name(), pos(a.nameRange()), expression(a.expression())));
            } else {
                Block b = (Block) item;
                Node value = body(b.body());
                for (int i = b.labels().size() - 1; i >= 0; i--) {
                    Pos labelPos = pos(b.labelRanges().get(i));
                    value = new Node.Obj(labelPos, List.of(new Node.Entry(b.labels().get(i), labelPos, value)));
                }
                entries.add(new Node.Entry(b.type(), pos(b.typeRange()), value));
            }
        }
        return new Node.Obj(pos(body.range()), entries);
    }

    /** Object and tuple literals are walked, so each nested key keeps its own position. */
    private static Node expression(Expression e) throws ConfigException {
        if (e instanceof Expression.ObjectCons obj) {
            List<Node.Entry> entries = new ArrayList<>();
            for (Expression.ObjectCons.Item item : obj.items()) {
                String key = item.key() instanceof Expression.Variable v ? v.name()
                        : String.valueOf(evaluate(item.key()).toJava());
                entries.add(new Node.Entry(key, pos(item.key().range()), expression(item.value())));
            }
            return new Node.Obj(pos(obj.range()), entries);
        }
        if (e instanceof Expression.Tuple tuple) {
            List<Node> items = new ArrayList<>();
            for (Expression element : tuple.elements()) {
                items.add(expression(element));
            }
            return new Node.Arr(pos(tuple.range()), items);
        }
        return value(evaluate(e), pos(e.range()));
    }

    private static Value evaluate(Expression e) throws ConfigException {
        try {
            return e.evaluate(LITERAL);
        } catch (HclException ex) {
            throw new ConfigException(ex.diagnostics().stream()
                    .map(d -> new ConfigException.Problem(pos(d.subject()), d.summary())).toList());
        }
    }

    private static Node value(Value v, Pos pos) {
        if (v instanceof Value.ObjectValue obj) {
            List<Node.Entry> entries = new ArrayList<>();
            for (Map.Entry<String, Value> e : obj.attributes().entrySet()) {
                entries.add(new Node.Entry(e.getKey(), pos, value(e.getValue(), pos)));
            }
            return new Node.Obj(pos, entries);
        }
        if (v instanceof Value.ListValue list) {
            return new Node.Arr(pos, list.elements().stream().map(x -> value(x, pos)).toList());
        }
        if (v instanceof Value.StringValue s) {
            return new Node.Scalar(pos, s.value());
        }
        if (v instanceof Value.NumberValue n) {
            return new Node.Scalar(pos, n.value());
        }
        if (v instanceof Value.BoolValue b) {
            return new Node.Scalar(pos, b.value());
        }
        return new Node.Scalar(pos, v instanceof Value.NullValue ? null : String.valueOf(v.toJava()));
    }

    private static Pos pos(Range range) {
        return range == null ? Pos.of("?")
                : new Pos(range.filename(), range.start().line(), range.start().column());
    }
}
