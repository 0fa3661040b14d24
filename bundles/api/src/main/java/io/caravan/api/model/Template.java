package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Duration;
import java.util.List;

/** A {@code template} block. ({@code Wait} is {@code waitConfig} in Java: a record cannot have a {@code wait()}.) */
public record Template(
        String sourcePath,
        String destPath,
        String embeddedTmpl,
        String changeMode,
        ChangeScript changeScript,
        String changeSignal,
        @NanoDuration Duration splay,
        String perms,
        Integer uid,
        Integer gid,
        String leftDelim,
        String rightDelim,
        Boolean envvars,
        @NanoDuration Duration vaultGrace,
        @JsonProperty("Wait") WaitConfig waitConfig,
        Boolean errMissingKey,
        Boolean once) {
    public static final String CHANGE_RESTART = "restart";
    public static final String CHANGE_NOOP = "noop";
    public static final String CHANGE_SIGNAL = "signal";
    public static final String CHANGE_SCRIPT = "script";

    public record ChangeScript(String command, List<String> args, @NanoDuration Duration timeout, Boolean failOnError) {
        public ChangeScript {
            args = Copy.list(args);
        }
    }

    public record WaitConfig(@NanoDuration Duration min, @NanoDuration Duration max) {
    }
}
