package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differential test against HashiCorp's HCL, made hermetic: each {@code oracle/hcl2/X.hcl} (HCL2 native syntax)
 * and {@code oracle/hcl1/X.hcl} (agent configuration, HCL1) under src/test/resources is a minimised document on
 * which Caravan once disagreed with the Go libraries, and {@code X.json} is what the Go side of the oracle
 * ({@code shared/tools/hcl-oracle}) printed for it. Our answer, put in the same canonical form, must agree: both
 * accept with identical values, or both reject. An evaluation error on both sides agrees whatever its message.
 */
class OracleRegressionTest {

    static Stream<String> hcl2() throws Exception {
        return cases("hcl2");
    }

    static Stream<String> hcl1() throws Exception {
        return cases("hcl1");
    }

    private static Stream<String> cases(String mode) throws IOException, URISyntaxException {
        Path dir = Path.of(OracleRegressionTest.class.getResource("/oracle/" + mode).toURI());
        try (Stream<Path> files = Files.list(dir)) {
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".hcl"))
                    .sorted().map(n -> mode + "/" + n.substring(0, n.length() - 4)).toList();
            assertFalse(names.isEmpty(), "no cases in " + dir);
            return names.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("hcl2")
    void hcl2AgreesWithHashiCorp(String name) throws Exception {
        check(name, false);
    }

    @ParameterizedTest
    @MethodSource("hcl1")
    void agentConfigurationAgreesWithHcl1(String name) throws Exception {
        check(name, true);
    }

    private static void check(String name, boolean hcl1) throws Exception {
        Path dir = Path.of(OracleRegressionTest.class.getResource("/oracle").toURI());
        byte[] bytes = Files.readAllBytes(dir.resolve(name + ".hcl"));
        Map<String, Object> go = asMap(Json.read(Files.readString(dir.resolve(name + ".json"))));
        Map<String, Object> ours;
        try {
            String src = HclParser.decode(bytes, name);
            ours = hcl1 ? Canonical.hcl1(src, name) : Canonical.hcl2(src, name);
        } catch (HclException e) {
            ours = Map.of("status", "error");
        }
        String what = name + ": " + new String(bytes, StandardCharsets.UTF_8) + "\ngo:   " + go + "\nours: " + ours;
        if ("error".equals(go.get("status")) || "valueerror".equals(go.get("status"))) {
            assertEquals("error", ours.get("status"), what);
            return;
        }
        assertEquals("ok", go.get("status"), "the stored case itself: " + what);
        assertEquals("ok", ours.get("status"), what);
        Object expected = hcl1 ? go.get("entries") : go.get("body");
        Object actual = hcl1 ? ours.get("entries") : ours.get("body");
        assertTrue(agree(expected, actual), what);
    }

