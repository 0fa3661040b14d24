package io.caravan.template;

import java.util.Objects;

/**
 * How a template is parsed and executed. The limits bound hostile or mistaken templates: Go has no step or output
 * budget, so a Go template that loops for long or writes much may fail here.
 *
 * @param leftDelim      the action opener ({@code {{} by default; Nomad's {@code left_delimiter})
 * @param rightDelim     the action closer ({@code }}} by default)
 * @param missingKey     what an absent map key yields
 * @param functions      the functions templates may call
 * @param maxSteps       evaluation steps (nodes, range iterations) one execution may take
 * @param maxOutput      characters one execution may write
 * @param maxDepth       nesting of {@code template} calls during execution
 * @param maxNesting     nesting of parentheses, and separately of control structures, in the source
 */
public record TemplateOptions(String leftDelim, String rightDelim, MissingKey missingKey, Functions functions,
        long maxSteps, long maxOutput, int maxDepth, int maxNesting) {

    public TemplateOptions {
        leftDelim = leftDelim == null || leftDelim.isEmpty() ? "{{" : leftDelim;
        rightDelim = rightDelim == null || rightDelim.isEmpty() ? "}}" : rightDelim;
        Objects.requireNonNull(missingKey, "missingKey");
        Objects.requireNonNull(functions, "functions");
        if (maxSteps <= 0 || maxOutput <= 0 || maxDepth <= 0 || maxNesting <= 0) {
            throw new IllegalArgumentException("template limits must be positive");
        }
    }

    /**
     * Go's defaults with its builtins, 10 million steps, 16 Mi characters, 100 nested template calls (each costs a few
     * KiB of Java stack; a thread with the default 1 MiB stack overflows near 1000) and source nesting of 100.
     */
    public static TemplateOptions defaults() {
        return new TemplateOptions("{{", "}}", MissingKey.DEFAULT, Functions.builtins(), 10_000_000L, 16L << 20,
                100, 100);
    }

    public TemplateOptions withDelims(String left, String right) {
        return new TemplateOptions(left, right, missingKey, functions, maxSteps, maxOutput, maxDepth, maxNesting);
    }

    public TemplateOptions withMissingKey(MissingKey mk) {
        return new TemplateOptions(leftDelim, rightDelim, mk, functions, maxSteps, maxOutput, maxDepth, maxNesting);
    }

    public TemplateOptions withFunctions(Functions fns) {
        return new TemplateOptions(leftDelim, rightDelim, missingKey, fns, maxSteps, maxOutput, maxDepth, maxNesting);
    }

    public TemplateOptions withLimits(long steps, long output, int depth, int nesting) {
        return new TemplateOptions(leftDelim, rightDelim, missingKey, functions, steps, output, depth, nesting);
    }
}
