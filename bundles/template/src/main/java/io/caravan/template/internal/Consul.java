package io.caravan.template.internal;

import io.caravan.template.Args;
import io.caravan.template.Functions;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** consul-template's data-free functions, in its argument order (the piped value comes last). */
public final class Consul {
    private Consul() {}

    public static Functions functions(Map<String, String> env, Clock clock) {
        return Functions.none()
                .with("env", a -> env.getOrDefault(a.expect(1).string(0), ""))
                .with("toJSON", a -> Json.write(a.expect(1).get(0), false))
                .with("toJSONPretty", a -> Json.write(a.expect(1).get(0), true))
                .with("parseJSON", a -> {
                    String s = a.expect(1).string(0);
                    return s.isEmpty() ? new java.util.LinkedHashMap<>() : Json.parse(s);
                })
                .with("toYAML", a -> Yaml.write(a.expect(1).get(0)))
                .with("split", a -> split(a.expect(2).string(0), a.string(1)))
                .with("join", a -> String.join(a.expect(2).string(0), a.strings(1)))
                .with("replaceAll", a -> a.expect(3).string(2).replace(a.string(0), a.string(1)))
                .with("toLower", a -> a.expect(1).string(0).toLowerCase(java.util.Locale.ROOT))
                .with("toUpper", a -> a.expect(1).string(0).toUpperCase(java.util.Locale.ROOT))
                .with("toTitle", a -> a.expect(1).string(0).toUpperCase(java.util.Locale.ROOT))
                .with("title", a -> title(a.expect(1).string(0)))
                .with("trimSpace", a -> a.expect(1).string(0).strip())
                .with("trimPrefix", a -> {
                    String p = a.expect(2).string(0);
                    String s = a.string(1);
                    return s.startsWith(p) ? s.substring(p.length()) : s;
                })
                .with("trimSuffix", a -> {
                    String p = a.expect(2).string(0);
                    String s = a.string(1);
                    return s.endsWith(p) ? s.substring(0, s.length() - p.length()) : s;
                })
                .with("indent", a -> {
                    long n = a.expect(2).integer(0);
                    if (n < 0 || n > 1024) throw new TemplateError("indent value must be a positive integer up to 1024");
                    String pad = " ".repeat((int) n);
                    return pad + a.string(1).replace("\n", "\n" + pad);
                })
                .with("contains", a -> in(a.expect(2).get(1), a.get(0)))
                .with("in", a -> in(a.expect(2).get(0), a.get(1)))
                .with("containsAll", a -> countIn(a.expect(2)) == a.list(0).size())
                .with("containsAny", a -> countIn(a.expect(2)) > 0)
                .with("containsNone", a -> countIn(a.expect(2)) == 0)
                .with("containsNotAll", a -> countIn(a.expect(2)) < a.list(0).size())
                .with("regexMatch", a -> regex(a.expect(2).string(0)).matcher(a.string(1)).find())
                .with("regexReplaceAll", a -> regex(a.expect(3).string(0)).matcher(a.string(2))
                        .replaceAll(goReplacement(a.string(1))))
                .with("add", a -> arith("add", a, '+'))
                .with("subtract", a -> arith("subtract", a, '-'))
                .with("multiply", a -> arith("multiply", a, '*'))
                .with("divide", a -> arith("divide", a, '/'))
                .with("modulo", a -> arith("modulo", a, '%'))
                .with("maximum", a -> compareNumbers("maximum", a) >= 0 ? a.get(1) : a.get(0))
                .with("minimum", a -> compareNumbers("minimum", a) <= 0 ? a.get(1) : a.get(0))
                .with("loop", Consul::loop)
                .with("parseBool", a -> parseBool(a.expect(1).string(0)))
                .with("parseInt", a -> {
                    try {
                        return Long.parseLong(a.expect(1).string(0).trim());
                    } catch (NumberFormatException e) {
                        throw new TemplateError("parseInt: invalid syntax: " + GoFmt.quote(a.string(0)));
                    }
                })
                .with("parseFloat", a -> {
                    try {
                        return Double.parseDouble(a.expect(1).string(0).trim());
                    } catch (NumberFormatException e) {
                        throw new TemplateError("parseFloat: invalid syntax: " + GoFmt.quote(a.string(0)));
                    }
                })
                .with("timestamp", a -> {
                    a.expect(0, 1);
                    ZonedDateTime now = ZonedDateTime.now(clock).withZoneSameInstant(ZoneOffset.UTC);
                    if (a.size() == 0) return GoTime.format(now, "2006-01-02T15:04:05Z07:00");
                    if (a.string(0).equals("unix")) return Long.toString(now.toEpochSecond());
                    return GoTime.format(now, a.string(0));
                })
                .with("base64Encode", a -> Base64.getEncoder().encodeToString(bytes(a)))
                .with("base64Decode", a -> decode(Base64.getDecoder(), a, "base64Decode"))
                .with("base64URLEncode", a -> Base64.getUrlEncoder().encodeToString(bytes(a)))
                .with("base64URLDecode", a -> decode(Base64.getUrlDecoder(), a, "base64URLDecode"));
    }

    private static byte[] bytes(Args a) {
        return a.expect(1).string(0).getBytes(StandardCharsets.UTF_8);
    }

