package io.caravan.hcl.internal;

import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.internal.Token.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.List;

/**
 * Turns source text into tokens. HCL's lexical grammar depends on context (inside a quoted string {@code #} is
 * text; inside {@code ${ }} it is a comment), so the lexer keeps a stack of modes: braces opened in expression
 * mode, template sequences, quoted strings, heredocs. A {@code }} closes whatever is innermost.
 */
final class Lexer {

    private enum Kind { BRACE, INTERP, QUOTED, HEREDOC, TEMPLATE }

    /** One entry of the mode stack; {@code marker} and {@code lineStart} only matter for heredocs. */
    private static final class Mode {
        final Kind kind;
        final String marker;
        boolean lineStart = true;

        Mode(Kind kind, String marker) {
            this.kind = kind;
            this.marker = marker;
        }
    }

    private final String src;
    private final SourceMap map;
    private final List<Diagnostic> diagnostics;
    private final List<Token> tokens = new ArrayList<>();
    private final Deque<Mode> modes = new ArrayDeque<>();
    private int pos;
    private boolean hcl1;

    private Lexer(String src, SourceMap map, List<Diagnostic> diagnostics) {
        this.src = src;
        this.map = map;
        this.diagnostics = diagnostics;
    }

    /** Tokens of a configuration file or expression; always ends with an EOF token. */
    static List<Token> lex(String src, SourceMap map, List<Diagnostic> diagnostics) {
        return lex(src, map, diagnostics, false);
    }

    /** As {@link #lex(String, SourceMap, List)}; {@code hcl1} also reads HCL1's hexadecimal numbers ({@code 0x1F}). */
    static List<Token> lex(String src, SourceMap map, List<Diagnostic> diagnostics, boolean hcl1) {
        Lexer l = new Lexer(src, map, diagnostics);
        l.hcl1 = hcl1;
        return l.run();
    }

    /** Tokens of a standalone template (the whole text is template literal and sequences). */
    static List<Token> lexTemplate(String src, SourceMap map, List<Diagnostic> diagnostics) {
        Lexer l = new Lexer(src, map, diagnostics);
        l.modes.push(new Mode(Kind.TEMPLATE, null));
        return l.run();
    }

    private List<Token> run() {
        if (src.startsWith("\uFEFF") && modes.isEmpty()) {
            pos = 1; // a byte order mark at the start of a file is not content
        }
        while (pos < src.length()) {
            Mode m = modes.peek();
            Kind k = m == null ? Kind.BRACE : m.kind;
            switch (k) {
                case QUOTED -> lexQuoted();
                case HEREDOC, TEMPLATE -> lexHeredoc(m);
                default -> lexNormal();
            }
        }
        tokens.add(new Token(Type.EOF, "", src.length(), src.length(), false));
        return tokens;
    }

    private void emit(Type type, int start, int end) {
        emit(type, start, end, false);
    }

    private void emit(Type type, int start, int end, boolean strip) {
        tokens.add(new Token(type, src.substring(start, end), start, end, strip));
        pos = end;
    }

    private char at(int i) {
        return i < src.length() ? src.charAt(i) : '\0';
    }

    private boolean startsWith(String s) {
        return src.startsWith(s, pos);
    }

    private int newlineLength(int i) {
        if (at(i) == '\n') {
            return 1;
        }
        return at(i) == '\r' && at(i + 1) == '\n' ? 2 : 0;
    }

    private void lexNormal() {
        char c = at(pos);
        int nl = newlineLength(pos);
        if (nl > 0) {
            emit(Type.NEWLINE, pos, pos + nl);
        } else if (c == ' ' || c == '\t') {
            pos++;
        } else if (c == '#' || startsWith("//")) {
            // A line comment stands for the newline that ends it; leave that newline to become a token.
            while (pos < src.length() && newlineLength(pos) == 0) {
                pos++;
            }
        } else if (startsWith("/*")) {
            int close = src.indexOf("*/", pos + 2);
            if (close < 0) {
                diagnostics.add(Diagnostic.error("Unterminated comment",
                        "There is no closing \"*/\" for this comment before the end of the file.",
                        map.range(pos, pos + 2)));
                pos = src.length();
            } else {
                pos = close + 2;
            }
        } else if (c >= '0' && c <= '9') {
            lexNumber();
        } else if (isIdentStart(src.codePointAt(pos))) {
            int end = pos + Character.charCount(src.codePointAt(pos));
            while (end < src.length() && isIdentPart(src.codePointAt(end))) {
                end += Character.charCount(src.codePointAt(end));
            }
            emit(Type.IDENT, pos, end);
        } else if (c == '"') {
            emit(Type.OQUOTE, pos, pos + 1);
            modes.push(new Mode(Kind.QUOTED, null));
        } else if (startsWith("<<") && lexHeredocStart()) {
            return;
        } else if (c == '{') {
            emit(Type.LBRACE, pos, pos + 1);
            modes.push(new Mode(Kind.BRACE, null));
        } else if (c == '}') {
            closeBrace(pos, pos + 1, false);
        } else if (startsWith("~}") && modes.peek() != null && modes.peek().kind == Kind.INTERP) {
            closeBrace(pos, pos + 2, true);
        } else {
            lexPunctuation(c);
        }
    }

