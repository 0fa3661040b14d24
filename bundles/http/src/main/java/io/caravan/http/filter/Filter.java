package io.caravan.http.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;

/**
 * A parsed filter expression. Grammar (go-bexpr): {@code or} binds loosest, then {@code and}, then {@code not};
 * parentheses group; a match is one of {@code Sel == v}, {@code Sel != v}, {@code Sel is empty},
 * {@code Sel is not empty}, {@code v in Sel}, {@code v not in Sel}, {@code Sel contains v},
 * {@code Sel not contains v}, {@code Sel matches "re"}, {@code Sel not matches "re"}. Selectors are dotted field
 * names, with {@code ["key"]} for map keys; values are double-quoted or backtick strings, numbers or booleans.
 * Immutable and thread-safe.
 */
public final class Filter {
    private final String source;
    private final Node root;

    private Filter(String source, Node root) {
        this.source = source;
        this.root = root;
    }

    /** @throws CaravanException a 400 naming the position when the expression does not parse */
    public static Filter parse(String expression) {
        try {
            Parser p = new Parser(expression);
            Node root = p.or();
            p.expectEnd();
            return new Filter(expression, root);
        } catch (IllegalArgumentException e) {
            throw CaravanException.badRequest("failed to read filter expression: " + e.getMessage());
        }
    }

    /**
     * @param object the full object as JSON (Nomad's field names)
     * @throws CaravanException a 400 when a selector names a field the object does not have at all
     */
    public boolean matches(JsonNode object) {
        return root.eval(object);
    }

    @Override
    public String toString() {
        return source;
    }

    // ---- evaluation -------------------------------------------------------------------------------------------

    private sealed interface Node permits Or, And, Not, Match {
        boolean eval(JsonNode o);
    }

    private record Or(Node a, Node b) implements Node {
        public boolean eval(JsonNode o) {
            return a.eval(o) || b.eval(o);
        }
    }

    private record And(Node a, Node b) implements Node {
        public boolean eval(JsonNode o) {
            return a.eval(o) && b.eval(o);
        }
    }

    private record Not(Node inner) implements Node {
        public boolean eval(JsonNode o) {
            return !inner.eval(o);
        }
    }

    private enum Op { EQ, NE, EMPTY, NOT_EMPTY, IN, NOT_IN, CONTAINS, NOT_CONTAINS, MATCHES, NOT_MATCHES }

    private record Match(List<String> selector, Op op, String value, Pattern regex) implements Node {
        public boolean eval(JsonNode o) {
            JsonNode v = select(o);
            return switch (op) {
                case EQ -> equal(v);
                case NE -> !equal(v);
                case EMPTY -> empty(v);
                case NOT_EMPTY -> !empty(v);
                case IN, CONTAINS -> contains(v);
                case NOT_IN, NOT_CONTAINS -> !contains(v);
                case MATCHES -> v != null && v.isValueNode() && regex.matcher(v.asText()).find();
                case NOT_MATCHES -> v == null || !v.isValueNode() || !regex.matcher(v.asText()).find();
            };
        }

        /** The selected value; null when a nested key is absent. A top-level field the object lacks is an error. */
        private JsonNode select(JsonNode o) {
            JsonNode at = o;
            for (int i = 0; i < selector.size(); i++) {
                JsonNode next = at == null ? null : at.get(selector.get(i));
                if (next == null && i == 0) {
                    throw CaravanException.badRequest("error finding value in datum: /" + String.join("/", selector)
                            + " at part 0: couldn't find key: struct field with name \"" + selector.get(0) + "\"");
                }
                at = next;
            }
            return at == null || at.isNull() ? null : at;
        }

