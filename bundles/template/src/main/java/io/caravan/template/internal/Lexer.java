package io.caravan.template.internal;

import io.caravan.template.internal.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Splits a template into text and action items, applying {@code {{-}} / {@code -}}} trimming and dropping comments. */
final class Lexer {
    static final Set<String> KEYWORDS = Set.of("block", "break", "continue", "define", "else", "end", "if", "range",
            "template", "with");

    private final String name;
    private final String in;
    private final String left;
    private final String right;
    private final List<Token> out = new ArrayList<>();
    private int pos;
    private int parenDepth;

    private Lexer(String name, String in, String left, String right) {
        this.name = name;
        this.in = in;
        this.left = left;
        this.right = right;
    }

    static List<Token> lex(String name, String text, String left, String right) throws ParseError {
        Lexer l = new Lexer(name, text, left, right);
        l.run();
        return l.out;
    }

    private void run() throws ParseError {
        while (true) {
            int idx = in.indexOf(left, pos);
            if (idx < 0) {
                if (pos < in.length()) out.add(new Token(Kind.TEXT, in.substring(pos), pos));
                out.add(new Token(Kind.EOF, "", in.length()));
                return;
            }
            int after = idx + left.length();
            boolean trimBefore = in.startsWith("-", after) && after + 1 < in.length() && isSpace(in.charAt(after + 1));
            int textEnd = idx;
            if (trimBefore) while (textEnd > pos && isSpace(in.charAt(textEnd - 1))) textEnd--;
            if (textEnd > pos) out.add(new Token(Kind.TEXT, in.substring(pos, textEnd), pos));
            pos = trimBefore ? after + 2 : after;
            if (trimBefore) skipSpaces();
            if (in.startsWith("/*", pos)) {
                comment(idx);
                continue;
            }
            out.add(new Token(Kind.LEFT_DELIM, left, idx));
            parenDepth = 0;
            insideAction(idx);
        }
    }

    private void skipSpaces() {
        // Go skips only the one space after "{{-"; further spaces become a space item. Skipping them changes nothing
        // the parser sees, since spaces directly after the delimiter are insignificant.
        while (pos < in.length() && isSpace(in.charAt(pos))) pos++;
    }

    private void comment(int start) throws ParseError {
        int end = in.indexOf("*/", pos + 2);
        if (end < 0) throw error(start, "unclosed comment");
        pos = end + 2;
        boolean trimAfter = false;
        if (pos < in.length() && isSpace(in.charAt(pos)) && in.startsWith("-" + right, pos + 1)) {
            trimAfter = true;
            pos += 2;
        }
        if (!in.startsWith(right, pos)) throw error(start, "comment ends before closing delimiter");
        pos += right.length();
        if (trimAfter) skipSpaces();
    }

    private void insideAction(int actionStart) throws ParseError {
        while (true) {
            if (pos >= in.length()) throw error(actionStart, "unclosed action");
            if (in.startsWith(right, pos)) {
                closeAction(pos, false);
                return;
            }
            char c = in.charAt(pos);
            int start = pos;
            if (isSpace(c)) {
                while (pos < in.length() && isSpace(in.charAt(pos))) pos++;
                // " -}}" closes the action and trims what follows
                if (in.startsWith("-" + right, pos) && isSpace(in.charAt(pos - 1))) {
                    if (pos - 1 > start) out.add(new Token(Kind.SPACE, in.substring(start, pos - 1), start));
                    pos += 1;
                    closeAction(pos, true);
                    return;
                }
                out.add(new Token(Kind.SPACE, in.substring(start, pos), start));
            } else if (c == '=') {
                pos++;
                out.add(new Token(Kind.ASSIGN, "=", start));
            } else if (c == ':') {
                if (!in.startsWith(":=", pos)) throw error(start, "expected :=");
                pos += 2;
                out.add(new Token(Kind.DECLARE, ":=", start));
            } else if (c == '|') {
                pos++;
                out.add(new Token(Kind.PIPE, "|", start));
            } else if (c == '"') {
                quote(start);
            } else if (c == '`') {
                int end = in.indexOf('`', pos + 1);
                if (end < 0) throw error(start, "unterminated raw quoted string");
                pos = end + 1;
                out.add(new Token(Kind.RAW_STRING, in.substring(start, pos), start));
            } else if (c == '$') {
                pos++;
                while (pos < in.length() && isAlphaNumeric(in.charAt(pos))) pos++;
                checkTerminator(start);
                out.add(new Token(Kind.VARIABLE, in.substring(start, pos), start));
            } else if (c == '\'') {
                charConstant(start);
            } else if (c == '.') {
                if (pos + 1 < in.length() && Character.isDigit(in.charAt(pos + 1))) {
                    number(start);
                } else {
                    pos++;
                    if (pos < in.length() && isAlphaNumeric(in.charAt(pos))) {
                        while (pos < in.length() && isAlphaNumeric(in.charAt(pos))) pos++;
                        checkTerminator(start);
                        out.add(new Token(Kind.FIELD, in.substring(start, pos), start));
                    } else {
                        out.add(new Token(Kind.DOT, ".", start));
                    }
                }
            } else if (c == '+' || c == '-' || Character.isDigit(c)) {
                number(start);
            } else if (isAlphaNumeric(c)) {
                while (pos < in.length() && isAlphaNumeric(in.charAt(pos))) pos++;
                checkTerminator(start);
                String word = in.substring(start, pos);
                Kind k = KEYWORDS.contains(word) ? Kind.KEYWORD
                        : word.equals("true") || word.equals("false") ? Kind.BOOL
                        : word.equals("nil") ? Kind.NIL : Kind.IDENTIFIER;
                out.add(new Token(k, word, start));
            } else if (c == '(') {
                pos++;
                parenDepth++;
                out.add(new Token(Kind.LEFT_PAREN, "(", start));
            } else if (c == ')') {
                pos++;
                if (--parenDepth < 0) throw error(start, "unexpected right paren");
                out.add(new Token(Kind.RIGHT_PAREN, ")", start));
            } else if (c == ',') {
                pos++;
                out.add(new Token(Kind.COMMA, ",", start));
            } else {
                throw error(start, String.format("unrecognized character in action: U+%04X '%s'", (int) c, c));
            }
        }
    }