    /** Deep equality, except that evaluation errors agree with each other and attributes are compared by name. */
    @SuppressWarnings("unchecked")
    private static boolean agree(Object go, Object ours) {
        if (go instanceof Map<?, ?> g && ours instanceof Map<?, ?> o) {
            if (g.containsKey("evalerror") || o.containsKey("evalerror")) {
                return g.containsKey("evalerror") && o.containsKey("evalerror");
            }
            if (g.containsKey("attrs") && g.containsKey("blocks")) {
                return agree(byName((List<Object>) g.get("attrs")), byName((List<Object>) o.get("attrs")))
                        && agree(g.get("blocks"), o.get("blocks"));
            }
            if (!g.keySet().equals(o.keySet())) {
                return false;
            }
            return g.keySet().stream().allMatch(k -> agree(g.get(k), o.get(k)));
        }
        if (go instanceof List<?> g && ours instanceof List<?> o) {
            if (g.size() != o.size()) {
                return false;
            }
            for (int i = 0; i < g.size(); i++) {
                if (!agree(g.get(i), o.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return go == null ? ours == null : go.equals(ours);
    }

    private static Map<String, Object> byName(List<Object> attrs) {
        Map<String, Object> out = new TreeMap<>();
        for (Object a : attrs) {
            Map<String, Object> m = asMap(a);
            out.put((String) m.get("name"), m.get("expr"));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object o) {
        return (Map<String, Object>) o;
    }

    /** Our side of the oracle's canonical form (see the oracle's README), through the public API only. */
    static final class Canonical {
        private static final EvalContext LITERAL = EvalContext.empty().deferringUnknownVariables();

        static Map<String, Object> hcl2(String src, String name) {
            HclParser.Result res = HclParser.tryParse(src, name, HclParser.Options.STRICT);
            if (res.hasErrors()) {
                return Map.of("status", "error");
            }
            return Map.of("status", "ok", "body", body(res.file(), res.file().body()));
        }

        static Map<String, Object> hcl1(String src, String name) {
            HclParser.Result res = HclParser.tryParse(src, name, HclParser.Options.HCL1_NAMES);
            if (res.hasErrors()) {
                return Map.of("status", "error");
            }
            try {
                return Map.of("status", "ok", "entries", entries(res.file(), res.file().body()));
            } catch (HclException e) {
                return Map.of("status", "error");
            }
        }

        private static Map<String, Object> body(HclFile file, Body b) {
            List<Object> attrs = new ArrayList<>();
            List<Object> blocks = new ArrayList<>();
            for (BodyItem item : b.items()) {
                if (item instanceof Attribute a) {
                    attrs.add(Map.of("name", a.name(), "expr", expr(file, a.expression())));
                } else if (item instanceof Block blk) {
                    blocks.add(Map.of("type", blk.type(), "labels", new ArrayList<Object>(blk.labels()),
                            "body", body(file, blk.body())));
                }
            }
            return Map.of("attrs", attrs, "blocks", blocks);
        }

        private static Map<String, Object> expr(HclFile file, Expression e) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (!e.variables().isEmpty() || containsCall(e)) {
                m.put("unevaluated", file.text(e.range()));
                return m;
            }
            try {
                m.put("value", value(e.evaluate(EvalContext.empty())));
            } catch (HclException ex) {
                m.put("evalerror", ex.getMessage());
            }
            return m;
        }

        private static boolean containsCall(Expression e) {
            if (e == null) {
                return false;
            } else if (e instanceof Expression.Call) {
                return true;
            } else if (e instanceof Expression.Template t) {
                return partsCall(t.parts());
            } else if (e instanceof Expression.GetAttr g) {
                return containsCall(g.object());
            } else if (e instanceof Expression.Index i) {
                return containsCall(i.collection()) || containsCall(i.key());
            } else if (e instanceof Expression.Splat s) {
                return containsCall(s.source()) || containsCall(s.each());
            } else if (e instanceof Expression.Tuple t) {
                return t.elements().stream().anyMatch(Canonical::containsCall);
            } else if (e instanceof Expression.ObjectCons o) {
                return o.items().stream().anyMatch(it -> containsCall(it.key()) || containsCall(it.value()));
            } else if (e instanceof Expression.For f) {
                return containsCall(f.collection()) || containsCall(f.keyResult()) || containsCall(f.value())
                        || containsCall(f.condition());
            } else if (e instanceof Expression.Unary u) {
                return containsCall(u.operand());
            } else if (e instanceof Expression.Binary b) {
                return containsCall(b.left()) || containsCall(b.right());
            } else if (e instanceof Expression.Conditional c) {
                return containsCall(c.condition()) || containsCall(c.whenTrue()) || containsCall(c.whenFalse());
            } else if (e instanceof Expression.Parens p) {
                return containsCall(p.expression());
            }
            return false;
        }

        private static boolean partsCall(List<TemplatePart> parts) {
            for (TemplatePart p : parts) {
                if (p instanceof TemplatePart.Interpolation i && containsCall(i.expression())
                        || p instanceof TemplatePart.If d
                        && (containsCall(d.condition()) || partsCall(d.then()) || partsCall(d.otherwise()))
                        || p instanceof TemplatePart.For d && (containsCall(d.collection()) || partsCall(d.body()))) {
                    return true;
                }
            }
            return false;
        }

        private static Object value(Value v) {
            if (v instanceof Value.NullValue) {
                return null;
            } else if (v instanceof Value.StringValue s) {
                return s.value();
            } else if (v instanceof Value.NumberValue n) {
                return Map.of("n", decimal(n.value()));
            } else if (v instanceof Value.BoolValue b) {
                return b.value();
            } else if (v instanceof Value.ListValue l) {
                List<Object> out = new ArrayList<>();
                l.elements().forEach(el -> out.add(value(el)));
                return out;
            } else if (v instanceof Value.ObjectValue o) {
                Map<String, Object> out = new TreeMap<>();
                o.attributes().forEach((k, x) -> out.put(k, value(x)));
                return Map.of("o", out);
            }
            return Map.of("other", String.valueOf(v));
        }

        /** The oracle's number form: plain when at most 40 characters, else DIGITSeEXP. */
        static String decimal(BigDecimal d) {
            if (d.signum() == 0) {
                return "0";
            }
            BigDecimal s = d.stripTrailingZeros();
            String digits = s.unscaledValue().abs().toString();
            int exp = -s.scale();
            String sign = s.signum() < 0 ? "-" : "";
            String sci = sign + digits + "e" + exp;
            String plain;
            if (exp >= 0) {
                if (digits.length() + (long) exp > 40) {
                    return sci;
                }
                plain = digits + "0".repeat(exp);
            } else if (-exp < digits.length()) {
                plain = digits.substring(0, digits.length() + exp) + "." + digits.substring(digits.length() + exp);
            } else {
                if (2L - exp > 40) {
                    return sci;
                }
                plain = "0." + "0".repeat(-exp - digits.length()) + digits;
            }
            return plain.length() > 40 ? sci : sign + plain;
        }

        /** HCL1 entries: [key, node] in source order; a block's labels nest one level each. */
        private static List<Object> entries(HclFile file, Body body) {
            List<Object> out = new ArrayList<>();
            for (BodyItem item : body.items()) {
                if (item instanceof Attribute a) {
                    out.add(List.of(a.name(), node(file, a.expression())));
                } else {
                    Block b = (Block) item;
                    Object value = Map.of("o", entries(file, b.body()));
                    for (int i = b.labels().size() - 1; i >= 0; i--) {
                        value = Map.of("o", List.of(List.of(b.labels().get(i), value)));
                    }
                    out.add(List.of(b.type(), value));
                }
            }
            return out;
        }

        private static Object node(HclFile file, Expression e) {
            if (e instanceof Expression.ObjectCons o) {
                List<Object> entries = new ArrayList<>();
                for (Expression.ObjectCons.Item item : o.items()) {
                    String key = item.key() instanceof Expression.Variable v ? v.name()
                            : String.valueOf(item.key().evaluate(LITERAL).toJava());
                    entries.add(List.of(key, node(file, item.value())));
                }
                return Map.of("o", entries);
            }
            if (e instanceof Expression.Tuple t) {
                List<Object> items = new ArrayList<>();
                t.elements().forEach(el -> items.add(node(file, el)));
                return items;
            }
            Value v = e.evaluate(LITERAL);
            return v instanceof Value.UnknownValue u ? Map.of("unknown", file.text(u.range())) : value(v);
        }
    }

    /** Just enough JSON to read the stored answers: objects (in order), arrays, strings, numbers, literals. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object read(String text) {
            Json j = new Json(text.strip());
            Object v = j.value();
            assertEquals(j.s.length(), j.i, "trailing text in JSON");
            return v;
        }

        private Object value() {
            char c = peek();
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                while (peek() != '}') {
                    String k = string();
                    expect(':');
                    m.put(k, value());
                    if (peek() == ',') {
                        i++;
                    }
                }
                i++;
                return m;
            } else if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                while (peek() != ']') {
                    l.add(value());
                    if (peek() == ',') {
                        i++;
                    }
                }
                i++;
                return l;
            } else if (c == '"') {
                return string();
            } else if (s.startsWith("true", i) || s.startsWith("false", i) || s.startsWith("null", i)) {
                String word = s.startsWith("true", i) ? "true" : s.startsWith("false", i) ? "false" : "null";
                i += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            return Long.valueOf(s.substring(start, i));
        }

        /** The next character that is not white space. */
        private char peek() {
            while (Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            return s.charAt(i);
        }

        private void expect(char c) {
            if (peek() != c || s.charAt(i++) != c) {
                fail("JSON: expected " + c + " at " + (i - 1));
            }
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e);
                }
            }
        }
    }
}
