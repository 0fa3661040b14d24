package io.caravan.cli.command;

import picocli.CommandLine.ITypeConverter;

/**
 * Go's {@code strconv.ParseBool}: 1, t, T, TRUE, true, True and their false counterparts. For boolean flags with
 * {@code arity = "0..1", fallbackValue = "true"}, so {@code -flag}, {@code -flag=true} and {@code -flag=false} work as
 * with Go's flag package.
 */
final class GoBool implements ITypeConverter<Boolean> {
    @Override
    public Boolean convert(String value) {
        Boolean b = parse(value);
        if (b == null) {
            throw new IllegalArgumentException("parse error: invalid boolean \"" + value + "\"");
        }
        return b;
    }

    /** The value, or {@code null} when it is not one of Go's spellings. */
    static Boolean parse(String value) {
        return switch (value) {
            case "1", "t", "T", "TRUE", "true", "True" -> true;
            case "0", "f", "F", "FALSE", "false", "False" -> false;
            default -> null;
        };
    }
}
