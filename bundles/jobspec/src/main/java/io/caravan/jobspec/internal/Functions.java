package io.caravan.jobspec.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.hcl.HclFunction;
import io.caravan.hcl.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
                return Value.of(Files.readString(p, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalArgumentException("no file exists at " + p);
            }
        });
        f.put("format", args -> Value.of(format(str(args, 0), args.subList(1, args.size()))));
        f.put("join", args -> {
            arity(args, 2);
            List<String> parts = new ArrayList<>();
            for (Value v : list(args, 1)) {
                parts.add(scalar(v));
            }
            return Value.of(String.join(str(args, 0), parts));
        });
        f.put("split", args -> {
            arity(args, 2);
            List<Value> out = new ArrayList<>();
            for (String s : str(args, 1).split(Pattern.quote(str(args, 0)), -1)) {
                out.add(Value.of(s));
            }
            return Value.list(out);
        });
        f.put("lower", args -> Value.of(str(args, 0).toLowerCase(java.util.Locale.ROOT)));
        f.put("upper", args -> Value.of(str(args, 0).toUpperCase(java.util.Locale.ROOT)));
        f.put("trimspace", args -> Value.of(str(args, 0).strip()));
        f.put("replace", args -> {
            arity(args, 3);
            String s = str(args, 0);
            String search = str(args, 1);
            String with = str(args, 2);
            // As in Terraform: a search string wrapped in slashes is a regular expression.
            if (search.length() > 1 && search.startsWith("/") && search.endsWith("/")) {
                String re = search.substring(1, search.length() - 1);
                return Value.of(Pattern.compile(re).matcher(s).replaceAll(with.replaceAll("\\$\\{(\\w+)}", "\\${$1}")));
            }
            return Value.of(s.replace(search, with));
        });
        f.put("merge", args -> {
            Map<String, Value> out = new TreeMap<>();
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
            try {
                return Value.of(JSON.writeValueAsString(args.get(0).toJava()));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e.getOriginalMessage());
            }
        });
        f.put("jsondecode", args -> {
            arity(args, 1);
            try {
                return fromJson(JSON.readTree(str(args, 0)));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e.getOriginalMessage());
            }
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

    static Value fromJson(JsonNode n) {
        if (n == null || n.isNull()) {
            return Value.NULL;
        } else if (n.isTextual()) {
            return Value.of(n.asText());
        } else if (n.isNumber()) {
            return Value.of(n.decimalValue());
        } else if (n.isBoolean()) {
            return Value.of(n.asBoolean());
        } else if (n.isArray()) {
            List<Value> out = new ArrayList<>();
            n.forEach(e -> out.add(fromJson(e)));
            return Value.list(out);
        }
        Map<String, Value> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            out.put(e.getKey(), fromJson(e.getValue()));
        }
        return Value.object(out);
    }

    private static final Pattern VERB = Pattern.compile("%([-+# 0]*)(\\d+)?(?:\\.(\\d+))?([%svdqftxXbeo])");

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
            String text = switch (verb) {
                case 'd' -> num(List.of(v), 0).toBigIntegerExact().toString();
                case 'f', 'e' -> {
                    int precision = m.group(3) == null ? 6 : Integer.parseInt(m.group(3));
                    yield String.format(java.util.Locale.ROOT, "%." + precision + verb,
                            num(List.of(v), 0).doubleValue());
                }
                case 'q' -> JSON.valueToTree(scalar(v)).toString();
                case 't' -> Boolean.toString(v instanceof Value.BoolValue b ? b.value()
                        : Boolean.parseBoolean(scalar(v)));
                case 'x' -> v instanceof Value.NumberValue n ? n.value().toBigIntegerExact().toString(16)
                        : hex(scalar(v), false);
                case 'X' -> v instanceof Value.NumberValue n
                        ? n.value().toBigIntegerExact().toString(16).toUpperCase(java.util.Locale.ROOT)
                        : hex(scalar(v), true);
                case 'b' -> num(List.of(v), 0).toBigIntegerExact().toString(2);
                case 'o' -> num(List.of(v), 0).toBigIntegerExact().toString(8);
                default -> v instanceof Value.StringValue || v instanceof Value.NumberValue
                        || v instanceof Value.BoolValue ? scalar(v) : jsonText(v);
            };
            if (m.group(2) != null) {
                int width = Integer.parseInt(m.group(2));
                boolean left = flags.contains("-");
                char pad = flags.contains("0") && !left ? '0' : ' ';
                while (text.length() < width) {
                    text = left ? text + ' ' : pad + text;
                }
            }
            out.append(text);
        }
        out.append(fmt.substring(last));
        if (next < args.size()) {
            throw new IllegalArgumentException("too many arguments; only " + next + " used by format string");
        }
        return out.toString();
    }

    private static String hex(String s, boolean upper) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            out.append(String.format(upper ? "%02X" : "%02x", b));
        }
        return out.toString();
    }

    private static String jsonText(Value v) {
        try {
            return JSON.writeValueAsString(v.toJava());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage());
        }
    }
}