    private void closeBrace(int start, int end, boolean strip) {
        Mode m = modes.peek();
        if (m != null && m.kind == Kind.INTERP) {
            modes.pop();
            emit(Type.TEMPLATE_SEQ_END, start, end, strip);
        } else {
            if (m != null && m.kind == Kind.BRACE) {
                modes.pop();
            }
            emit(Type.RBRACE, start, end);
        }
    }

    private void lexPunctuation(char c) {
        String three = src.substring(pos, Math.min(src.length(), pos + 3));
        String two = three.length() >= 2 ? three.substring(0, 2) : three;
        if (three.equals("...")) {
            emit(Type.ELLIPSIS, pos, pos + 3);
            return;
        }
        Type t2 = switch (two) {
            case "=>" -> Type.FAT_ARROW;
            case "==" -> Type.EQEQ;
            case "!=" -> Type.NOTEQ;
            case "<=" -> Type.LTE;
            case ">=" -> Type.GTE;
            case "&&" -> Type.AND;
            case "||" -> Type.OR;
            default -> null;
        };
        if (t2 != null) {
            emit(t2, pos, pos + 2);
            return;
        }
        Type t1 = switch (c) {
            case '[' -> Type.LBRACK;
            case ']' -> Type.RBRACK;
            case '(' -> Type.LPAREN;
            case ')' -> Type.RPAREN;
            case ',' -> Type.COMMA;
            case '.' -> Type.DOT;
            case ':' -> Type.COLON;
            case '?' -> Type.QUESTION;
            case '=' -> Type.EQUAL;
            case '+' -> Type.PLUS;
            case '-' -> Type.MINUS;
            case '*' -> Type.STAR;
            case '/' -> Type.SLASH;
            case '%' -> Type.PERCENT;
            case '!' -> Type.BANG;
            case '<' -> Type.LT;
            case '>' -> Type.GT;
            default -> null;
        };
        if (t1 != null) {
            emit(t1, pos, pos + 1);
            return;
        }
        int len = Character.charCount(src.codePointAt(pos));
        String what = c == '\'' ? "Single quotes are not valid. Use double quotes (\") to enclose strings."
                : c == '&' || c == '|' ? "Logical operators are written as \"&&\" and \"||\"."
                : "This character is not used within the language.";
        diagnostics.add(Diagnostic.error("Invalid character", what, map.range(pos, pos + len)));
        emit(Type.INVALID, pos, pos + len);
    }

    /**
     * A number token, scanned as HCL does: a digit, then any run of digits, dots and exponents ({@code e}, optional
     * sign, digit) not ending with a dot, so {@code 1.2.3} is one (invalid) token and {@code 1.x} is not.
     */
    private void lexNumber() {
        if (hcl1 && at(pos) == '0' && (at(pos + 1) == 'x' || at(pos + 1) == 'X') && HexFormat.isHexDigit(at(pos + 2))) {
            int end = pos + 2;
            while (HexFormat.isHexDigit(at(end))) {
                end++;
            }
            emit(Type.NUMBER, pos, end);
            return;
        }
        int end = pos + 1;
        int lastGood = end;
        while (true) {
            if (isDigit(at(end))) {
                end++;
                lastGood = end;
            } else if (at(end) == '.') {
                end++;
            } else if ((at(end) == 'e' || at(end) == 'E') && (isDigit(at(end + 1))
                    || (at(end + 1) == '+' || at(end + 1) == '-') && isDigit(at(end + 2)))) {
                end += isDigit(at(end + 1)) ? 2 : 3;
                lastGood = end;
            } else {
                break;
            }
        }
        emit(Type.NUMBER, pos, lastGood);
    }