        private boolean equal(JsonNode v) {
            if (v == null || !v.isValueNode()) {
                return false;
            }
            if (v.isNumber()) {
                try {
                    return v.decimalValue().compareTo(new java.math.BigDecimal(value)) == 0;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
            return v.asText().equals(value);
        }

        private static boolean empty(JsonNode v) {
            return v == null || v.size() == 0 && (v.isContainerNode() || v.asText().isEmpty());
        }

        private boolean contains(JsonNode v) {
            if (v == null) {
                return false;
            }
            if (v.isArray()) {
                for (JsonNode item : v) {
                    if (item.isValueNode() && item.asText().equals(value)) {
                        return true;
                    }
                }
                return false;
            }
            if (v.isObject()) {
                return v.has(value);
            }
            return v.asText().contains(value);
        }
    }

    // ---- parsing ----------------------------------------------------------------------------------------------

    private static final class Parser {
        private final List<String> tokens;
        private final List<Integer> positions;
        private int at;

        Parser(String text) {
            tokens = new ArrayList<>();
            positions = new ArrayList<>();
            lex(text);
        }

        Node or() {
            Node left = and();
            while (accept("or")) {
                left = new Or(left, and());
            }
            return left;
        }

        Node and() {
            Node left = not();
            while (accept("and")) {
                left = new And(left, not());
            }
            return left;
        }

        Node not() {
            if (peekIs("not") && !peekIs(1, "in") && !peekIs(1, "contains") && !peekIs(1, "matches")) {
                at++;
                return new Not(not());
            }
            if (accept("(")) {
                Node inner = or();
                expect(")");
                return inner;
            }
            return match();
        }

        /** {@code value [not] in Selector}, or a selector followed by its operator. */
        Node match() {
            if (isValue(peek()) && (peekIs(1, "in") || peekIs(1, "not") && peekIs(2, "in"))) {
                String value = value(next());
                boolean negated = accept("not");
                expect("in");
                return new Match(selector(), negated ? Op.NOT_IN : Op.IN, value, null);
            }
            List<String> selector = selector();
            if (accept("==")) {
                return new Match(selector, Op.EQ, value(next()), null);
            }
            if (accept("!=")) {
                return new Match(selector, Op.NE, value(next()), null);
            }
            if (accept("is")) {
                boolean negated = accept("not");
                expect("empty");
                return new Match(selector, negated ? Op.NOT_EMPTY : Op.EMPTY, null, null);
            }
            boolean negated = accept("not");
            if (accept("contains")) {
                return new Match(selector, negated ? Op.NOT_CONTAINS : Op.CONTAINS, value(next()), null);
            }
            if (accept("matches")) {
                String re = value(next());
                try {
                    return new Match(selector, negated ? Op.NOT_MATCHES : Op.MATCHES, re, Pattern.compile(re));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("invalid regular expression " + quote(re) + ": "
                            + e.getDescription());
                }
            }
            throw error("expected an operator (==, !=, is, in, contains, matches)");
        }

        List<String> selector() {
            String first = next();
            if (first == null || !isIdentifier(first)) {
                throw error("expected a selector", at - 1);
            }
            List<String> parts = new ArrayList<>(List.of(first));
            while (true) {
                if (accept(".")) {
                    String part = next();
                    if (part == null || !isIdentifier(part)) {
                        throw error("expected a field name after '.'", at - 1);
                    }
                    parts.add(part);
                } else if (accept("[")) {
                    String key = next();
                    if (key == null || !isQuoted(key)) {
                        throw error("expected a quoted key inside [ ]", at - 1);
                    }
                    parts.add(value(key));
                    expect("]");
                } else {
                    return parts;
                }
            }
        }

        private static boolean isValue(String token) {
            return token != null && (isQuoted(token) || Character.isDigit(token.charAt(0)) || token.charAt(0) == '-');
        }

        private String value(String token) {
            if (token == null) {
                throw error("expected a value");
            }
            if (isQuoted(token)) {
                return token.substring(1, token.length() - 1);
            }
            return token; // a number, a bool or a bare word, compared as text
        }

        private static boolean isQuoted(String token) {
            return token.length() >= 2 && (token.charAt(0) == '"' || token.charAt(0) == '`');
        }

        private static boolean isIdentifier(String token) {
            return Character.isLetter(token.charAt(0)) || token.charAt(0) == '_';
        }

        private void lex(String s) {
            int i = 0;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                    continue;
                }
                int start = i;
                if (c == '"' || c == '`') {
                    StringBuilder text = new StringBuilder().append(c);
                    i++;
                    while (i < s.length() && s.charAt(i) != c) {
                        if (c == '"' && s.charAt(i) == '\\' && i + 1 < s.length()) {
                            i++;
                        }
                        text.append(s.charAt(i++));
                    }
                    if (i >= s.length()) {
                        throw new IllegalArgumentException("unterminated string at position " + (start + 1));
                    }
                    i++;
                    add(text.append(c).toString(), start);
                } else if (s.startsWith("==", i) || s.startsWith("!=", i)) {
                    add(s.substring(i, i + 2), start);
                    i += 2;
                } else if ("()[].".indexOf(c) >= 0) {
                    add(String.valueOf(c), start);
                    i++;
                } else if (Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '+') {
                    while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || "_-+".indexOf(s.charAt(i)) >= 0
                            || s.charAt(i) == '.' && Character.isDigit(c))) {
                        i++;
                    }
                    add(s.substring(start, i), start);
                } else {
                    throw new IllegalArgumentException("unexpected character '" + c + "' at position " + (i + 1));
                }
            }
        }

        private void add(String token, int position) {
            tokens.add(token);
            positions.add(position);
        }

        private String peek() {
            return at < tokens.size() ? tokens.get(at) : null;
        }

        private boolean peekIs(String token) {
            return peekIs(0, token);
        }

        private boolean peekIs(int ahead, String token) {
            return at + ahead < tokens.size() && tokens.get(at + ahead).equals(token);
        }

        private String next() {
            return at < tokens.size() ? tokens.get(at++) : null;
        }

        private boolean accept(String token) {
            if (peekIs(token)) {
                at++;
                return true;
            }
            return false;
        }

        private void expect(String token) {
            if (!accept(token)) {
                throw error("expected '" + token + "'");
            }
        }

        void expectEnd() {
            if (at < tokens.size()) {
                throw error("unexpected '" + tokens.get(at) + "'");
            }
        }

        private IllegalArgumentException error(String message) {
            return error(message, at);
        }

        private IllegalArgumentException error(String message, int token) {
            String where = token < positions.size() ? "position " + (positions.get(token) + 1) : "end of expression";
            return new IllegalArgumentException(message + " at " + where);
        }

        private static String quote(String s) {
            return '"' + s + '"';
        }
    }
}
