package io.caravan.template;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A function callable from a template, by name ({@code {{name a b}}}, {@code {{b | name a}}}) or, as a data value,
 * through {@code call}. It checks its own arguments with {@link Args}; any exception it throws stops execution and is
 * reported as {@code error calling NAME: MESSAGE} at the call's position.
 */
@ConsumerType
@FunctionalInterface
public interface TemplateFunction {
    Object call(Args args) throws Exception;
}