    private static String decode(Base64.Decoder d, Args a, String name) {
        try {
            return new String(d.decode(a.expect(1).string(0)), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new TemplateError(name + ": " + e.getMessage());
        }
    }

    private static List<String> split(String sep, String s) {
        s = s.strip();
        List<String> out = new ArrayList<>();
        if (s.isEmpty()) return out;
        if (sep.isEmpty()) {
            s.codePoints().forEach(c -> out.add(new String(Character.toChars(c))));
            return out;
        }
        int from = 0;
        for (int i; (i = s.indexOf(sep, from)) >= 0; from = i + sep.length()) out.add(s.substring(from, i));
        out.add(s.substring(from));
        return out;
    }

    private static String title(String s) {
        StringBuilder sb = new StringBuilder();
        boolean start = true;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            sb.appendCodePoint(start ? Character.toTitleCase(c) : c);
            start = !Character.isLetterOrDigit(c) && c != '_' && c != '\'';
            i += Character.charCount(c);
        }
        return sb.toString();
    }

    private static boolean in(Object haystack, Object needle) {
        if (haystack instanceof String s) {
            if (!(needle instanceof String n)) throw new TemplateError("in: mismatched types " + Values.typeName(needle));
            return s.contains(n);
        }
        List<Object> l = Values.asList(haystack);
        if (l == null) throw new TemplateError("in: cannot search in " + Values.typeName(haystack));
        Object n = Values.normalize(needle);
        for (Object e : l) if (Objects.equals(Values.normalize(e), n)) return true;
        return false;
    }

    /** How many of the list {@code a[0]} are in the list {@code a[1]}. */
    private static long countIn(Args a) {
        List<Object> needles = a.list(0);
        return needles.stream().filter(n -> in(a.list(1), n)).count();
    }

    private static Pattern regex(String re) {
        try {
            return Pattern.compile(re);
        } catch (PatternSyntaxException e) {
            throw new TemplateError("error parsing regexp: " + e.getDescription() + ": " + GoFmt.quote(re));
        }
    }

    /** Go's ${1} and ${name} become Java's $1 and ${name}; a literal backslash stays literal. */
    private static String goReplacement(String repl) {
        String s = repl.replace("\\", "\\\\");
        Matcher m = Pattern.compile("\\$\\{([0-9]+)\\}").matcher(s);
        return m.replaceAll(r -> Matcher.quoteReplacement("$" + r.group(1)));
    }

    /** consul-template's math: {@code {{ a | op b }}} is a op b; integers stay integers, any float makes a float. */
    private static Object arith(String name, Args a, char op) {
        a.expect(2);
        Object b = Values.normalize(a.get(0));
        Object x = Values.normalize(a.get(1));
        if (!(b instanceof Number) || !(x instanceof Number)) {
            Object bad = b instanceof Number ? x : b;
            throw new TemplateError(name + ": unknown type for " + GoFmt.quote(GoFmt.toText(bad)) + " ("
                    + Values.typeName(bad) + ")");
        }
        if (Values.isInt(x) && Values.isInt(b)) {
            long l = ((Number) x).longValue();
            long r = ((Number) b).longValue();
            switch (op) {
                case '+': return Math.addExact(l, r);
                case '-': return Math.subtractExact(l, r);
                case '*': return Math.multiplyExact(l, r);
                case '/':
                    if (r == 0) throw new TemplateError(name + ": division by zero");
                    return l / r;
                default:
                    if (r == 0) throw new TemplateError(name + ": division by zero");
                    return l % r;
            }
        }
        if (op == '%') throw new TemplateError(name + ": unknown type for float64 operands");
        double l = ((Number) x).doubleValue();
        double r = ((Number) b).doubleValue();
        switch (op) {
            case '+': return l + r;
            case '-': return l - r;
            case '*': return l * r;
            default:
                if (r == 0) throw new TemplateError(name + ": division by zero");
                return l / r;
        }
    }

    private static int compareNumbers(String name, Args a) {
        a.expect(2);
        Object b = a.get(0);
        Object x = a.get(1);
        if (!(b instanceof Number) || !(x instanceof Number)) throw new TemplateError(name + ": arguments must be numbers");
        return Double.compare(((Number) x).doubleValue(), ((Number) b).doubleValue());
    }

    /** {@code loop N} is 0..N-1, {@code loop A B} is A..B-1: lazily, so the step budget bounds a huge loop. */
    private static Object loop(Args a) {
        a.expect(1, 2);
        long start = a.size() == 2 ? a.integer(0) : 0;
        long stop = a.size() == 2 ? a.integer(1) : a.integer(0);
        return (Iterable<Long>) () -> new Iterator<>() {
            long next = start;
            @Override public boolean hasNext() { return next < stop; }
            @Override public Long next() {
                if (next >= stop) throw new NoSuchElementException();
                return next++;
            }
        };
    }

    private static boolean parseBool(String s) {
        switch (s) {
            case "1": case "t": case "T": case "TRUE": case "true": case "True": return true;
            case "0": case "f": case "F": case "FALSE": case "false": case "False": return false;
            default: throw new TemplateError("parseBool: invalid syntax: " + GoFmt.quote(s));
        }
    }
}
