package io.caravan.jobspec.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.hcl.Budget;
import io.caravan.hcl.HclFunction;
import io.caravan.hcl.Value;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HCL functions jobspecs use most (Terraform/cty's standard library under the same names and semantics). A
 * failing function throws {@link IllegalArgumentException}; the evaluator reports it at the call's position.
 */
public final class Functions {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Functions() {
    }

    /**
     * Every function. {@code baseDir} is where {@code file()} resolves relative paths; a null {@code baseDir}
     * disables {@code file()} (Nomad's HTTP parse endpoint does the same).
     */
    public static Map<String, HclFunction> all(Path baseDir) {
        Map<String, HclFunction> f = new LinkedHashMap<>();
        f.put("file", args -> {
            if (baseDir == null) {
                throw new IllegalArgumentException("filesystem function disabled");
            }
            arity(args, 1);
            Path p = baseDir.resolve(str(args, 0));
            try {
                Budget.checkLength(Files.size(p));
                return Value.of(Files.readString(p, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalArgumentException("no file exists at " + p);
            }
        });
        f.put("format", args -> Value.of(format(str(args, 0), args.subList(1, args.size()))));
        f.put("join", args -> {
            arity(args, 2);
            String separator = str(args, 0);
            List<String> parts = new ArrayList<>();
            long length = 0;
            for (Value v : list(args, 1)) {
                parts.add(scalar(v));
                length += parts.get(parts.size() - 1).length() + (parts.size() > 1 ? separator.length() : 0);
            }
            Budget.checkLength(length);
            return Value.of(String.join(separator, parts));
        });
        f.put("split", args -> {
            arity(args, 2);
            return Value.list(split(str(args, 0), str(args, 1)));
        });
        // Case mapping may lengthen a string (ß is SS), within a small factor of an argument already bounded.
        f.put("lower", args -> Value.of(bounded(str(args, 0).toLowerCase(Locale.ROOT))));
        f.put("upper", args -> Value.of(bounded(str(args, 0).toUpperCase(Locale.ROOT))));
        f.put("trimspace", args -> Value.of(str(args, 0).strip()));
        f.put("replace", args -> {
            arity(args, 3);
            String s = str(args, 0);
            String search = str(args, 1);
            String with = str(args, 2);
            // As in Terraform: a search string wrapped in slashes is a regular expression.
            if (search.length() > 1 && search.startsWith("/") && search.endsWith("/")) {
                String re = search.substring(1, search.length() - 1);
                return Value.of(replaceRegex(s, re, with.replaceAll("\\$\\{(\\w+)}", "\\${$1}")));
            }
            Budget.checkLength(s.length() + (long) occurrences(s, search) * (with.length() - search.length()));
            return Value.of(s.replace(search, with));
        });
        f.put("merge", args -> {
            Map<String, Value> out = new TreeMap<>();
            long size = 0;
            for (int i = 0; i < args.size(); i++) {
                if (!args.get(i).isNull()) {
                    size += object(args, i).size();
                }
            }
            Budget.checkElements(size);
            for (int i = 0; i < args.size(); i++) {
                if (!args.get(i).isNull()) {
                    out.putAll(object(args, i));
                }
            }
            return Value.object(out);
        });
        f.put("lookup", args -> {
            if (args.size() < 2 || args.size() > 3) {
                throw new IllegalArgumentException("lookup takes a map, a key and an optional default");
            }
            Value v = object(args, 0).get(str(args, 1));
            if (v != null) {
                return v;
            }
            if (args.size() == 3) {
                return args.get(2);
            }
            throw new IllegalArgumentException("the given key \"" + str(args, 1) + "\" does not exist in the map");
        });
        f.put("concat", args -> {
            long size = 0;
            for (int i = 0; i < args.size(); i++) {
                size += list(args, i).size();
            }
            Budget.checkElements(size);
            List<Value> out = new ArrayList<>();
            for (int i = 0; i < args.size(); i++) {
                out.addAll(list(args, i));
            }
            return Value.list(out);
        });
        f.put("length", args -> {
            arity(args, 1);
            Value v = args.get(0);
            if (v instanceof Value.StringValue s) {
                return Value.of(s.value().codePointCount(0, s.value().length()));
            } else if (v instanceof Value.ListValue l) {
                return Value.of(l.elements().size());
            } else if (v instanceof Value.ObjectValue o) {
                return Value.of(o.attributes().size());
            }
            throw new IllegalArgumentException("argument must be a string, a collection or a structural type");
        });
        f.put("keys", args -> Value.list(object(args, 0).keySet().stream().map(k -> (Value) Value.of(k)).toList()));
        f.put("values", args -> Value.list(new ArrayList<>(object(args, 0).values())));
        f.put("element", args -> {
            arity(args, 2);
            List<Value> l = list(args, 0);
            if (l.isEmpty()) {
                throw new IllegalArgumentException("cannot use element function with an empty list");
            }
            int i = num(args, 1).intValueExact();
            if (i < 0) {
                throw new IllegalArgumentException("cannot use element function with a negative index");
            }
            return l.get(i % l.size());
        });
        f.put("contains", args -> {
            arity(args, 2);
            return Value.of(list(args, 0).contains(args.get(1)));
        });
        f.put("jsonencode", args -> {
            arity(args, 1);
            return Value.of(jsonText(args.get(0)));
        });
        f.put("jsondecode", args -> {
            arity(args, 1);
            return jsonDecode(str(args, 0));
        });
        f.put("tostring", args -> {
            arity(args, 1);
            return args.get(0).isNull() ? Value.NULL : Value.of(scalar(args.get(0)));
        });
        f.put("tonumber", args -> {
            arity(args, 1);
            return args.get(0).isNull() ? Value.NULL : Value.of(num(args, 0));
        });
        f.put("coalesce", args -> {
            for (Value v : args) {
                if (!v.isNull() && !(v instanceof Value.StringValue s && s.value().isEmpty())) {
                    return v;
                }
            }
            throw new IllegalArgumentException("no non-null, non-empty-string arguments");
        });
        f.put("abs", args -> Value.of(num(args, 0).abs()));
        f.put("min", args -> Value.of(numbers(args).stream().reduce(BigDecimal::min)
                .orElseThrow(() -> new IllegalArgumentException("must pass at least one number"))));
        f.put("max", args -> Value.of(numbers(args).stream().reduce(BigDecimal::max)
                .orElseThrow(() -> new IllegalArgumentException("must pass at least one number"))));
        return f;
    }

    private static void arity(List<Value> args, int n) {
        if (args.size() != n) {
            throw new IllegalArgumentException(n + " argument(s) required, got " + args.size());
        }
    }

    private static Value arg(List<Value> args, int i) {
        if (i >= args.size()) {
            throw new IllegalArgumentException("missing argument " + (i + 1));
        }
        return args.get(i);
    }

    private static String str(List<Value> args, int i) {
        return scalar(arg(args, i));
    }

    /** A string, or a number or bool converted to one (HCL's automatic conversion). */
    private static String scalar(Value v) {
        if (v instanceof Value.StringValue s) {
            return s.value();
        } else if (v instanceof Value.NumberValue || v instanceof Value.BoolValue) {
            return v.toString();
        }
        throw new IllegalArgumentException("a string is required, got " + v.typeName());
    }

    private static BigDecimal num(List<Value> args, int i) {
        Value v = arg(args, i);
        if (v instanceof Value.NumberValue n) {
            return n.value();
        }
        if (v instanceof Value.StringValue s) {
            if (s.value().length() > Budget.MAX_NUMBER_LENGTH) {
                throw new IllegalArgumentException("cannot convert a string of more than " + Budget.MAX_NUMBER_LENGTH
                        + " characters to a number");
            }
            try {
                return new BigDecimal(s.value().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cannot convert \"" + s.value() + "\" to a number");
            }
        }
        throw new IllegalArgumentException("a number is required, got " + v.typeName());
    }

    private static List<BigDecimal> numbers(List<Value> args) {
        List<BigDecimal> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            out.add(num(args, i));
        }
        return out;
    }

    private static List<Value> list(List<Value> args, int i) {
        if (arg(args, i) instanceof Value.ListValue l) {
            return l.elements();
        }
        throw new IllegalArgumentException("argument " + (i + 1) + " must be a list, got " + args.get(i).typeName());
    }

    private static Map<String, Value> object(List<Value> args, int i) {
        if (arg(args, i) instanceof Value.ObjectValue o) {
            return o.attributes();
        }
        throw new IllegalArgumentException("argument " + (i + 1) + " must be a map or object, got "
                + args.get(i).typeName());
    }

    /**
     * {@code jsondecode}: streams the text into values, so an oversized document fails at the element or depth
     * limit before it is built (Jackson already bounds the length of numbers and strings).
     */
    private static Value jsonDecode(String text) {
        try (JsonParser p = JSON.getFactory().createParser(text)) {
            if (p.nextToken() == null) {
                throw new IllegalArgumentException("unexpected end of JSON input");
            }
            Value v = readJson(p, 0, new long[1]);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("extra data after the JSON value");
            }
            return v;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // reading a String does no I/O
        }
    }

    private static Value readJson(JsonParser p, int depth, long[] elements) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) {
            if (depth >= Value.MAX_DEPTH) {
                throw new IllegalArgumentException("JSON nested more than " + Value.MAX_DEPTH + " levels deep");
            }
            List<Value> list = new ArrayList<>();
            Map<String, Value> object = new TreeMap<>();
            while (p.nextToken() != (t == JsonToken.START_ARRAY ? JsonToken.END_ARRAY : JsonToken.END_OBJECT)) {
                Budget.checkElements(++elements[0]);
                if (t == JsonToken.START_ARRAY) {
                    list.add(readJson(p, depth + 1, elements));
                } else {
                    String key = p.currentName();
                    p.nextToken();
                    object.put(key, readJson(p, depth + 1, elements));
                }
            }
            return t == JsonToken.START_ARRAY ? Value.list(list) : Value.object(object);
        }
        return switch (t) {
            case VALUE_STRING -> Value.of(p.getText());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> Value.of(p.getDecimalValue());
            case VALUE_TRUE -> Value.TRUE;
            case VALUE_FALSE -> Value.FALSE;
            default -> Value.NULL;
        };
    }

    /** {@code split}, building no more than the element limit allows. */
    private static List<Value> split(String separator, String s) {
        List<Value> out = new ArrayList<>();
        if (separator.isEmpty()) { // as Go's strings.Split: each character (code point)
            Budget.checkElements(s.codePointCount(0, s.length()));
            s.codePoints().forEach(cp -> out.add(Value.of(Character.toString(cp))));
            return out;
        }
        int from = 0;
        while (true) {
            Budget.checkElements(out.size() + 1L);
            int at = s.indexOf(separator, from);
            if (at < 0) {
                out.add(Value.of(s.substring(from)));
                return out;
            }
            out.add(Value.of(s.substring(from, at)));
            from = at + separator.length();
        }
    }

    private static int occurrences(String s, String search) {
        if (search.isEmpty()) {
            return s.length() + 1; // String.replace inserts around every char
        }
        int n = 0;
        for (int at = s.indexOf(search); at >= 0; at = s.indexOf(search, at + search.length())) {
            n++;
        }
        return n;
    }

    private static String bounded(String result) {
        Budget.checkLength(result.length());
        return result;
    }

    /**
     * Java's regular expressions backtrack: {@code (a+)+$} takes exponential time on {@code aaaa...!}, and some
     * patterns recurse once per repetition. So the subject counts the characters the matcher reads and gives up
     * past a generous multiple of its length, and a stack overflow in the matcher is reported as a failure.
     */
    private static String replaceRegex(String s, String re, String with) {
        try {
            Matcher m = Pattern.compile(re).matcher(new MeteredText(s, 50_000_000L + 100L * s.length()));
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(out, with);
                Budget.checkLength(out.length());
            }
            m.appendTail(out);
            return bounded(out.toString());
        } catch (StackOverflowError e) {
            throw new IllegalArgumentException("the regular expression is too complex for this text");
        }
    }

    /** Text that fails once more than {@code limit} characters have been read from it. */
    private static final class MeteredText implements CharSequence {
        private final String text;
        private final long[] reads;
        private final long limit;

        MeteredText(String text, long limit) {
            this(text, limit, new long[1]);
        }

        private MeteredText(String text, long limit, long[] reads) {
            this.text = text;
            this.limit = limit;
            this.reads = reads;
        }

        @Override
        public char charAt(int index) {
            if (++reads[0] > limit) {
                throw new IllegalArgumentException("the regular expression takes too long on this text "
                        + "(it backtracks too much)");
            }
            return text.charAt(index);
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new MeteredText(text.substring(start, end), limit, reads);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    private static final Pattern VERB = Pattern.compile("%([-+# 0]*)(\\d+)?(?:\\.(\\d+))?([%svdqftxXbeo])");
    /** Go's fmt refuses widths and precisions above a million ({@code %!(BADWIDTH)}); so does {@code format}. */
    private static final int MAX_WIDTH = 1_000_000;

    /** Go's fmt verbs as cty's {@code format} supports them: {@code %s %v %d %f %q %t %x %%}, width and precision. */
    static String format(String fmt, List<Value> args) {
        StringBuilder out = new StringBuilder();
        Matcher m = VERB.matcher(fmt);
        int last = 0;
        int next = 0;
        while (m.find()) {
            out.append(fmt, last, m.start());
            last = m.end();
            char verb = m.group(4).charAt(0);
            if (verb == '%') {
                out.append('%');
                continue;
            }
            if (next >= args.size()) {
                throw new IllegalArgumentException("not enough arguments for format string");
            }
            Value v = args.get(next++);
            String flags = m.group(1);
            int width = m.group(2) == null ? 0 : widthOrPrecision(m.group(2), "width");
            String text = switch (verb) {
                case 'd' -> num(List.of(v), 0).toBigIntegerExact().toString();
                case 'f', 'e' -> {
                    int precision = m.group(3) == null ? 6 : widthOrPrecision(m.group(3), "precision");
                    yield String.format(Locale.ROOT, "%." + precision + verb,
                            num(List.of(v), 0).doubleValue());
                }
                case 'q' -> jsonText(Value.of(scalar(v)));
                case 't' -> Boolean.toString(v instanceof Value.BoolValue b ? b.value()
                        : Boolean.parseBoolean(scalar(v)));
                case 'x' -> v instanceof Value.NumberValue n ? n.value().toBigIntegerExact().toString(16)
                        : hex(scalar(v), false);
                case 'X' -> v instanceof Value.NumberValue n
                        ? n.value().toBigIntegerExact().toString(16).toUpperCase(Locale.ROOT)
                        : hex(scalar(v), true);
                case 'b' -> num(List.of(v), 0).toBigIntegerExact().toString(2);
                case 'o' -> num(List.of(v), 0).toBigIntegerExact().toString(8);
                default -> v instanceof Value.StringValue || v instanceof Value.NumberValue
                        || v instanceof Value.BoolValue ? scalar(v) : jsonText(v);
            };
            Budget.checkLength((long) out.length() + Math.max(width, text.length()));
            if (text.length() < width) {
                boolean left = flags.contains("-");
                String padding = String.valueOf(flags.contains("0") && !left ? '0' : ' ').repeat(width - text.length());
                text = left ? text + " ".repeat(width - text.length()) : padding + text;
            }
            out.append(text);
        }
        Budget.checkLength((long) out.length() + fmt.length() - last);
        out.append(fmt.substring(last));
        if (next < args.size()) {
            throw new IllegalArgumentException("too many arguments; only " + next + " used by format string");
        }
        return out.toString();
    }

    private static int widthOrPrecision(String digits, String what) {
        if (digits.length() > 7 || Integer.parseInt(digits) > MAX_WIDTH) {
            throw new IllegalArgumentException("the " + what + " " + digits + " is above the limit of " + MAX_WIDTH);
        }
        return Integer.parseInt(digits);
    }

    private static String hex(String s, boolean upper) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        Budget.checkLength(2L * bytes.length);
        HexFormat hex = upper ? HexFormat.of().withUpperCase() : HexFormat.of();
        return hex.formatHex(bytes);
    }

    /** JSON text of {@code v}, failing as soon as it grows past the string limit (a small value may share parts). */
    private static String jsonText(Value v) {
        StringWriter out = new StringWriter() {
            @Override
            public void write(String str, int off, int len) {
                Budget.checkLength((long) getBuffer().length() + len);
                super.write(str, off, len);
            }

            @Override
            public void write(char[] cbuf, int off, int len) {
                Budget.checkLength((long) getBuffer().length() + len);
                super.write(cbuf, off, len);
            }

            @Override
            public void write(int c) {
                Budget.checkLength(getBuffer().length() + 1L);
                super.write(c);
            }
        };
        try {
            JSON.writeValue(out, v.toJava());
            return out.toString();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does no I/O
        }
    }
}