    private void closeAction(int at, boolean trimAfter) throws ParseError {
        if (parenDepth > 0) throw error(at, "unclosed left paren");
        out.add(new Token(Kind.RIGHT_DELIM, right, at));
        pos = at + right.length();
        if (trimAfter) skipSpaces();
    }

    private void quote(int start) throws ParseError {
        pos++;
        while (true) {
            if (pos >= in.length() || in.charAt(pos) == '\n') throw error(start, "unterminated quoted string");
            char c = in.charAt(pos++);
            if (c == '\\') {
                if (pos >= in.length() || in.charAt(pos) == '\n') throw error(start, "unterminated quoted string");
                pos++;
            } else if (c == '"') {
                break;
            }
        }
        out.add(new Token(Kind.STRING, in.substring(start, pos), start));
    }

    private void charConstant(int start) throws ParseError {
        pos++;
        while (true) {
            if (pos >= in.length() || in.charAt(pos) == '\n') throw error(start, "unterminated character constant");
            char c = in.charAt(pos++);
            if (c == '\\') {
                if (pos >= in.length() || in.charAt(pos) == '\n') throw error(start, "unterminated character constant");
                pos++;
            } else if (c == '\'') {
                break;
            }
        }
        out.add(new Token(Kind.CHAR, in.substring(start, pos), start));
    }

    private void number(int start) throws ParseError {
        if (pos < in.length() && (in.charAt(pos) == '+' || in.charAt(pos) == '-')) pos++;
        scanUnsigned();
        // a complex constant: real part followed by a signed imaginary part, e.g. 1+2i
        if (pos < in.length() && (in.charAt(pos) == '+' || in.charAt(pos) == '-')) {
            pos++;
            scanUnsigned();
            if (pos == 0 || in.charAt(pos - 1) != 'i') throw error(start, "bad number syntax: \"" + in.substring(start, pos) + "\"");
        }
        if (pos < in.length() && isAlphaNumeric(in.charAt(pos))) {
            pos++;
            throw error(start, "bad number syntax: \"" + in.substring(start, pos) + "\"");
        }
        out.add(new Token(Kind.NUMBER, in.substring(start, pos), start));
    }

    private void scanUnsigned() {
        String digits = "0123456789_";
        boolean hex = false;
        if (in.startsWith("0", pos) && pos + 1 < in.length()) {
            char b = Character.toLowerCase(in.charAt(pos + 1));
            if (b == 'x') { pos += 2; digits = "0123456789abcdefABCDEF_"; hex = true; }
            else if (b == 'o') { pos += 2; digits = "01234567_"; }
            else if (b == 'b') { pos += 2; digits = "01_"; }
        }
        accept(digits);
        if (in.startsWith(".", pos)) { pos++; accept(digits); }
        if (digits.length() == 11 || digits.length() == 10 || hex) {
            String exp = hex ? "pP" : "eE";
            if (pos < in.length() && exp.indexOf(in.charAt(pos)) >= 0) {
                pos++;
                if (pos < in.length() && (in.charAt(pos) == '+' || in.charAt(pos) == '-')) pos++;
                accept("0123456789_");
            }
        }
        if (in.startsWith("i", pos)) pos++;
    }

    private void accept(String chars) {
        while (pos < in.length() && chars.indexOf(in.charAt(pos)) >= 0) pos++;
    }

    private void checkTerminator(int start) throws ParseError {
        if (pos >= in.length()) return;
        char c = in.charAt(pos);
        if (isSpace(c) || ".,|:()".indexOf(c) >= 0 || in.startsWith(right, pos)) return;
        throw error(pos, String.format("bad character U+%04X '%s'", (int) c, c));
    }

    private ParseError error(int at, String message) {
        return new ParseError(at, message);
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    static boolean isAlphaNumeric(char c) {
        return c == '_' || Character.isLetterOrDigit(c);
    }

    String name() { return name; }
}
