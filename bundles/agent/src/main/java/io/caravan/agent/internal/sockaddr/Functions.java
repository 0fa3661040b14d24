package io.caravan.agent.internal.sockaddr;

import io.caravan.agent.internal.sockaddr.TemplateParser.Action;
import io.caravan.agent.internal.sockaddr.TemplateParser.Command;
import io.caravan.agent.internal.sockaddr.TemplateParser.Dot;
import io.caravan.agent.internal.sockaddr.TemplateParser.Ident;
import io.caravan.agent.internal.sockaddr.TemplateParser.Num;
import io.caravan.agent.internal.sockaddr.TemplateParser.Str;
import io.caravan.agent.internal.sockaddr.TemplateParser.Word;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * go-sockaddr's template functions and the evaluation of a pipeline, Go-style: each command after a {@code |} gets the
 * previous value as its last argument. Values are strings, integers and lists of {@link IfAddr}. One instance serves
 * one render, so the interfaces are read once.
 */
final class Functions {

    /** A function's own complaint; the evaluator prefixes the call, e.g. {@code include "size" "x": ...}. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /** A list of interface addresses as a pipeline value (a wrapper, so type checks need no unchecked casts). */
    record Addrs(List<IfAddr> items) {
    }

    private interface Body {
        Object call(Functions f, Args a) throws Failure, SockaddrException;
    }

    private record Spec(List<String> params, Body body) {
    }

    private static final Map<String, Spec> SPECS = Map.ofEntries(
            Map.entry("GetAllInterfaces", new Spec(List.of(), (f, a) -> new Addrs(f.all()))),
            Map.entry("GetDefaultInterfaces", new Spec(List.of(), (f, a) -> new Addrs(f.defaultInterfaces()))),
            Map.entry("GetPrivateInterfaces", new Spec(List.of(), (f, a) -> new Addrs(f.forwardableUp(true)))),
            Map.entry("GetPublicInterfaces", new Spec(List.of(), (f, a) -> new Addrs(f.forwardableUp(false)))),
            Map.entry("GetPrivateIP", new Spec(List.of(), (f, a) -> first(f.forwardableUp(true)))),
            Map.entry("GetPublicIP", new Spec(List.of(), (f, a) -> first(f.forwardableUp(false)))),
            Map.entry("GetPrivateIPs", new Spec(List.of(), (f, a) -> f.allIPs(true))),
            Map.entry("GetPublicIPs", new Spec(List.of(), (f, a) -> f.allIPs(false))),
            Map.entry("GetInterfaceIP", new Spec(List.of("name"), (f, a) -> f.interfaceIP(a.text(0)))),
            Map.entry("GetInterfaceIPs", new Spec(List.of("name"), (f, a) -> f.interfaceIPs(a.text(0)))),
            Map.entry("include", new Spec(List.of("selector", "value", "interfaces"),
                    (f, a) -> filter(a.addrs(2), Filters.selector(a.text(0), a.text(1))))),
            Map.entry("exclude", new Spec(List.of("selector", "value", "interfaces"),
                    (f, a) -> filter(a.addrs(2), Filters.selector(a.text(0), a.text(1)).negate()))),
            Map.entry("sort", new Spec(List.of("keys", "interfaces"), (f, a) -> new Addrs(
                    sorted(a.addrs(1), Filters.order(a.text(0), f.defaultInterface()))))),
            Map.entry("unique", new Spec(List.of("attribute", "interfaces"), (f, a) -> unique(a.text(0), a.addrs(1)))),
            Map.entry("limit", new Spec(List.of("count", "interfaces"), (f, a) -> limit(a.number(0), a.addrs(1)))),
            Map.entry("offset", new Spec(List.of("offset", "interfaces"), (f, a) -> offset(a.number(0), a.addrs(1)))),
            Map.entry("attr", new Spec(List.of("attribute", "interfaces"), (f, a) -> a.addrs(1).isEmpty() ? ""
                    : Attributes.get(a.addrs(1).get(0), a.text(0)))),
            Map.entry("join", new Spec(List.of("attribute", "separator", "interfaces"),
                    (f, a) -> join(a.addrs(2), a.text(0), a.text(1)))),
            Map.entry("math", new Spec(List.of("operation", "value", "interfaces"),
                    (f, a) -> math(a.text(0), a.text(1), a.addrs(2)))));

    private static final Set<String> TEMPLATE_ACTIONS = Set.of("if", "else", "end", "range", "with", "define",
            "template", "block", "break", "continue");
    private static final Set<String> TEMPLATE_BUILTINS = Set.of("and", "call", "html", "index", "slice", "js", "len",
            "not", "or", "print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne", "nil", "true",
            "false");

    private final Interfaces source;
    private List<IfAddr> all;
    private Optional<String> defaultInterface;

    Functions(Interfaces source) {
        this.source = source;
    }

    // ---- evaluation

    Object evaluate(Action action) throws SockaddrException {
        Object value = null;
        boolean piped = false;
        for (Command command : action.pipeline()) {
            value = command(action, command, piped, value);
            piped = true;
        }
        return value;
    }

