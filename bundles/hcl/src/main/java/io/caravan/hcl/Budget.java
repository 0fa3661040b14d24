package io.caravan.hcl;

/**
 * What evaluation may produce and spend, so that a short hostile expression ({@code format("%10000000d", 1)}, a
 * template {@code for} over a large range, strings doubled in a chain of locals) fails with a diagnostic instead of
 * exhausting memory or keeping a thread busy.
 *
 * <p>Two kinds of bound:
 * <ul>
 *   <li>per value: no string longer than {@link #MAX_STRING_LENGTH} characters, no collection with more than
 *       {@link #MAX_ELEMENTS} elements, no value nested deeper than {@link Value#MAX_DEPTH}. Functions check these
 *       before building a result ({@link #checkLength}, {@link #checkElements});</li>
 *   <li>in total, for everything one budget is charged with: {@link #MAX_STRING_LENGTH} characters of text,
 *       {@link #MAX_ELEMENTS} collection elements and {@link #MAX_STEPS} evaluation steps. The evaluator charges
 *       what templates render, what collection constructors, {@code for} expressions, splats and function calls
 *       produce, and one step per expression evaluated. A budget shared through {@link EvalContext#withBudget}
 *       bounds a whole document (a jobspec's locals and attributes); otherwise each evaluation has its own.</li>
 * </ul>
 * Once exceeded, a budget stays exceeded: every later charge fails too. Not thread-safe (one document is evaluated
 * by one thread).
 */
public final class Budget {

    /** Characters: of one string, and of all text produced under one budget (16 Mi). */
    public static final int MAX_STRING_LENGTH = 16 * 1024 * 1024;
    /** Elements: of one list or object, and of all collections produced under one budget. */
    public static final int MAX_ELEMENTS = 1_000_000;
    /**
     * Characters of a number, as a literal or as a string converted to a number: converting decimal text to binary
     * takes time quadratic in its length, and HCL's 512-bit numbers need fewer than 160 significant digits anyway.
     */
    public static final int MAX_NUMBER_LENGTH = 1000;
    /** Expressions evaluated (counting each iteration of a loop's body again) under one budget. */
    public static final long MAX_STEPS = 2_000_000;

    private long chars;
    private long elements;
    private long steps;

    /** A fresh budget with nothing spent. */
    public Budget() {
    }

    /** One expression evaluated at {@code at}. */
    public void step(Range at) {
        if (++steps > MAX_STEPS) {
            throw new HclException(Diagnostic.error("Evaluation too complex", "Evaluating this would take more "
                    + "than the limit of " + MAX_STEPS + " steps (expressions evaluated, each loop iteration counted "
                    + "again).", at));
        }
    }

    /** {@code n} characters of text produced at {@code at}. */
    public void chars(long n, Range at) {
        chars += n;
        if (chars > MAX_STRING_LENGTH) {
            throw new HclException(Diagnostic.error("Result too large", "Evaluating this would produce more than "
                    + "the limit of 16 MiB of text.", at));
        }
    }

    /** {@code n} collection elements produced at {@code at}. */
    public void elements(long n, Range at) {
        elements += n;
        if (elements > MAX_ELEMENTS) {
            throw new HclException(Diagnostic.error("Result too large", "Evaluating this would produce more than "
                    + "the limit of " + MAX_ELEMENTS + " list or object elements.", at));
        }
    }

    /**
     * Charges the whole of {@code v} (every string, every element, shared parts once per occurrence), e.g. when it
     * is copied into a document's output, where a value referenced twice is written out twice.
     */
    public void charge(Value v, Range at) {
        if (v instanceof Value.StringValue s) {
            chars(s.value().length(), at);
        } else if (v instanceof Value.ListValue l) {
            elements(l.elements().size(), at);
            l.elements().forEach(e -> charge(e, at));
        } else if (v instanceof Value.ObjectValue o) {
            elements(o.attributes().size(), at);
            o.attributes().forEach((k, e) -> {
                chars(k.length(), at);
                charge(e, at);
            });
        }
    }

    /**
     * For functions: fails (with {@link IllegalArgumentException}, reported at the call) when a string result would
     * be longer than {@link #MAX_STRING_LENGTH}. Call it before building the string.
     */
    public static void checkLength(long length) {
        if (length > MAX_STRING_LENGTH) {
            throw new IllegalArgumentException("the result would be longer than the limit of 16 MiB");
        }
    }

    /** For functions: fails when a collection result would have more than {@link #MAX_ELEMENTS} elements. */
    public static void checkElements(long count) {
        if (count > MAX_ELEMENTS) {
            throw new IllegalArgumentException("the result would have more than the limit of " + MAX_ELEMENTS
                    + " elements");
        }
    }
}
