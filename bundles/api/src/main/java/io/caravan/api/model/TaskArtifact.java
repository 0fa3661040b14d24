package io.caravan.api.model;

import java.util.Map;

public record TaskArtifact(
        String getterSource,
        Map<String, String> getterOptions,
        Map<String, String> getterHeaders,
        String getterMode,
        Boolean getterInsecure,
        String relativeDest,
        Boolean chown) {
    public static final String MODE_ANY = "any";
    public static final String MODE_FILE = "file";
    public static final String MODE_DIR = "dir";

    public TaskArtifact {
        getterOptions = Copy.map(getterOptions);
        getterHeaders = Copy.map(getterHeaders);
    }
}
