package io.caravan.template;

import io.caravan.template.internal.Builtins;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An immutable set of named functions a template may call. Names are known at parse time (an unknown name is a
 * parse error, as in Go), so add every function before parsing.
 */
public final class Functions {
    private static final Pattern NAME = Pattern.compile("[\\p{L}_][\\p{L}\\p{Nd}_]*");
    private static final Functions NONE = new Functions(Map.of());
    private final Map<String, TemplateFunction> byName;

    private Functions(Map<String, TemplateFunction> byName) {
        this.byName = Collections.unmodifiableMap(byName);
    }

    /** No functions at all (not even Go's builtins). */
    public static Functions none() { return NONE; }

    /** Go's builtins: and or not len index slice print printf println html js urlquery eq ne lt le gt ge call. */
    public static Functions builtins() { return new Functions(Builtins.all()); }

    /** A copy with {@code name} bound to {@code function} (replacing a function of that name). */
    public Functions with(String name, TemplateFunction function) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("function name " + name + " is not a valid identifier");
        }
        Map<String, TemplateFunction> copy = new LinkedHashMap<>(byName);
        copy.put(name, java.util.Objects.requireNonNull(function, "function"));
        return new Functions(copy);
    }

    /** A copy with every function of {@code other} added (replacing those of the same name). */
    public Functions with(Functions other) {
        Functions out = this;
        for (Map.Entry<String, TemplateFunction> e : other.byName.entrySet()) out = out.with(e.getKey(), e.getValue());
        return out;
    }

    /**
     * A copy in which each of {@code names} that has no function yet parses but fails when called: for checking a
     * template's syntax where its data sources do not exist (the server checks the client's {@code nomadVar},
     * {@code nomadService}, ... templates at job registration).
     */
    public Functions declaring(String... names) {
        Functions out = this;
        for (String n : names) {
            if (!byName.containsKey(n)) {
                out = out.with(n, args -> {
                    throw new IllegalStateException(n + " is not available where this template was checked");
                });
            }
        }
        return out;
    }

    public Optional<TemplateFunction> get(String name) { return Optional.ofNullable(byName.get(name)); }

    public Set<String> names() { return byName.keySet(); }
}
