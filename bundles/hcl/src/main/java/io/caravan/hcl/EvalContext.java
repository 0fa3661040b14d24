package io.caravan.hcl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Variables and functions available to expressions, and which unknown root variables to defer. Immutable:
 * each {@code with...} method returns a new context.
 *
 * <p>Deferring exists for Nomad, whose jobspecs carry runtime interpolations such as {@code "${attr.kernel.name}"}
 * or {@code "${NOMAD_PORT_http}"} that only the client can resolve. A reference to an undefined root variable
 * accepted by the deferral predicate evaluates to {@link Value.UnknownValue} instead of failing, and a template
 * containing it renders that interpolation (or directive) back as its exact source text.
 */
public final class EvalContext {

    private static final EvalContext EMPTY = new EvalContext(Map.of(), Map.of(), name -> false, null);

    private final Map<String, Value> variables;
    private final Map<String, HclFunction> functions;
    private final Predicate<String> deferred;
    private final Budget budget;

    private EvalContext(Map<String, Value> variables, Map<String, HclFunction> functions,
                        Predicate<String> deferred, Budget budget) {
        this.variables = variables;
        this.functions = functions;
        this.deferred = deferred;
        this.budget = budget;
    }

    /** No variables, no functions, nothing deferred. */
    public static EvalContext empty() {
        return EMPTY;
    }

    public EvalContext withVariable(String name, Value value) {
        Map<String, Value> vars = new LinkedHashMap<>(variables);
        vars.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
        return new EvalContext(Collections.unmodifiableMap(vars), functions, deferred, budget);
    }

    public EvalContext withVariables(Map<String, ? extends Value> more) {
        Map<String, Value> vars = new LinkedHashMap<>(variables);
        vars.putAll(more);
        return new EvalContext(Collections.unmodifiableMap(vars), functions, deferred, budget);
    }

    public EvalContext withFunction(String name, HclFunction function) {
        Map<String, HclFunction> fns = new LinkedHashMap<>(functions);
        fns.put(Objects.requireNonNull(name), Objects.requireNonNull(function));
        return new EvalContext(variables, Collections.unmodifiableMap(fns), deferred, budget);
    }

    public EvalContext withFunctions(Map<String, ? extends HclFunction> more) {
        Map<String, HclFunction> fns = new LinkedHashMap<>(functions);
        fns.putAll(more);
        return new EvalContext(variables, Collections.unmodifiableMap(fns), deferred, budget);
    }

    /** Defers undefined root variables whose name matches (e.g. {@code n -> n.equals("attr") || n.startsWith("NOMAD_")}). */
    public EvalContext deferring(Predicate<String> rootNames) {
        return new EvalContext(variables, functions, Objects.requireNonNull(rootNames), budget);
    }

    /** Defers every undefined root variable. */
    public EvalContext deferringUnknownVariables() {
        return deferring(name -> true);
    }

    /**
     * Charges every evaluation with this context (and with contexts derived from it) to {@code shared}, so the
     * limits of {@link Budget} hold for a whole document rather than for each expression.
     */
    public EvalContext withBudget(Budget shared) {
        return new EvalContext(variables, functions, deferred, Objects.requireNonNull(shared));
    }

    /** The shared budget, or null when each evaluation gets a fresh one. */
    public Budget budget() {
        return budget;
    }

    public Map<String, Value> variables() {
        return variables;
    }

    public Map<String, HclFunction> functions() {
        return functions;
    }

    /** Whether an undefined root variable of this name is deferred rather than an error. */
    public boolean isDeferred(String rootName) {
        return deferred.test(rootName);
    }
}
