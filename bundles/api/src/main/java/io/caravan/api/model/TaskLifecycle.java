package io.caravan.api.model;

public record TaskLifecycle(String hook, boolean sidecar) {
    public static final String HOOK_PRESTART = "prestart";
    public static final String HOOK_POSTSTART = "poststart";
    public static final String HOOK_POSTSTOP = "poststop";
}
