package io.caravan.template;

/** Go's {@code missingkey} option: what a map lookup of an absent key yields. */
public enum MissingKey {
    /** {@code <no value>} when printed (Go's {@code missingkey=default}). */
    DEFAULT,
    /** The zero value of the map's value type. */
    ZERO,
    /** Execution stops with an error (Nomad's {@code error_on_missing_key = true}). */
    ERROR
}
