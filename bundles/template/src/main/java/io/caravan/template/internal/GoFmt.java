package io.caravan.template.internal;

import io.caravan.template.Accessible;
import io.caravan.template.TemplateFunction;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Go's fmt (Sprint, Sprintln, Sprintf) and strconv (Quote, Unquote, number literals) as far as templates use them. */
public final class GoFmt {
    private GoFmt() {}

    // ---- Sprint family

    /** fmt.Sprint: operands separated by a space when neither side is a string. */
    public static String sprint(List<Object> args) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < args.size(); k++) {
            Object a = args.get(k);
            if (k > 0 && !(a instanceof String) && !(args.get(k - 1) instanceof String)) sb.append(' ');
            sb.append(format(a, 'v', new Spec()));
        }
        return sb.toString();
    }

    /** fmt.Sprintln: operands always separated by a space, and a newline. */
    public static String sprintln(List<Object> args) {
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < args.size(); k++) {
            if (k > 0) sb.append(' ');
            sb.append(format(args.get(k), 'v', new Spec()));
        }
        return sb.append('\n').toString();
    }

    /** The %v text of one value. */
    public static String toText(Object v) {
        return format(v, 'v', new Spec());
    }

    /** Flags, width and precision of one verb. */
    private static final class Spec {
        boolean minus, plus, sharp, space, zero;
        int width = -1;
        int prec = -1;
    }

    public static String sprintf(String format, List<Object> args) {
        StringBuilder sb = new StringBuilder();
        int argNum = 0;
        int n = format.length();
        for (int k = 0; k < n; ) {
            char c = format.charAt(k);
            if (c != '%') {
                sb.append(c);
                k++;
                continue;
            }
            k++;
            Spec s = new Spec();
            flags:
            while (k < n) {
                switch (format.charAt(k)) {
                    case '-': s.minus = true; s.zero = false; break;
                    case '+': s.plus = true; break;
                    case '#': s.sharp = true; break;
                    case ' ': s.space = true; break;
                    case '0': s.zero = !s.minus; break;
                    default: break flags;
                }
                k++;
            }
            if (k < n && format.charAt(k) == '*') {
                k++;
                if (argNum < args.size() && Values.isInt(args.get(argNum))) {
                    s.width = (int) ((Number) args.get(argNum++)).longValue();
                    if (s.width < 0) { s.minus = true; s.width = -s.width; s.zero = false; }
                } else {
                    argNum++;
                    sb.append("%!(BADWIDTH)");
                }
            } else {
                int st = k;
                while (k < n && Character.isDigit(format.charAt(k))) k++;
                if (k > st) s.width = Integer.parseInt(format.substring(st, k));
            }
            if (k < n && format.charAt(k) == '.') {
                k++;
                if (k < n && format.charAt(k) == '*') {
                    k++;
                    if (argNum < args.size() && Values.isInt(args.get(argNum))) {
                        s.prec = (int) ((Number) args.get(argNum++)).longValue();
                        if (s.prec < 0) { s.prec = -1; }
                    } else {
                        argNum++;
                        sb.append("%!(BADPREC)");
                    }
                } else {
                    int st = k;
                    while (k < n && Character.isDigit(format.charAt(k))) k++;
                    s.prec = k > st ? Integer.parseInt(format.substring(st, k)) : 0;
                }
            }
            if (k >= n) {
                sb.append("%!(NOVERB)");
                break;
            }
            int verb = format.codePointAt(k);
            k += Character.charCount(verb);
            if (verb == '%') {
                sb.append('%');
                continue;
            }
            if (argNum >= args.size()) {
                sb.append("%!").appendCodePoint(verb).append("(MISSING)");
                continue;
            }
            sb.append(format(args.get(argNum++), verb, s));
        }
        if (argNum < args.size()) {
            sb.append("%!(EXTRA ");
            for (int k = argNum; k < args.size(); k++) {
                if (k > argNum) sb.append(", ");
                Object a = args.get(k);
                sb.append(Values.typeName(a)).append('=').append(toText(a));
            }
            sb.append(')');
        }
        return sb.toString();
    }

    private static String format(Object v, int verb, Spec s) {
        v = Values.normalize(v);
        if (verb == 'T') return pad(Values.typeName(v), s);
        if (v == null || v == Values.NO_VALUE) {
            return verb == 'v' ? pad("<nil>", s) : "%!" + new String(Character.toChars(verb)) + "(<nil>)";
        }
        if (v instanceof Boolean b) {
            return verb == 't' || verb == 'v' ? pad(b.toString(), s) : bad(v, verb);
        }
        if (v instanceof Long || v instanceof BigInteger) return formatInt(new BigInteger(v.toString()), verb, s, v);
        if (v instanceof Double d) return formatFloat(d, verb, s);
        if (v instanceof String str) return formatString(str, verb, s);
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("map[");
            boolean first = true;
            for (Object key : Values.sortedKeys(m)) {
                if (!first) sb.append(' ');
                first = false;
                sb.append(format(key, verb, s)).append(':').append(format(m.get(key), verb, s));
            }
            return sb.append(']').toString();
        }
        List<Object> list = Values.asList(v);
        if (list != null) {
            StringBuilder sb = new StringBuilder("[");
            for (int k = 0; k < list.size(); k++) {
                if (k > 0) sb.append(' ');
                sb.append(format(list.get(k), verb, s));
            }
            return sb.append(']').toString();
        }
        if (v.getClass().isRecord() && !(v instanceof Accessible)) {
            StringBuilder sb = new StringBuilder("{");
            RecordComponent[] rc = v.getClass().getRecordComponents();
            for (int k = 0; k < rc.length; k++) {
                if (k > 0) sb.append(' ');
                try {
                    rc[k].getAccessor().setAccessible(true);
                    sb.append(format(rc[k].getAccessor().invoke(v), verb, s));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    sb.append("?");
                }
            }
            return sb.append('}').toString();
        }
        if (v instanceof TemplateFunction) return verb == 'v' ? pad("func", s) : bad(v, verb);
        return verb == 'v' || verb == 's' ? pad(v.toString(), s) : bad(v, verb);
    }

    private static String bad(Object v, int verb) {
        return "%!" + new String(Character.toChars(verb)) + "(" + Values.typeName(v) + "=" + toText(v) + ")";
    }

    private static String pad(String text, Spec s) {
        int len = text.codePointCount(0, text.length());
        if (s.width <= len) return text;
        String fill = (s.zero && !s.minus ? "0" : " ").repeat(s.width - len);
        return s.minus ? text + fill : fill + text;
    }

    /** Pads a signed number, zeros going between sign (and prefix) and digits. */
    private static String padNumber(String sign, String digits, Spec s) {
        int len = sign.length() + digits.length();
        if (s.width <= len) return sign + digits;
        if (s.minus) return sign + digits + " ".repeat(s.width - len);
        if (s.zero) return sign + "0".repeat(s.width - len) + digits;
        return " ".repeat(s.width - len) + sign + digits;
    }

    private static String formatInt(BigInteger i, int verb, Spec s, Object original) {
        String sign = i.signum() < 0 ? "-" : s.plus ? "+" : s.space ? " " : "";
        BigInteger abs = i.abs();
        String digits;
        switch (verb) {
            case 'v': case 'd': digits = abs.toString(); break;
            case 'b': digits = abs.toString(2); if (s.sharp) sign += "0b"; break;
            case 'o': digits = abs.toString(8); if (s.sharp && !digits.equals("0")) digits = "0" + digits; break;
            case 'O': digits = abs.toString(8); sign += "0o"; break;
            case 'x': digits = abs.toString(16); if (s.sharp) sign += "0x"; break;
            case 'X': digits = abs.toString(16).toUpperCase(); if (s.sharp) sign += "0X"; break;
            case 'c': return pad(new String(Character.toChars(i.intValue())), s);
            case 'q': return pad(quoteRune(i.intValue()), s);
            case 'U': {
                String h = abs.toString(16).toUpperCase();
                return pad("U+" + "0".repeat(Math.max(0, 4 - h.length())) + h, s);
            }
            case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
                return bad(original, verb);
            default: return bad(original, verb);
        }
        if (s.prec >= 0) {
            if (s.prec == 0 && abs.signum() == 0) digits = "";
            if (digits.length() < s.prec) digits = "0".repeat(s.prec - digits.length()) + digits;
            Spec noZero = new Spec();
            noZero.width = s.width;
            noZero.minus = s.minus;
            return padNumber(sign, digits, noZero);
        }
        return padNumber(sign, digits, s);
    }

    private static String formatFloat(double d, int verb, Spec s) {
        String body;
        switch (verb) {
            case 'v': case 'g': case 'G': body = formatG(Math.abs(d), s.prec, s.sharp); break;
            case 'e': case 'E': body = formatE(Math.abs(d), s.prec < 0 ? 6 : s.prec); break;
            case 'f': case 'F': body = formatF(Math.abs(d), s.prec < 0 ? 6 : s.prec); break;
            default: return bad(d, verb);
        }
        if (verb == 'E' || verb == 'G') body = body.toUpperCase();
        if (Double.isNaN(d)) return pad(s.plus ? "+NaN" : s.space ? " NaN" : "NaN", noZero(s));
        boolean neg = d < 0 || (d == 0 && 1 / d < 0);
        if (Double.isInfinite(d)) return pad((neg ? "-" : s.plus ? "+" : s.space ? " " : "") + "Inf", noZero(s));
        String sign = neg ? "-" : s.plus ? "+" : s.space ? " " : "";
        return padNumber(sign, body, s);
    }

    private static Spec noZero(Spec s) {
        Spec c = new Spec();
        c.width = s.width;
        c.minus = s.minus;
        return c;
    }

    /** Significant digits (no trailing zeros) and decimal point position: value = 0.DIGITS x 10^dp. */
    private record Digits(String digits, int dp) {}

    private static Digits digits(double abs, int significant) {
        if (abs == 0) return new Digits("0", 1);
        BigDecimal bd = significant <= 0 ? new BigDecimal(Double.toString(abs))
                : new BigDecimal(abs).round(new MathContext(significant, RoundingMode.HALF_EVEN));
        bd = bd.stripTrailingZeros();
        String u = bd.unscaledValue().toString();
        return new Digits(u, u.length() - bd.scale());
    }

    private static String formatE(double abs, int prec) {
        if (Double.isNaN(abs) || Double.isInfinite(abs)) return "";
        return eStyle(digits(abs, prec + 1), prec, abs == 0);
    }

    private static String eStyle(Digits d, int prec, boolean zero) {
        StringBuilder sb = new StringBuilder();
        sb.append(d.digits.charAt(0));
        if (prec > 0) {
            sb.append('.');
            for (int k = 1; k <= prec; k++) sb.append(k < d.digits.length() ? d.digits.charAt(k) : '0');
        }
        int exp = zero ? 0 : d.dp - 1;
        sb.append('e').append(exp < 0 ? '-' : '+');
        int ae = Math.abs(exp);
        if (ae < 10) sb.append('0');
        return sb.append(ae).toString();
    }

    private static String formatF(double abs, int prec) {
        if (Double.isNaN(abs) || Double.isInfinite(abs)) return "";
        return new BigDecimal(abs).setScale(prec, RoundingMode.HALF_EVEN).toPlainString();
    }

    private static String fStyle(Digits d, int prec) {
        StringBuilder sb = new StringBuilder();
        if (d.dp > 0) {
            for (int k = 0; k < d.dp; k++) sb.append(k < d.digits.length() ? d.digits.charAt(k) : '0');
        } else {
            sb.append('0');
        }
        if (prec > 0) {
            sb.append('.');
            for (int k = 0; k < prec; k++) {
                int idx = d.dp + k;
                sb.append(idx >= 0 && idx < d.digits.length() ? d.digits.charAt(idx) : '0');
            }
        }
        return sb.toString();
    }

    /** strconv's 'g': shortest when prec &lt; 0, else prec significant digits. */
    private static String formatG(double abs, int prec, boolean sharp) {
        if (Double.isNaN(abs) || Double.isInfinite(abs)) return "";
        boolean shortest = prec < 0;
        if (prec == 0) prec = 1;
        Digits d = digits(abs, shortest ? 0 : prec);
        int nd = d.digits.length();
        if (shortest) prec = nd;
        int eprec = prec;
        if (eprec > nd && nd >= d.dp) eprec = nd;
        if (shortest) eprec = 6;
        int exp = d.dp - 1;
        if (abs == 0) exp = 0;
        if (exp < -4 || exp >= eprec) {
            if (prec > nd) prec = nd;
            return eStyle(d, prec - 1, abs == 0);
        }
        if (prec > d.dp) prec = nd;
        return fStyle(d, Math.max(prec - d.dp, 0));
    }

    private static String formatString(String str, int verb, Spec s) {
        switch (verb) {
            case 'v': case 's':
                if (verb == 'v' && s.sharp) return pad(quote(str), s);
                if (s.prec >= 0 && str.codePointCount(0, str.length()) > s.prec) {
                    str = str.substring(0, str.offsetByCodePoints(0, s.prec));
                }
                return pad(str, s);
            case 'q':
                if (s.sharp && str.indexOf('`') < 0 && str.chars().allMatch(c -> c == '\t' || (c >= ' ' && c != 0x7f))) {
                    return pad("`" + str + "`", s);
                }
                return pad(quote(str), s);
            case 'x': case 'X': {
                StringBuilder sb = new StringBuilder();
                for (byte b : str.getBytes(StandardCharsets.UTF_8)) {
                    if (s.space && sb.length() > 0) sb.append(' ');
                    if (s.sharp && (s.space || sb.length() == 0)) sb.append(verb == 'x' ? "0x" : "0X");
                    String h = String.format("%02x", b & 0xff);
                    sb.append(verb == 'X' ? h.toUpperCase() : h);
                }
                return pad(sb.toString(), s);
            }
            default: return bad(str, verb);
        }
    }

    // ---- strconv

    /** strconv.Quote. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        s.codePoints().forEach(c -> appendEscaped(sb, c, '"'));
        return sb.append('"').toString();
    }

    static String quoteRune(int c) {
        StringBuilder sb = new StringBuilder("'");
        appendEscaped(sb, c, '\'');
        return sb.append('\'').toString();
    }

    private static void appendEscaped(StringBuilder sb, int c, char quote) {
        switch (c) {
            case 7: sb.append("\\a"); return;
            case '\b': sb.append("\\b"); return;
            case '\f': sb.append("\\f"); return;
            case '\n': sb.append("\\n"); return;
            case '\r': sb.append("\\r"); return;
            case '\t': sb.append("\\t"); return;
            case 11: sb.append("\\v"); return;
            case '\\': sb.append("\\\\"); return;
            default:
        }
        if (c == quote) {
            sb.append('\\').append(quote);
        } else if (c < ' ' || c == 0x7f) {
            sb.append(String.format("\\x%02x", c));
        } else if (isPrintable(c)) {
            sb.appendCodePoint(c);
        } else if (c < 0x10000) {
            sb.append(String.format("\\u%04x", c));
        } else {
            sb.append(String.format("\\U%08x", c));
        }
    }

    private static boolean isPrintable(int c) {
        if (c < 0x7f) return true;
        int t = Character.getType(c);
        return t != Character.UNASSIGNED && t != Character.CONTROL && t != Character.FORMAT
                && t != Character.PRIVATE_USE && t != Character.SURROGATE && t != Character.LINE_SEPARATOR
                && t != Character.PARAGRAPH_SEPARATOR && (t != Character.SPACE_SEPARATOR || c == ' ');
    }

    /** strconv.Unquote for "..." and `...` literals. */
    static String unquote(String lit, int pos) throws ParseError {
        if (lit.startsWith("`")) return lit.substring(1, lit.length() - 1).replace("\r", "");
        return unescape(lit.substring(1, lit.length() - 1), '"', pos, lit);
    }

    static String unquoteChar(String lit, int pos) throws ParseError {
        return unescape(lit.substring(1, lit.length() - 1), '\'', pos, lit);
    }

    private static String unescape(String body, char quote, int pos, String lit) throws ParseError {
        StringBuilder sb = new StringBuilder();
        java.io.ByteArrayOutputStream bytes = null;
        for (int k = 0; k < body.length(); ) {
            char c = body.charAt(k);
            if (c != '\\') {
                if (c == quote) throw new ParseError(pos, "invalid syntax: " + lit);
                sb.append(c);
                k++;
                continue;
            }
            if (k + 1 >= body.length()) throw new ParseError(pos, "invalid syntax: " + lit);
            char e = body.charAt(k + 1);
            k += 2;
            switch (e) {
                case 'a': sb.append((char) 7); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'v': sb.append((char) 11); break;
                case '\\': sb.append('\\'); break;
                case '\'': case '"':
                    if (e != quote) throw new ParseError(pos, "invalid syntax: " + lit);
                    sb.append(e);
                    break;
                case 'x': case 'u': case 'U': {
                    int len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    if (k + len > body.length()) throw new ParseError(pos, "invalid syntax: " + lit);
                    int v;
                    try {
                        v = Integer.parseUnsignedInt(body.substring(k, k + len), 16);
                    } catch (NumberFormatException ex) {
                        throw new ParseError(pos, "invalid syntax: " + lit);
                    }
                    k += len;
                    if (e == 'x' && v >= 0x80 && quote == '"') {
                        // a raw byte: decoded with its neighbours as UTF-8 is the best Java strings can do
                        sb.append((char) v);
                    } else {
                        if (!Character.isValidCodePoint(v)) throw new ParseError(pos, "invalid syntax: " + lit);
                        sb.appendCodePoint(v);
                    }
                    break;
                }
                default:
                    if (e >= '0' && e <= '7') {
                        if (k + 2 > body.length()) throw new ParseError(pos, "invalid syntax: " + lit);
                        try {
                            sb.append((char) Integer.parseInt(body.substring(k - 1, k + 2), 8));
                        } catch (NumberFormatException ex) {
                            throw new ParseError(pos, "invalid syntax: " + lit);
                        }
                        k += 2;
                        break;
                    }
                    throw new ParseError(pos, "invalid syntax: " + lit);
            }
        }
        return sb.toString();
    }

    /** A Go number literal as Long (integers that fit) or Double; null when malformed or too big. */
    static Object parseNumber(String text) {
        String t = text.replace("_", "");
        boolean neg = t.startsWith("-");
        if (t.startsWith("-") || t.startsWith("+")) t = t.substring(1);
        if (t.isEmpty()) return null;
        String lower = t.toLowerCase();
        try {
            BigInteger bi = null;
            if (lower.startsWith("0x")) {
                if (lower.contains("p")) return sign(Double.parseDouble(lower.contains(".") ? lower : lower), neg);
                if (lower.contains(".")) return null;
                bi = new BigInteger(lower.substring(2), 16);
            } else if (lower.startsWith("0o")) {
                bi = new BigInteger(lower.substring(2), 8);
            } else if (lower.startsWith("0b")) {
                bi = new BigInteger(lower.substring(2), 2);
            } else if (lower.contains(".") || lower.contains("e")) {
                if (lower.endsWith(".") && lower.length() == 1) return null;
                if (!lower.matches("([0-9]+\\.?[0-9]*|\\.[0-9]+)(e[+-]?[0-9]+)?")) return null;
                return sign(Double.parseDouble(lower), neg);
            } else if (lower.length() > 1 && lower.startsWith("0")) {
                bi = new BigInteger(lower.substring(1), 8);
            } else {
                bi = new BigInteger(lower);
            }
            if (neg) bi = bi.negate();
            if (bi.bitLength() > 63) return null;
            return bi.longValue();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Double sign(double d, boolean neg) {
        return neg ? -d : d;
    }
}