    /** {@code <<EOT} or {@code <<-EOT} followed by a newline; false if this is not a heredoc introducer. */
    private boolean lexHeredocStart() {
        int i = pos + 2;
        if (at(i) == '-') {
            i++;
        }
        if (i >= src.length() || !isIdentStart(src.codePointAt(i))) {
            return false;
        }
        int nameStart = i;
        while (i < src.length() && isIdentPart(src.codePointAt(i))) {
            i += Character.charCount(src.codePointAt(i));
        }
        String marker = src.substring(nameStart, i);
        int nl = newlineLength(i);
        if (nl == 0) {
            diagnostics.add(Diagnostic.error("Invalid heredoc introducer",
                    "A heredoc marker must be followed immediately by a newline.", map.range(pos, i)));
            emit(Type.INVALID, pos, i);
            return true;
        }
        emit(Type.OHEREDOC, pos, i + nl);
        modes.push(new Mode(Kind.HEREDOC, marker));
        return true;
    }

    private void lexQuoted() {
        int start = pos;
        if (at(pos) == '"') {
            modes.pop();
            emit(Type.CQUOTE, pos, pos + 1);
            return;
        }
        if (newlineLength(pos) > 0 || at(pos) == '\r') {
            // Quoted strings cannot span lines (nor hold a bare carriage return): give up the string and let the
            // parser report it.
            modes.pop();
            return;
        }
        if (openSequence()) {
            return;
        }
        int i = pos;
        while (i < src.length() && at(i) != '"' && at(i) != '\r' && newlineLength(i) == 0) {
            if (at(i) == '\\') {
                i += newlineLength(i + 1) > 0 || i + 1 >= src.length() ? 1 : 2;
            } else if (src.startsWith("$${", i) || src.startsWith("%%{", i)) {
                i += 3;
            } else if (src.startsWith("${", i) || src.startsWith("%{", i)) {
                break;
            } else {
                i++;
            }
        }
        emit(Type.QUOTED_LIT, start, i);
    }

    /** At {@code ${} or {@code %{} (optionally with {@code ~}): emit the opener and enter the sequence. */
    private boolean openSequence() {
        boolean interp = startsWith("${");
        if (!interp && !startsWith("%{")) {
            return false;
        }
        boolean strip = at(pos + 2) == '~';
        emit(interp ? Type.TEMPLATE_INTERP : Type.TEMPLATE_CONTROL, pos, pos + (strip ? 3 : 2), strip);
        modes.push(new Mode(Kind.INTERP, null));
        return true;
    }

    /** Heredoc body (or standalone template): one literal token per line, so flush unindenting sees each line. */
    private void lexHeredoc(Mode m) {
        if (m.lineStart && m.marker != null) {
            int i = pos;
            while (at(i) == ' ' || at(i) == '\t') {
                i++;
            }
            int after = i + m.marker.length();
            int blanks = after;
            while (at(blanks) == ' ' || at(blanks) == '\t') {
                blanks++;
            }
            // The closing marker's line ends with a newline (blanks may precede it), as in HCL: at the very end of
            // the file without one, the heredoc is unterminated.
            if (src.startsWith(m.marker, i) && newlineLength(blanks) > 0) {
                modes.pop();
                pos = i;
                emit(Type.CHEREDOC, i, after);
                pos = blanks;
                return;
            }
        }
        if (openSequence()) {
            m.lineStart = false;
            return;
        }
        int i = pos;
        while (i < src.length()) {
            int nl = newlineLength(i);
            if (nl > 0) {
                i += nl;
                break;
            }
            if (at(i) == '\r') {
                diagnostics.add(Diagnostic.error("Invalid character", "A carriage return is allowed only as part of "
                        + "a line break (CR LF).", map.range(i, i + 1)));
            }
            if (src.startsWith("$${", i) || src.startsWith("%%{", i)) {
                i += 3;
            } else if (src.startsWith("${", i) || src.startsWith("%{", i)) {
                break;
            } else {
                i++;
            }
        }
        m.lineStart = i > pos && src.charAt(i - 1) == '\n';
        emit(Type.STRING_LIT, pos, i);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isIdentStart(int cp) {
        return cp == '_' || Character.isUnicodeIdentifierStart(cp) && cp != VERTICAL_TILDE;
    }

    static boolean isIdentPart(int cp) {
        return cp == '-' || Character.isUnicodeIdentifierPart(cp) && !Character.isIdentifierIgnorable(cp)
                && cp != VERTICAL_TILDE;
    }

    /** A letter (Lm) that Unicode's identifier properties exclude as pattern syntax; Java's methods let it in. */
    private static final int VERTICAL_TILDE = 0x2E2F;
}
