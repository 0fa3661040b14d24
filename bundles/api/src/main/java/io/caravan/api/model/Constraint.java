package io.caravan.api.model;

/** A placement constraint: {@code attribute → LTarget}, {@code operator → Operand}, {@code value → RTarget}. */
public record Constraint(String lTarget, String rTarget, String operand) {
    public static final String OP_EQUAL = "=";
    public static final String OP_NOT_EQUAL = "!=";
    public static final String OP_REGEX = "regexp";
    public static final String OP_VERSION = "version";
    public static final String OP_SEMVER = "semver";
    public static final String OP_SET_CONTAINS = "set_contains";
    public static final String OP_SET_CONTAINS_ALL = "set_contains_all";
    public static final String OP_SET_CONTAINS_ANY = "set_contains_any";
    public static final String OP_IS_SET = "is_set";
    public static final String OP_IS_NOT_SET = "is_not_set";
    public static final String OP_DISTINCT_HOSTS = "distinct_hosts";
    public static final String OP_DISTINCT_PROPERTY = "distinct_property";
}