    private Object command(Action action, Command command, boolean piped, Object pipedValue)
            throws SockaddrException {
        List<Word> words = command.words();
        if (!(words.get(0) instanceof Ident fn)) {
            if (words.size() > 1 || piped) {
                throw new SockaddrException("only a function can take arguments, not " + show(words.get(0))
                        + " in \"" + action.source() + "\"");
            }
            return literal(words.get(0));
        }
        List<Object> args = new ArrayList<>();
        for (Word w : words.subList(1, words.size())) {
            // a function name as an argument is called without arguments, as in Go
            args.add(w instanceof Ident id ? call(action, id.name(), List.of(), id.name(), false) : literal(w));
        }
        if (piped) {
            args.add(pipedValue);
        }
        String shown = words.stream().map(Functions::show).collect(Collectors.joining(" "));
        return call(action, fn.name(), args, shown, piped);
    }

    private Object call(Action action, String name, List<Object> args, String shown, boolean piped)
            throws SockaddrException {
        Spec spec = SPECS.get(name);
        if (spec == null) {
            throw new SockaddrException(unknown(name) + " in \"" + action.source() + "\"");
        }
        if (args.size() != spec.params().size()) {
            throw new SockaddrException(shown + ": wrong number of arguments: want " + spec.params().size()
                    + (spec.params().isEmpty() ? "" : " (" + String.join(", ", spec.params()) + ")") + ", got "
                    + args.size() + (piped ? " counting the value piped in" : ""));
        }
        try {
            return spec.body().call(this, new Args(spec.params(), args));
        } catch (Failure e) {
            throw new SockaddrException(shown + ": " + e.getMessage(), e);
        }
    }

    private static String unknown(String name) {
        if (TEMPLATE_ACTIONS.contains(name)) {
            return "\"" + name + "\" is not supported: only a pipeline of go-sockaddr functions is (no if, range,"
                    + " with or end)";
        }
        if (TEMPLATE_BUILTINS.contains(name)) {
            return "\"" + name + "\" is not supported: it is a Go template builtin, and only go-sockaddr functions"
                    + " are available";
        }
        if (name.equals("Attr")) {
            return "\"Attr\" is not supported: it needs range or with, which are not supported; use attr";
        }
        String hint = SPECS.keySet().stream().filter(name::equalsIgnoreCase).findFirst()
                .map(n -> " (did you mean " + n + "?)").orElse("");
        return "unknown function \"" + name + "\"" + hint;
    }

    private Object literal(Word w) throws SockaddrException {
        if (w instanceof Str s) {
            return s.value();
        }
        if (w instanceof Num n) {
            return n.value();
        }
        if (w instanceof Dot) {
            return new Addrs(all()); // go-sockaddr's starting value
        }
        throw new IllegalStateException("not a literal: " + w);
    }

    private static String show(Word w) {
        if (w instanceof Ident id) {
            return id.name();
        }
        if (w instanceof Str s) {
            return quote(s.value());
        }
        if (w instanceof Num n) {
            return Long.toString(n.value());
        }
        return ".";
    }

