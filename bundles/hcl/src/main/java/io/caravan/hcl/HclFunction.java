package io.caravan.hcl;

import java.util.List;

/**
 * A function callable from expressions, supplied by the application through {@link EvalContext}.
 * Throwing any exception other than {@link HclException} (e.g. {@link IllegalArgumentException}) reports
 * {@code Error in function call} at the call's range with the exception's message. Functions are never called with
 * unknown arguments: the call's result is then unknown.
 */
@FunctionalInterface
public interface HclFunction {

    Value call(List<Value> args);
}
