package io.caravan.hcl.internal;

import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.Body;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclFile;
import io.caravan.hcl.Operator;
import io.caravan.hcl.Range;
import io.caravan.hcl.TemplatePart;
import io.caravan.hcl.Value;
import io.caravan.hcl.internal.Token.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent parser for the HCL native syntax, with a precedence climber for binary operators.
 *
 * <p>Newlines terminate attributes and blocks but are insignificant inside brackets, so the parser keeps a stack
 * saying whether newlines are currently skipped (pushed on entering {@code ( [ ${}, bodies and object
 * constructors). Errors throw {@link ParseError} after recording a diagnostic; the body loop catches it, skips to
 * the end of the item and carries on, so one run reports several independent errors.
 */
public final class Parser {

    /** Unwinds to the nearest body item after the diagnostic has been recorded. */
    private static final class ParseError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseError() {
            super(null, null, false, false);
        }
    }

    private final String src;
    private final SourceMap map;
    private final List<Token> tokens;
    private final List<Diagnostic> diagnostics;
    private final Deque<Boolean> skipNewlines = new ArrayDeque<>();
    private int idx;
    /**
     * Nesting of expressions and blocks; bounded so hostile input gets a diagnostic, not a StackOverflowError. A
     * level costs up to 2 KiB of stack once the JIT has compiled the parser (a quoted string's interpolation is the
     * costliest), so 128 levels need about half of the agent's 512 KiB thread stacks ({@code -Xss512k}).
     */
    private static final int MAX_NESTING = 128;
    private int nesting;
    /** HCL1 compatibility: item names may be quoted strings or dotted identifiers. */
    private boolean hcl1Names;

    private Parser(String src, SourceMap map, List<Token> tokens, List<Diagnostic> diagnostics) {
        this.src = src;
        this.map = map;
        this.tokens = tokens;
        this.diagnostics = diagnostics;
    }

    /**
     * Parses a configuration file; diagnostics are appended to {@code all} (at most 100 errors, then a note that
     * there were more). With {@code hcl1Names},
     * attribute and block names may also be quoted ({@code "a" = 1}) or dotted ({@code a.b = 1}), as HCL1 allowed.
     */
    public static HclFile parseFile(String src, String filename, boolean hcl1Names, List<Diagnostic> all) {
        List<Diagnostic> diagnostics = CappedDiagnostics.of(all);
        SourceMap map = new SourceMap(filename, src);
        Parser p = new Parser(src, map, Lexer.lex(src, map, diagnostics, hcl1Names), diagnostics);
        p.hcl1Names = hcl1Names;
        List<BodyItem> items = p.parseBody(null);
        return new HclFile(filename, src, new Body(items, map.range(0, src.length())));
    }

    /** Parses a lone expression (newlines are insignificant); null if it failed. */
    public static Expression parseExpression(String src, String filename, List<Diagnostic> all) {
        List<Diagnostic> diagnostics = CappedDiagnostics.of(all);
        SourceMap map = new SourceMap(filename, src);
        Parser p = new Parser(src, map, Lexer.lex(src, map, diagnostics), diagnostics);
        p.skipNewlines.push(true);
        try {
            Expression e = p.expression();
            Token end = p.peek();
            if (!end.is(Type.EOF)) {
                p.error(end, "Extra characters after expression", "An expression was successfully parsed, but extra "
                        + "characters were found after it.");
            }
            return e;
        } catch (ParseError e) {
            return null;
        }
    }

    /** Parses a standalone template (e.g. a file's content); null if it failed. */
    public static Expression parseTemplate(String src, String filename, List<Diagnostic> all) {
        List<Diagnostic> diagnostics = CappedDiagnostics.of(all);
        SourceMap map = new SourceMap(filename, src);
        Parser p = new Parser(src, map, Lexer.lexTemplate(src, map, diagnostics), diagnostics);
        try {
            return p.template(null, Type.EOF, false);
        } catch (ParseError e) {
            return null;
        }
    }

    // ---- token access -------------------------------------------------------------------------------------------

    private boolean skippingNewlines() {
        Boolean b = skipNewlines.peek();
        return b != null && b;
    }

    private Token peek() {
        return peek(0);
    }

    /** The {@code n}-th upcoming token, skipping newlines if they are currently insignificant. */
    private Token peek(int n) {
        int i = idx;
        for (int k = 0; ; k++) {
            if (skippingNewlines()) {
                while (tokens.get(i).is(Type.NEWLINE)) {
                    i++;
                }
            }
            if (k == n || tokens.get(i).is(Type.EOF)) {
                return tokens.get(i);
            }
            i++;
        }
    }

    private Token next() {
        if (skippingNewlines()) {
            while (tokens.get(idx).is(Type.NEWLINE)) {
                idx++;
            }
        }
        Token t = tokens.get(idx);
        if (!t.is(Type.EOF)) {
            idx++;
        }
        return t;
    }

    private Token rawPeek() {
        return tokens.get(idx);
    }

    private Token expect(Type type, String summary, String detail) {
        Token t = peek();
        if (!t.is(type)) {
            error(t, summary, detail);
        }
        return next();
    }

    private Range range(Token t) {
        return map.range(t.start(), t.end());
    }

    private Range range(Token from, Token to) {
        return map.range(from.start(), to.end());
    }

    private ParseError error(Token at, String summary, String detail) {
        // An invalid character was already reported by the lexer: don't pile a second error on it.
        if (!at.is(Type.INVALID)) {
            diagnostics.add(Diagnostic.error(summary, detail, range(at)));
        }
        throw new ParseError();
    }

    private ParseError error(Range at, String summary, String detail) {
        diagnostics.add(Diagnostic.error(summary, detail, at));
        throw new ParseError();
    }

    private static boolean opens(Token t) {
        return switch (t.type()) {
            case LBRACE, LBRACK, LPAREN, TEMPLATE_INTERP, TEMPLATE_CONTROL, OHEREDOC -> true;
            default -> false;
        };
    }

    private static boolean closes(Token t) {
        return switch (t.type()) {
            case RBRACE, RBRACK, RPAREN, TEMPLATE_SEQ_END, CHEREDOC -> true;
            default -> false;
        };
    }

    // ---- structure ----------------------------------------------------------------------------------------------

    /** Items up to EOF (file) or up to, not including, the {@code }} closing {@code open}. */
    private List<BodyItem> parseBody(Token open) {
        skipNewlines.push(false);
        List<BodyItem> items = new ArrayList<>();
        Map<String, Attribute> seen = new HashMap<>();
        int stackDepth = skipNewlines.size();
        while (true) {
            Token t = rawPeek();
            if (t.is(Type.NEWLINE) || hcl1Names && t.is(Type.COMMA)) { // HCL1 allows stray commas between items
                next();
                continue;
            }
            if (t.is(Type.EOF)) {
                if (open != null) {
                    diagnostics.add(Diagnostic.error("Unclosed configuration block", "There is no closing brace for "
                            + "this block before the end of the file. This may be caused by incorrect brace nesting "
                            + "elsewhere in this file.", range(open)));
                }
                break;
            }
            if (t.is(Type.RBRACE) && open != null) {
                break;
            }
            int start = idx;
            try {
                BodyItem item = parseItem();
                if (item instanceof Attribute a && !hcl1Names) { // HCL1 keeps each setting, in order
                    Attribute prev = seen.putIfAbsent(a.name(), a);
                    if (prev != null) {
                        diagnostics.add(Diagnostic.error("Attribute redefined", "The argument \"" + a.name()
                                + "\" was already set at " + prev.nameRange() + ". Each argument may be set only once.",
                                a.nameRange()));
                    }
                }
                items.add(item);
            } catch (ParseError e) {
                while (skipNewlines.size() > stackDepth) {
                    skipNewlines.pop();
                }
                recover(start, open != null);
            }
        }
        skipNewlines.pop();
        return items;
    }

    /**
     * Skips the rest of a broken item: to the next newline outside brackets, or (in a block) to the block's
     * closing brace. Always makes progress, so the body loop cannot spin.
     */
    private void recover(int start, boolean inBlock) {
        int errorAt = Math.max(start, idx - 1);
        int depth = 0;
        int i = start;
        for (; ; i++) {
            Token t = tokens.get(i);
            if (t.is(Type.EOF)) {
                break;
            }
            if (i >= errorAt && depth <= 0 && t.is(Type.NEWLINE)) {
                i++;
                break;
            }
            if (opens(t)) {
                depth++;
            } else if (closes(t)) {
                depth--;
                if (inBlock && depth < 0 && i >= errorAt && t.is(Type.RBRACE) && i > start) {
                    break;
                }
            }
        }
        idx = Math.max(i, Math.min(start + 1, tokens.size() - 1));
    }

    private BodyItem parseItem() {
        Token first = peek();
        String name;
        Range nameRange;
        if (hcl1Names && first.is(Type.OQUOTE)) {
            name = stringLiteral();
            nameRange = range(first, tokens.get(idx - 1));
        } else {
            next();
            if (!first.is(Type.IDENT)) {
                error(first, "Argument or block definition required", "An argument or block definition is required "
                        + "here." + (first.is(Type.OQUOTE) ? " Argument names must be identifiers, not quoted strings."
                        : ""));
            }
            StringBuilder sb = new StringBuilder(first.text());
            Token last = first;
            while (hcl1Names && peek().is(Type.DOT) && peek(1).is(Type.IDENT)) {
                next();
                last = next();
                sb.append('.').append(last.text());
            }
            name = sb.toString();
            nameRange = range(first, last);
        }
        if (peek().is(Type.EQUAL)) {
            next();
            Expression value = expression();
            endItem("Missing newline after argument", "An argument definition must end with a newline.");
            return new Attribute(name, value, nameRange, Range.between(nameRange, value.range()));
        }
        return parseBlock(name, nameRange);
    }

    private Block parseBlock(String type, Range typeRange) {
        nesting++;
        try {
            checkNesting(typeRange);
            return block(type, typeRange);
        } finally {
            nesting--;
        }
    }

    private void checkNesting(Range at) {
        if (nesting > MAX_NESTING) {
            error(at, "Nesting too deep", "Expressions and blocks may be nested at most " + MAX_NESTING
                    + " levels deep (each operator of a chain such as a + b + c, and each attribute access or "
                    + "index of a traversal such as a.b[0].c, counts as a level).");
        }
    }

    /**
     * One level deeper for an operator or traversal step: a chain is parsed in a loop, but it builds a tree as deep
     * as it is long, which evaluation (and every other walk of the tree) recurses into. Callers save
     * {@link #nesting} and restore it when the chain ends.
     */
    private void chained(Token at) {
        nesting++;
        checkNesting(range(at));
    }

    private Block block(String type, Range typeRange) {
        List<String> labels = new ArrayList<>();
        List<Range> labelRanges = new ArrayList<>();
        while (!peek().is(Type.LBRACE)) {
            Token t = peek();
            if (t.is(Type.IDENT)) {
                next();
                labels.add(t.text());
                labelRanges.add(range(t));
            } else if (t.is(Type.OQUOTE)) {
                labels.add(stringLiteral());
                labelRanges.add(range(t, tokens.get(idx - 1)));
            } else {
                error(t, "Invalid block definition", "Either a quoted string block label or an opening brace (\"{\") "
                        + "is expected here.");
            }
        }
        Token open = next();
        List<BodyItem> items = new ArrayList<>();
        Token close;
        if (rawPeek().is(Type.NEWLINE) || hcl1Names) { // HCL1 has no one-line block form: any body may be on one line
            items = parseBody(open);
            if (!rawPeek().is(Type.RBRACE)) {
                throw new ParseError(); // unclosed: parseBody has reported it
            }
            close = next();
        } else if (rawPeek().is(Type.RBRACE)) {
            close = next();
        } else if (rawPeek().is(Type.EOF)) {
            throw error(range(open), "Unclosed configuration block", "There is no closing brace for this block "
                    + "before the end of the file. This may be caused by incorrect brace nesting elsewhere in this "
                    + "file.");
        } else {
            Attribute only = singleLineAttribute(open);
            if (only != null) {
                items.add(only);
            }
            close = tokens.get(idx - 1);
        }
        endItem("Missing newline after block definition", "A block definition must end with a newline.");
        Range bodyRange = range(open, close);
        return new Block(type, labels, new Body(items, bodyRange), typeRange, labelRanges, range(open),
                range(close), Range.between(typeRange, range(close)));
    }

    /**
     * The end of an attribute or block: a newline (or the end of the file). HCL1 separates items by newlines or
     * commas, or by nothing at all ({@code ports { http = 4646, rpc = 4647 }}, {@code a = 1 }} on one line).
     */
    private void endItem(String summary, String detail) {
        Token end = rawPeek();
        if (end.is(Type.NEWLINE) || hcl1Names && end.is(Type.COMMA)) {
            next();
        } else if (!end.is(Type.EOF) && !hcl1Names) {
            error(end, summary, detail);
        }
    }

    /**
     * The content of a one-line block {@code a { b = 1 }}: at most one attribute, closed on the same line. On error
     * the rest of the block is skipped (to its closing brace) so the following blocks are still checked.
     */
    private Attribute singleLineAttribute(Token open) {
        Token name = next();
        if (!name.is(Type.IDENT)) {
            error(name, "Argument or block definition required", "An argument or block definition is required here.");
        }
        if (!peek().is(Type.EQUAL)) {
            int j = idx;
            while (!tokens.get(j).is(Type.LBRACE) && !tokens.get(j).is(Type.NEWLINE) && !tokens.get(j).is(Type.EOF)) {
                j++;
            }
            Range subject = tokens.get(j).is(Type.LBRACE) ? range(name, tokens.get(j)) : range(name);
            diagnostics.add(Diagnostic.error("Invalid single-line block definition",
                    "A single-line block definition cannot contain another block definition.", subject));
            skipToClose(open);
            return null;
        }
        next();
        Expression value = expression();
        Token end = rawPeek();
        if (end.is(Type.RBRACE)) {
            next();
            return new Attribute(name.text(), value, range(name), Range.between(range(name), value.range()));
        }
        String detail = end.is(Type.COMMA) ? "Only one argument is allowed in a single-line block definition."
                : end.is(Type.NEWLINE) ? "The closing brace for a single-line block definition must be on the same line."
                : "A single-line block definition must end with a closing brace.";
        diagnostics.add(Diagnostic.error("Invalid single-line block definition", detail, range(end)));
        skipToClose(open);
        return null;
    }

    /** Consumes tokens up to and including the brace that closes {@code open}. */
    private void skipToClose(Token open) {
        int depth = 0;
        while (true) {
            Token t = tokens.get(idx);
            if (t.is(Type.EOF)) {
                error(range(open), "Unclosed configuration block", "There is no closing brace for this block before "
                        + "the end of the file.");
            }
            idx++;
            if (opens(t)) {
                depth++;
            } else if (closes(t)) {
                if (depth == 0 && t.is(Type.RBRACE)) {
                    return;
                }
                depth--;
            }
        }
    }

    /** A quoted string without interpolations (block labels); returns its unescaped value. */
    private String stringLiteral() {
        Token open = next();
        StringBuilder sb = new StringBuilder();
        while (true) {
            Token t = rawPeek();
            if (t.is(Type.QUOTED_LIT)) {
                next();
                sb.append(unescapeQuoted(t));
            } else if (t.is(Type.CQUOTE)) {
                next();
                return sb.toString();
            } else if (t.is(Type.TEMPLATE_INTERP) || t.is(Type.TEMPLATE_CONTROL)) {
                error(t, "Invalid string literal", "Template sequences are not allowed in this string. To include a "
                        + "literal \"$\", double it (as \"$$\") to escape it.");
            } else {
                error(open, "Unterminated string", "No closing quote was found for this string.");
            }
        }
    }

    // ---- expressions --------------------------------------------------------------------------------------------

    private Expression expression() {
        nesting++;
        try {
            checkNesting(range(peek()));
            return conditional();
        } finally {
            nesting--;
        }
    }

    private Expression conditional() {
        Expression cond = binary(1);
        if (!peek().is(Type.QUESTION)) {
            return cond;
        }
        next();
        Expression whenTrue = expression();
        expect(Type.COLON, "Missing false expression in conditional", "The conditional operator (...?...:...) "
                + "requires a false expression, delimited by a colon.");
        Expression whenFalse = expression();
        return new Expression.Conditional(cond, whenTrue, whenFalse, Range.between(cond.range(), whenFalse.range()));
    }

    private static Operator binaryOperator(Token t) {
        return switch (t.type()) {
            case OR -> Operator.OR;
            case AND -> Operator.AND;
            case EQEQ -> Operator.EQUAL;
            case NOTEQ -> Operator.NOT_EQUAL;
            case GT -> Operator.GREATER;
            case GTE -> Operator.GREATER_OR_EQUAL;
            case LT -> Operator.LESS;
            case LTE -> Operator.LESS_OR_EQUAL;
            case PLUS -> Operator.ADD;
            case MINUS -> Operator.SUBTRACT;
            case STAR -> Operator.MULTIPLY;
            case SLASH -> Operator.DIVIDE;
            case PERCENT -> Operator.MODULO;
            default -> null;
        };
    }

    /** Precedence climbing: operators of level >= minLevel; each level is left-associative. */
    private Expression binary(int minLevel) {
        Expression left = unary();
        int depth = nesting;
        try {
            while (true) {
                Operator op = binaryOperator(peek());
                if (op == null || op.level() < minLevel) {
                    return left;
                }
                chained(next());
                Expression right = binary(op.level() + 1);
                left = new Expression.Binary(op, left, right, Range.between(left.range(), right.range()));
            }
        } finally {
            nesting = depth;
        }
    }

    private Expression unary() {
        Token t = peek();
        if (t.is(Type.MINUS) || t.is(Type.BANG)) {
            next();
            Expression operand;
            nesting++;
            try {
                checkNesting(range(t));
                operand = unary();
            } finally {
                nesting--;
            }
            return new Expression.Unary(t.is(Type.MINUS) ? Operator.NEGATE : Operator.NOT, operand,
                    Range.between(range(t), operand.range()));
        }
        return postfix(primary());
    }

    /** Attribute access, indexing and splats after a term. */
    private Expression postfix(Expression e) {
        int depth = nesting;
        try {
            return traversal(e);
        } finally {
            nesting = depth;
        }
    }

    private Expression traversal(Expression e) {
        while (true) {
            Token t = peek();
            if (t.is(Type.DOT) || t.is(Type.LBRACK)) {
                chained(t);
            }
            if (t.is(Type.DOT)) {
                next();
                Token n = next();
                if (n.is(Type.IDENT)) {
                    e = new Expression.GetAttr(e, n.text(), range(n), Range.between(e.range(), range(n)));
                } else if (n.is(Type.NUMBER)) {
                    e = legacyIndex(e, n);
                } else if (n.is(Type.STAR)) {
                    e = splat(e, range(t, n), false);
                } else {
                    error(n, "Invalid attribute name", "An attribute name is required after a dot.");
                }
            } else if (t.is(Type.LBRACK)) {
                next();
                skipNewlines.push(true);
                if (peek().is(Type.STAR) && peek(1).is(Type.RBRACK)) {
                    next();
                    Token close = next();
                    skipNewlines.pop();
                    e = splat(e, range(t, close), true);
                } else {
                    Expression key = expression();
                    Token close = expect(Type.RBRACK, "Missing close bracket on index",
                            "The index operator must end with a closing bracket (\"]\").");
                    skipNewlines.pop();
                    e = new Expression.Index(e, key, false, Range.between(e.range(), range(close)));
                }
            } else {
                return e;
            }
        }
    }

    private Expression legacyIndex(Expression e, Token n) {
        if (n.text().indexOf('.') >= 0) {
            error(n, "Invalid legacy index syntax", "When using the legacy index syntax, chaining two indexes "
                    + "together is not permitted. Use the proper index syntax instead, like [0].");
        }
        Expression key = new Expression.Literal(number(n), range(n));
        return new Expression.Index(e, key, true, Range.between(e.range(), range(n)));
    }

    private Value number(Token t) {
        if (t.text().length() > Numbers.MAX_LENGTH) {
            throw error(t, "Invalid number literal", "The number is longer than the limit of " + Numbers.MAX_LENGTH
                    + " characters.");
        }
        try {
            String text = t.text();
            boolean hex = text.startsWith("0x") || text.startsWith("0X");
            if (hcl1Names && (hex || text.length() > 1 && text.charAt(0) == '0'
                    && text.chars().allMatch(c -> c >= '0' && c <= '9'))) {
                // HCL1 integers: 0x1F is hexadecimal and 0755 octal
                return Value.of(new BigDecimal(new BigInteger(text.substring(hex ? 2 : 1), hex ? 16 : 8)));
            }
            return Value.of(new BigDecimal(text));
        } catch (NumberFormatException e) {
            throw error(t, "Invalid number literal", "Failed to recognize the value of this number literal.");
        } catch (ArithmeticException e) {
            throw error(t, "Invalid number literal", "The number \"" + t.text() + "\" is out of range.");
        }
    }

    /**
     * The traversal applied to each element after {@code .*} (attribute accesses only; anything after that applies
     * to the resulting tuple) or {@code [*]} (the whole rest of the traversal, nested splats included, as in HCL:
     * {@code [1][*][*]} is {@code [[1]]}).
     */
    private Expression splat(Expression source, Range marker, boolean full) {
        Expression each = new Expression.SplatItem(marker);
        if (full) {
            each = traversal(each);
            return new Expression.Splat(source, each, true, Range.between(source.range(), each.range()));
        }
        while (true) {
            Token t = peek();
            if (t.is(Type.DOT) && peek(1).is(Type.IDENT)) {
                chained(next()); // restored by postfix, whose traversal this is part of
                Token n = next();
                each = new Expression.GetAttr(each, n.text(), range(n), Range.between(each.range(), range(n)));
            } else if (t.is(Type.DOT) && peek(1).is(Type.NUMBER)) {
                chained(next());
                each = legacyIndex(each, next());
            } else if (t.is(Type.DOT) && peek(1).is(Type.STAR)) {
                throw error(peek(1), "Nested splat expression not allowed", "A splat expression (*) cannot be used "
                        + "inside another attribute-only splat expression.");
            } else {
                return new Expression.Splat(source, each, false, Range.between(source.range(), each.range()));
            }
        }
    }

    private Expression primary() {
        Token t = peek();
        switch (t.type()) {
            case NUMBER -> {
                next();
                return new Expression.Literal(number(t), range(t));
            }
            case IDENT -> {
                next();
                if (peek().is(Type.LPAREN)) {
                    return call(t); // even true(), false() and null() are (unknown) function names, not keywords
                }
                switch (t.text()) {
                    case "true" -> {
                        return new Expression.Literal(Value.TRUE, range(t));
                    }
                    case "false" -> {
                        return new Expression.Literal(Value.FALSE, range(t));
                    }
                    case "null" -> {
                        return new Expression.Literal(Value.NULL, range(t));
                    }
                    default -> {
                        return new Expression.Variable(t.text(), range(t));
                    }
                }
            }
            case OQUOTE -> {
                next();
                return template(t, Type.CQUOTE, false);
            }
            case OHEREDOC -> {
                next();
                return template(t, Type.CHEREDOC, t.text().startsWith("<<-"));
            }
            case LBRACK -> {
                return tuple();
            }
            case LBRACE -> {
                return object();
            }
            case LPAREN -> {
                next();
                skipNewlines.push(true);
                Expression inner = expression();
                Token close = expect(Type.RPAREN, "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.");
                skipNewlines.pop();
                return new Expression.Parens(inner, range(t, close));
            }
            default -> throw error(t, "Invalid expression",
                    "Expected the start of an expression, but found an invalid expression token.");
        }
    }

    private Expression call(Token name) {
        next(); // (
        skipNewlines.push(true);
        List<Expression> args = new ArrayList<>();
        boolean expand = false;
        while (!peek().is(Type.RPAREN)) {
            args.add(expression());
            Token t = peek();
            if (t.is(Type.ELLIPSIS)) {
                next();
                expand = true;
                if (!peek().is(Type.RPAREN)) {
                    error(peek(), "Missing closing parenthesis", "An expanded function argument (with ...) must be "
                            + "immediately followed by closing parentheses.");
                }
            } else if (t.is(Type.COMMA)) {
                next();
            } else if (!t.is(Type.RPAREN)) {
                error(t, "Missing argument separator", "A comma is required to separate each function argument "
                        + "from the next.");
            }
        }
        Token close = next();
        skipNewlines.pop();
        return new Expression.Call(name.text(), args, expand, range(name), range(name, close));
    }

    private Expression tuple() {
        Token open = next();
        skipNewlines.push(true);
        if (peek().isIdent("for")) {
            return forExpression(open, Type.RBRACK);
        }
        List<Expression> elements = new ArrayList<>();
        while (!peek().is(Type.RBRACK)) {
            elements.add(expression());
            Token t = peek();
            if (t.is(Type.COMMA)) {
                next();
            } else if (!t.is(Type.RBRACK)) {
                error(t, "Missing item separator", "Expected a comma to mark the beginning of the next item.");
            }
        }
        Token close = next();
        skipNewlines.pop();
        return new Expression.Tuple(elements, range(open, close));
    }

    private Expression object() {
        Token open = next();
        skipNewlines.push(true);
        if (peek().isIdent("for")) {
            return forExpression(open, Type.RBRACE);
        }
        skipNewlines.pop();
        // Items are separated by commas or newlines, so newlines are significant between them.
        skipNewlines.push(false);
        List<Expression.ObjectCons.Item> items = new ArrayList<>();
        while (true) {
            while (rawPeek().is(Type.NEWLINE)) {
                next();
            }
            if (rawPeek().is(Type.RBRACE)) {
                break;
            }
            if (rawPeek().is(Type.EOF)) {
                error(open, "Unterminated object constructor expression",
                        "There is no corresponding closing brace before the end of the file.");
            }
            Expression key = hcl1Names ? dottedKey() : null;
            if (key == null) {
                key = expression();
            }
            Token sep = peek();
            if (!sep.is(Type.EQUAL) && !sep.is(Type.COLON)) {
                error(sep, "Missing key/value separator", "Expected an equals sign (\"=\") to mark the beginning of "
                        + "the attribute value.");
            }
            next();
            Expression value = expression();
            items.add(new Expression.ObjectCons.Item(key, value, Range.between(key.range(), value.range())));
            Token t = rawPeek();
            if (t.is(Type.COMMA) || t.is(Type.NEWLINE)) {
                next();
            } else if (!t.is(Type.RBRACE) && !hcl1Names) { // HCL1 needs no separator: {a = 1 b = 2}
                error(t, "Missing attribute separator", "Expected a newline or comma to mark the beginning of the "
                        + "next attribute.");
            }
        }
        Token close = next();
        skipNewlines.pop();
        return new Expression.ObjectCons(items, range(open, close));
    }

    /**
     * HCL1: an object key written as a dotted name ({@code { driver.raw_exec.enable = "1" }}) is that name, as it is
     * for attributes; an HCL2 reading would take it as a reference to a variable. Null if the key is not one.
     */
    private Expression dottedKey() {
        int i = 0;
        while (peek(i).is(Type.IDENT) && peek(i + 1).is(Type.DOT)) {
            i += 2;
        }
        if (i == 0 || !peek(i).is(Type.IDENT) || !(peek(i + 1).is(Type.EQUAL) || peek(i + 1).is(Type.COLON))) {
            return null;
        }
        Token first = peek();
        StringBuilder sb = new StringBuilder();
        Token last = first;
        for (int k = 0; k <= i; k++) {
            last = next();
            sb.append(last.text());
        }
        return new Expression.Variable(sb.toString(), range(first, last));
    }

    /** {@code for k, v in coll : ...} after the opening bracket (newline skipping already pushed). */
    private Expression forExpression(Token open, Type closer) {
        next(); // for
        Token first = expect(Type.IDENT, "Invalid 'for' expression", "For expression requires variable name after "
                + "'for'.");
        String keyVar = null;
        String valueVar = first.text();
        if (peek().is(Type.COMMA)) {
            next();
            keyVar = valueVar;
            valueVar = expect(Type.IDENT, "Invalid 'for' expression", "For expression requires value variable "
                    + "name after comma.").text();
        }
        if (!peek().isIdent("in")) {
            error(peek(), "Invalid 'for' expression", "For expression requires the 'in' keyword after its name "
                    + "declarations.");
        }
        next();
        Expression collection = expression();
        expect(Type.COLON, "Invalid 'for' expression", "For expression requires a colon after the collection "
                + "expression.");
        Expression keyResult = null;
        Expression value = expression();
        boolean grouped = false;
        if (closer == Type.RBRACE) {
            expect(Type.FAT_ARROW, "Invalid 'for' expression", "Key expression is required when building an object.");
            keyResult = value;
            value = expression();
            if (peek().is(Type.ELLIPSIS)) {
                next();
                grouped = true;
            }
        }
        Expression condition = null;
        if (peek().isIdent("if")) {
            next();
            condition = expression();
        }
        Token close = expect(closer, "Invalid 'for' expression", "Extra characters after the end of the 'for' "
                + "expression.");
        skipNewlines.pop();
        return new Expression.For(keyVar, valueVar, collection, keyResult, value, condition, grouped,
                range(open, close));
    }

    // ---- templates ----------------------------------------------------------------------------------------------

    /** A literal run of a template; mutable because stripping and unindenting edit it after collection. */
    private static final class Lit {
        String value;
        final Range range;

        Lit(String value, Range range) {
            this.value = value;
            this.range = range;
        }
    }

    /** A {@code ${...}} or {@code %{...}} sequence; {@code keyword} is null for interpolations. */
    private record Seq(Token open, Token close, String keyword, Expression expr, String keyVar, String valueVar) {
    }

    /**
     * A template from after {@code open} up to its {@code closer}. As in HCL this happens in two passes: a flat list
     * of literals and sequences (where unindenting and {@code ~} stripping are applied, since both act on the
     * literal text next to a marker), then the nesting of {@code if}/{@code for} directives.
     */
    private Expression template(Token open, Type closer, boolean flush) {
        skipNewlines.push(false);
        List<Object> flat = new ArrayList<>();
        while (true) {
            Token t = rawPeek();
            if (t.is(Type.QUOTED_LIT)) {
                next();
                flat.add(new Lit(unescapeQuoted(t), range(t)));
            } else if (t.is(Type.STRING_LIT)) {
                next();
                flat.add(new Lit(unescapeTemplate(t.text()), range(t)));
            } else if (t.is(Type.TEMPLATE_INTERP) || t.is(Type.TEMPLATE_CONTROL)) {
                flat.add(sequence());
            } else if (t.is(closer)) {
                break;
            } else if (closer == Type.CQUOTE) {
                error(range(open, tokens.get(Math.max(0, idx - 1))), "Unterminated template string",
                        "No closing marker was found for the string.");
            } else {
                error(range(open), "Unterminated template string", "No closing marker was found for the heredoc.");
            }
        }
        Token close = next();
        skipNewlines.pop();
        // Stripping comes first, as in HCL: a "~" can take a line's newline away, and the next line then no longer
        // starts a line for the unindenting.
        strip(flat);
        if (flush) {
            unindent(flat);
        }
        int[] cursor = {0};
        List<TemplatePart> parts = parts(flat, cursor, Set.of());
        Range whole = open == null ? map.range(0, src.length()) : range(open, close);
        return new Expression.Template(parts, whole);
    }

    private Seq sequence() {
        Token open = next();
        skipNewlines.push(true);
        if (open.is(Type.TEMPLATE_INTERP)) {
            Expression e = expression();
            Token close = expect(Type.TEMPLATE_SEQ_END, "Extra characters after interpolation expression",
                    "Expected a closing brace to end the interpolation expression, but found extra characters.");
            skipNewlines.pop();
            return new Seq(open, close, null, e, null, null);
        }
        Token kw = next();
        if (!kw.is(Type.IDENT)) {
            error(kw, "Invalid template directive", "A template directive keyword (\"if\", \"for\", etc) is "
                    + "expected at the beginning of a %{ sequence.");
        }
        Expression e = null;
        String keyVar = null;
        String valueVar = null;
        switch (kw.text()) {
            case "if" -> e = expression();
            case "for" -> {
                valueVar = expect(Type.IDENT, "Invalid 'for' directive", "For directive requires variable name "
                        + "after 'for'.").text();
                if (peek().is(Type.COMMA)) {
                    next();
                    keyVar = valueVar;
                    valueVar = expect(Type.IDENT, "Invalid 'for' directive", "For directive requires value "
                            + "variable name after comma.").text();
                }
                if (!peek().isIdent("in")) {
                    error(peek(), "Invalid 'for' directive", "For directive requires 'in' keyword after names.");
                }
                next();
                e = expression();
            }
            case "else", "endif", "endfor" -> {
            }
            default -> error(kw, "Invalid template control keyword", "\"" + kw.text()
                    + "\" is not a valid template control keyword.");
        }
        Token close = expect(Type.TEMPLATE_SEQ_END, "Extra characters in " + kw.text() + " marker",
                "Expected a closing brace to end the sequence, but found extra characters.");
        skipNewlines.pop();
        return new Seq(open, close, kw.text(), e, keyVar, valueVar);
    }

    /**
     * The {@code <<-} rule: find the smallest indentation of the lines (blank lines excepted; a line starting with
     * a sequence counts as 0) and remove that many leading whitespace characters from each line-leading literal.
     */
    private static void unindent(List<Object> flat) {
        int min = Integer.MAX_VALUE;
        List<Lit> adjust = new ArrayList<>();
        boolean lineStart = true;
        for (Object o : flat) {
            if (lineStart) {
                if (o instanceof Lit lit) {
                    int spaces = leadingSpaces(lit.value);
                    boolean blank = spaces == lit.value.codePointCount(0, lit.value.length())
                            && lit.value.endsWith("\n");
                    if (!blank) {
                        min = Math.min(min, spaces);
                        adjust.add(lit);
                    }
                } else {
                    min = 0;
                }
            }
            lineStart = o instanceof Lit lit && lit.value.endsWith("\n");
        }
        if (min == Integer.MAX_VALUE || min == 0) {
            return;
        }
        for (Lit lit : adjust) {
            lit.value = lit.value.substring(lit.value.offsetByCodePoints(0, min));
        }
    }

    private static int leadingSpaces(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (!isSpace(cp)) {
                break;
            }
            n++;
            i += Character.charCount(cp);
        }
        return n;
    }

    /** Unicode white space, as Go's unicode.IsSpace (which HCL uses for strip markers and heredocs). */
    static boolean isSpace(int cp) {
        return Character.isWhitespace(cp) || Character.isSpaceChar(cp) || cp == 0x85;
    }

    /** {@code ${~} strips the literal before it, {@code ~}} the literal after it. */
    private static void strip(List<Object> flat) {
        for (int i = 0; i < flat.size(); i++) {
            if (flat.get(i) instanceof Seq s) {
                if (s.open().strip() && i > 0 && flat.get(i - 1) instanceof Lit before) {
                    int end = before.value.length();
                    while (end > 0 && isSpace(before.value.codePointBefore(end))) {
                        end -= Character.charCount(before.value.codePointBefore(end));
                    }
                    before.value = before.value.substring(0, end);
                }
                if (s.close().strip() && i + 1 < flat.size() && flat.get(i + 1) instanceof Lit after) {
                    int start = 0;
                    while (start < after.value.length() && isSpace(after.value.codePointAt(start))) {
                        start += Character.charCount(after.value.codePointAt(start));
                    }
                    after.value = after.value.substring(start);
                }
            }
        }
    }

    /** Builds nested parts from {@code flat[cursor]} until one of the {@code ends} directives (left unconsumed). */
    private List<TemplatePart> parts(List<Object> flat, int[] cursor, Set<String> ends) {
        nesting++;
        try {
            if (cursor[0] > 0 && flat.get(cursor[0] - 1) instanceof Seq opener) {
                checkNesting(range(opener.open(), opener.close()));
            }
            return partsUntil(flat, cursor, ends);
        } finally {
            nesting--;
        }
    }

    private List<TemplatePart> partsUntil(List<Object> flat, int[] cursor, Set<String> ends) {
        List<TemplatePart> parts = new ArrayList<>();
        while (cursor[0] < flat.size()) {
            Object o = flat.get(cursor[0]);
            if (o instanceof Lit lit) {
                // Adjacent literals (heredoc lines, escapes) read better as one part. Joined in one pass: a heredoc
                // has a literal per line, and concatenating them one by one was quadratic.
                StringBuilder sb = new StringBuilder(lit.value);
                Range last = lit.range;
                cursor[0]++;
                while (cursor[0] < flat.size() && flat.get(cursor[0]) instanceof Lit more) {
                    sb.append(more.value);
                    last = more.range;
                    cursor[0]++;
                }
                parts.add(new TemplatePart.Literal(sb.toString(), Range.between(lit.range, last)));
                continue;
            }
            Seq s = (Seq) o;
            if (s.keyword() != null && ends.contains(s.keyword())) {
                return parts;
            }
            cursor[0]++;
            if (s.keyword() == null) {
                parts.add(new TemplatePart.Interpolation(s.expr(), text(s.open(), s.close()), range(s.open(), s.close())));
            } else if (s.keyword().equals("if")) {
                List<TemplatePart> then = parts(flat, cursor, Set.of("else", "endif"));
                List<TemplatePart> otherwise = List.of();
                Seq end = closing(flat, cursor, s, "endif");
                if (end.keyword().equals("else")) {
                    otherwise = parts(flat, cursor, Set.of("endif"));
                    end = closing(flat, cursor, s, "endif");
                    if (!end.keyword().equals("endif")) {
                        error(range(end.open(), end.close()), "Unexpected else directive", "Already in the else "
                                + "clause of an if directive.");
                    }
                }
                parts.add(new TemplatePart.If(s.expr(), then, otherwise, text(s.open(), end.close()),
                        range(s.open(), end.close())));
            } else if (s.keyword().equals("for")) {
                List<TemplatePart> body = parts(flat, cursor, Set.of("endfor"));
                Seq end = closing(flat, cursor, s, "endfor");
                parts.add(new TemplatePart.For(s.keyVar(), s.valueVar(), s.expr(), body,
                        text(s.open(), end.close()), range(s.open(), end.close())));
            } else {
                error(range(s.open(), s.close()), "Unexpected " + s.keyword() + " directive", "There is no "
                        + "matching opening directive for this %{ " + s.keyword() + " }.");
            }
        }
        return parts;
    }

    private Seq closing(List<Object> flat, int[] cursor, Seq opener, String expected) {
        if (cursor[0] >= flat.size()) {
            error(range(opener.open(), opener.close()), "Unterminated template directive", "No corresponding %{ "
                    + expected + " } was found for this %{ " + opener.keyword() + " }.");
        }
        return (Seq) flat.get(cursor[0]++);
    }

    private String text(Token from, Token to) {
        return src.substring(from.start(), to.end());
    }

    /** {@code $${} and {@code %%{} stand for literal {@code ${} and {@code %{} (values are NFC: see Value). */
    private static String unescapeTemplate(String raw) {
        return raw.replace("$${", "${").replace("%%{", "%{");
    }

    /** A quoted-string literal: backslash escapes plus the template escapes. */
    private String unescapeQuoted(Token t) {
        String s = t.text();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char e = s.charAt(i + 1);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case '"' -> sb.append('"');
                    case '\\' -> sb.append('\\');
                    case 'u', 'U' -> {
                        int len = e == 'u' ? 4 : 8;
                        String hex = i + 2 + len <= s.length() ? s.substring(i + 2, i + 2 + len) : "";
                        // No regular expression here: a string may hold a million of these escapes.
                        int cp = !hex.isEmpty() && hex.chars().allMatch(HexFormat::isHexDigit)
                                ? (int) Long.parseLong(hex, 16) : -1;
                        if (cp < 0 || cp > Character.MAX_CODE_POINT || (cp >= 0xD800 && cp <= 0xDFFF)) {
                            diagnostics.add(Diagnostic.error("Invalid escape sequence", "The \\" + e + " escape "
                                    + "sequence must be followed by " + (len == 4 ? "four" : "eight")
                                    + " hexadecimal digits denoting a Unicode character.",
                                    map.range(t.start() + i, t.start() + Math.min(s.length(), i + 2 + len))));
                        } else {
                            sb.appendCodePoint(cp);
                        }
                        i += len;
                    }
                    default -> diagnostics.add(Diagnostic.error("Invalid escape sequence", "The symbol \"" + e
                            + "\" is not a valid escape sequence selector.", map.range(t.start() + i, t.start() + i + 2)));
                }
                i++;
            } else if (s.startsWith("$${", i) || s.startsWith("%%{", i)) {
                sb.append(c).append('{');
                i += 2;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
