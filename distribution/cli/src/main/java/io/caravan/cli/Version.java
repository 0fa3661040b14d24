package io.caravan.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version, written into {@code version.properties} by Maven resource filtering. */
public final class Version {
    private static final String VERSION = load();

    private Version() {
    }

    public static String get() {
        return VERSION;
    }

    /** The first line of {@code caravan version}, shaped like Nomad's {@code Nomad v1.7.2}. */
    public static String banner() {
        return "Caravan v" + VERSION;
    }

    private static String load() {
        Properties props = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                props.load(in);
            }
        } catch (IOException ignored) {
            // Fall through to "unknown": a missing version must not break the CLI.
        }
        String version = props.getProperty("version", "").trim();
        return version.isEmpty() || version.startsWith("${") ? "unknown" : version;
    }
}