    static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
    }

    /** Typed access to a call's arguments, naming the parameter when a value has the wrong type. */
    private record Args(List<String> params, List<Object> values) {
        String text(int i) throws Failure {
            if (values.get(i) instanceof String s) {
                return s;
            }
            throw wrongType(i, "a string");
        }

        /** Integers may also be written as strings, as go-sockaddr's own docs do ({@code offset "-2"}). */
        long number(int i) throws Failure {
            Object v = values.get(i);
            if (v instanceof Long n) {
                return n;
            }
            if (v instanceof String s && s.trim().matches("[-+]?\\d{1,18}")) {
                return Long.parseLong(s.trim());
            }
            throw wrongType(i, "an integer");
        }

        List<IfAddr> addrs(int i) throws Failure {
            if (values.get(i) instanceof Addrs a) {
                return a.items();
            }
            throw wrongType(i, "a list of interfaces (e.g. from GetAllInterfaces)");
        }

        private Failure wrongType(int i, String wanted) {
            return new Failure(params.get(i) + " must be " + wanted + ", not " + describe(values.get(i)));
        }
    }

    static String describe(Object value) {
        if (value instanceof String s) {
            return "the string " + quote(s);
        }
        if (value instanceof Addrs a) {
            return "a list of " + a.items().size() + " interface addresses";
        }
        return "the number " + value;
    }

    // ---- sources

    private List<IfAddr> all() throws SockaddrException {
        if (all == null) {
            all = List.copyOf(source.addresses());
        }
        return all;
    }

    private Optional<String> defaultInterface() {
        if (defaultInterface == null) {
            defaultInterface = source.defaultInterface();
        }
        return defaultInterface;
    }

    private List<IfAddr> defaultInterfaces() throws SockaddrException {
        Optional<String> name = defaultInterface();
        return all().stream().filter(a -> name.isPresent() && a.name().equals(name.get())).toList();
    }

    private static final String BEST_FIRST = "default,type,size";

    /**
     * GetPrivateInterfaces / GetPublicInterfaces: forwardable addresses on up interfaces, inside (or outside) RFC
     * 6890, the default interface's first, then IPv4 before IPv6, then larger networks first.
     */
    private List<IfAddr> forwardableUp(boolean wantPrivate) throws SockaddrException, Failure {
        Comparator<IfAddr> order = Filters.order(BEST_FIRST, defaultInterface());
        return all().stream().filter(SpecialRanges::isForwardable).filter(a -> a.flags().contains(IfFlag.UP))
                .sorted(order).filter(a -> SpecialRanges.isPrivate(a) == wantPrivate).toList();
    }

    private static String first(List<IfAddr> addrs) {
        return addrs.isEmpty() ? "" : addrs.get(0).addressText();
    }

    /**
     * GetPrivateIPs: every forwardable RFC 6890 address, up or down; GetPublicIPs: every address outside RFC 6890.
     * Both IPv4 first, larger networks first, space-separated.
     */
    private String allIPs(boolean wantPrivate) throws SockaddrException, Failure {
        Comparator<IfAddr> order = Filters.order("type,size", Optional.empty());
        return all().stream().sorted(order)
                .filter(a -> wantPrivate ? SpecialRanges.isPrivate(a) && SpecialRanges.isForwardable(a)
                        : !SpecialRanges.isPrivate(a))
                .map(IfAddr::addressText).collect(Collectors.joining(" "));
    }

    /** The addresses on interfaces whose name matches the regexp, IPv4 first, larger networks first. */
    private List<IfAddr> named(String nameRegexp) throws SockaddrException, Failure {
        List<IfAddr> named = filter(all(), Filters.selector("name", nameRegexp)).items();
        if (named.isEmpty()) {
            throw new Failure("no interface named " + nameRegexp);
        }
        return sorted(named, Filters.order("type,size", Optional.empty()));
    }

    private String interfaceIP(String nameRegexp) throws SockaddrException, Failure {
        List<IfAddr> usable = named(nameRegexp).stream().filter(SpecialRanges::isForwardable).toList();
        if (usable.isEmpty()) {
            throw new Failure("interface " + nameRegexp + " has no forwardable address (only loopback or"
                    + " link-local ones); use GetInterfaceIPs or GetAllInterfaces to pick one of those");
        }
        return usable.get(0).addressText();
    }

    private String interfaceIPs(String nameRegexp) throws SockaddrException, Failure {
        return named(nameRegexp).stream().map(IfAddr::addressText).collect(Collectors.joining(" "));
    }

    // ---- list operations

    private static Addrs filter(List<IfAddr> in, Predicate<IfAddr> keep) {
        return new Addrs(in.stream().filter(keep).toList());
    }

    private static List<IfAddr> sorted(List<IfAddr> in, Comparator<IfAddr> order) {
        return in.stream().sorted(order).toList(); // stable: ties keep their order
    }

    /** Drops an address whose attribute equals the previous one's: sort first, as in go-sockaddr. */
    private static Addrs unique(String attribute, List<IfAddr> in) throws Failure {
        if (!attribute.equalsIgnoreCase("address") && !attribute.equalsIgnoreCase("name")) {
            throw new Failure("unique works on address or name, not " + quote(attribute));
        }
        List<IfAddr> out = new ArrayList<>();
        String last = null;
        for (IfAddr a : in) {
            String key = attribute.equalsIgnoreCase("name") ? a.name() : a.sockaddrString();
            if (!key.equals(last)) {
                out.add(a);
            }
            last = key;
        }
        return new Addrs(out);
    }

    private static Addrs limit(long count, List<IfAddr> in) throws Failure {
        if (count < 0) {
            throw new Failure("count must not be negative, not " + count);
        }
        return new Addrs(in.subList(0, (int) Math.min(count, in.size())));
    }

    /** Skips the first {@code offset} addresses, or keeps only the last {@code -offset}. */
    private static Addrs offset(long offset, List<IfAddr> in) throws Failure {
        if (Math.abs(offset) > in.size()) {
            throw new Failure("offset " + offset + " is beyond the " + in.size() + " interface addresses");
        }
        int n = (int) Math.abs(offset);
        return new Addrs(offset < 0 ? in.subList(in.size() - n, in.size()) : in.subList(n, in.size()));
    }

    private static String join(List<IfAddr> in, String attribute, String separator) throws Failure {
        List<String> parts = new ArrayList<>();
        for (IfAddr a : in) {
            parts.add(Attributes.get(a, attribute));
        }
        return String.join(separator, parts);
    }

    private static Addrs math(String operation, String value, List<IfAddr> in) throws Failure {
        List<IfAddr> out = new ArrayList<>();
        for (IfAddr a : in) {
            out.add(Attributes.math(a, operation, value));
        }
        return new Addrs(out);
    }
}
