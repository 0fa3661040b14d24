package io.caravan.agent.internal.sockaddr;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the subset of Go's text/template that go-sockaddr templates use: text, and {@code {{ … }}} actions holding a
 * pipeline of commands separated by {@code |}, each a function name with string ("…" or `…`), integer, {@code .} or
 * function-name arguments; also the {@code {{- … -}}} whitespace trimming and comment actions. No variables,
 * parentheses or control structures (if, range, with).
 */
final class TemplateParser {

    sealed interface Segment permits Text, Action {
    }

    record Text(String text) implements Segment {
    }

    /** @param source the action as written, {@code {{ … }}}, for error messages */
    record Action(String source, List<Command> pipeline) implements Segment {
    }

    /** The first word is the operand: a function name (called with the rest) or a lone literal. */
    record Command(List<Word> words) {
    }

    sealed interface Word permits Ident, Str, Num, Dot {
    }

    record Ident(String name) implements Word {
    }

    record Str(String value) implements Word {
    }

    record Num(long value) implements Word {
    }

    /** {@code .}: go-sockaddr's starting value, all interface addresses. */
    record Dot() implements Word {
    }

    private final String src;
    private int pos;
    private int actionStart;

    private TemplateParser(String src) {
        this.src = src;
    }

    static List<Segment> parse(String template) throws SockaddrException {
        return new TemplateParser(template).segments();
    }

    private List<Segment> segments() throws SockaddrException {
        List<Segment> out = new ArrayList<>();
        while (pos < src.length()) {
            int open = src.indexOf("{{", pos);
            String text = src.substring(pos, open < 0 ? src.length() : open);
            if (open < 0) {
                addText(out, text);
                break;
            }
            actionStart = open;
            pos = open + 2;
            if (src.startsWith("-", pos) && pos + 1 < src.length() && isSpace(src.charAt(pos + 1))) {
                text = text.stripTrailing(); // {{- trims the whitespace before the action
                pos++;
            }
            addText(out, text);
            boolean trimAfter = action(out);
            if (trimAfter) {
                while (pos < src.length() && isSpace(src.charAt(pos))) {
                    pos++;
                }
            }
        }
        return out;
    }

    private static void addText(List<Segment> out, String text) {
        if (!text.isEmpty()) {
            out.add(new Text(text));
        }
    }

    /** Parses one action up to and including its {@code }}}; returns whether it ended with {@code -}}}. */
    private boolean action(List<Segment> out) throws SockaddrException {
        skipSpace();
        if (src.startsWith("/*", pos)) {
            int end = src.indexOf("*/", pos + 2);
            if (end < 0) {
                throw error("unclosed comment");
            }
            pos = end + 2;
            skipSpace();
            Boolean trim = close();
            if (trim == null) {
                throw error("a comment must be the whole action");
            }
            return trim;
        }
        List<Command> pipeline = new ArrayList<>();
        List<Word> words = new ArrayList<>();
        while (true) {
            skipSpace();
            if (pos >= src.length()) {
                throw error("unclosed action (missing }})");
            }
            Boolean trim = close();
            if (trim != null) {
                if (words.isEmpty()) {
                    throw error(pipeline.isEmpty() ? "empty action" : "missing function after |");
                }
                pipeline.add(new Command(List.copyOf(words)));
                out.add(new Action(src.substring(actionStart, pos), List.copyOf(pipeline)));
                return trim;
            }
            char c = src.charAt(pos);
            if (c == '|') {
                if (words.isEmpty()) {
                    throw error("missing function before |");
                }
                pipeline.add(new Command(List.copyOf(words)));
                words = new ArrayList<>();
                pos++;
            } else if (c == '"') {
                words.add(new Str(quoted()));
            } else if (c == '`') {
                int end = src.indexOf('`', pos + 1);
                if (end < 0) {
                    throw error("unterminated raw string");
                }
                words.add(new Str(src.substring(pos + 1, end)));
                pos = end + 1;
            } else if (Character.isDigit(c) || (c == '-' || c == '+') && pos + 1 < src.length()
                    && Character.isDigit(src.charAt(pos + 1))) {
                words.add(new Num(number()));
            } else if (c == '.' && (pos + 1 >= src.length() || !Character.isLetter(src.charAt(pos + 1)))) {
                words.add(new Dot());
                pos++;
            } else if (Character.isLetter(c) || c == '_') {
                int start = pos;
                while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                    pos++;
                }
                words.add(new Ident(src.substring(start, pos)));
            } else if (c == '$') {
                throw error("variables ($…) are not supported");
            } else if (c == '(' || c == ')') {
                throw error("parentheses are not supported; write a single pipeline");
            } else if (c == '.') {
                throw error("fields (.Name) are not supported");
            } else {
                throw error("unexpected character '" + c + "'");
            }
        }
    }

    /** At {@code }}} or {@code -}}} (after a space): consumes it and says whether it trims; otherwise null. */
    private Boolean close() {
        if (src.startsWith("}}", pos)) {
            pos += 2;
            return false;
        }
        if (src.startsWith("-}}", pos) && pos > 0 && isSpace(src.charAt(pos - 1))) {
            pos += 3;
            return true;
        }
        return null;
    }

    private String quoted() throws SockaddrException {
        StringBuilder s = new StringBuilder();
        pos++; // opening quote
        while (pos < src.length()) {
            char c = src.charAt(pos++);
            if (c == '"') {
                return s.toString();
            }
            if (c == '\n') {
                break;
            }
            if (c != '\\') {
                s.append(c);
                continue;
            }
            if (pos >= src.length()) {
                break;
            }
            char e = src.charAt(pos++);
            switch (e) {
                case 'n' -> s.append('\n');
                case 't' -> s.append('\t');
                case 'r' -> s.append('\r');
                case '\\', '"', '\'' -> s.append(e);
                default -> throw error("unsupported escape \\" + e + " in string");
            }
        }
        throw error("unterminated string");
    }

    private long number() throws SockaddrException {
        int start = pos;
        pos++; // sign or first digit
        while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '.')) {
            pos++;
        }
        String text = src.substring(start, pos);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw error("bad number " + text + " (only decimal integers are supported)");
        }
    }

    private void skipSpace() {
        while (pos < src.length() && isSpace(src.charAt(pos))) {
            pos++;
        }
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private SockaddrException error(String reason) {
        int end = src.indexOf("}}", actionStart);
        String action = end < 0 ? src.substring(actionStart) : src.substring(actionStart, end + 2);
        return new SockaddrException(reason + " in \"" + action + "\"");
    }
}
