package io.caravan.driver.java.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The host's java: its binary with symbolic links resolved (as Nomad runs it), the directory holding it
 * ({@code <home>/bin/java}, mounted into the chroot), and the three lines of {@code java -version} that Nomad
 * reports as {@code driver.java.version}, {@code driver.java.runtime} and {@code driver.java.vm}.
 */
record JavaRuntime(Path binary, Path home, Version version) {
    private static final long VERSION_TIMEOUT_SECONDS = 10;
    private static final Pattern VERSION_NUMBER = Pattern.compile("[.\\d_]+");

    /** The three lines; empty strings when {@code java -version} printed something else, as in Nomad. */
    record Version(String version, String runtime, String vm) {
        static final Version UNKNOWN = new Version("", "", "");
    }

    Map<String, String> attributes() {
        return Map.of("driver.java", "1", "driver.java.version", version.version(),
                "driver.java.runtime", version.runtime(), "driver.java.vm", version.vm());
    }

    /** The agent's java: {@code java} on its PATH, else {@code $JAVA_HOME/bin/java}, probed with {@code -version}. */
    static Optional<JavaRuntime> detect() {
        return locate(System.getenv("PATH"), System.getenv("JAVA_HOME")).flatMap(JavaRuntime::probe);
    }

    /** The first executable {@code java} on {@code path}, else in {@code javaHome}/bin, with links resolved. */
    static Optional<Path> locate(String path, String javaHome) {
        List<Path> candidates = new ArrayList<>();
        if (path != null) {
            Arrays.stream(path.split(File.pathSeparator)).filter(dir -> !dir.isBlank())
                    .forEach(dir -> candidates.add(Path.of(dir, "java")));
        }
        if (javaHome != null && !javaHome.isBlank()) {
            candidates.add(Path.of(javaHome, "bin", "java"));
        }
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                try {
                    return Optional.of(candidate.toRealPath());
                } catch (IOException e) {
                    // a link that went away meanwhile: try the next
                }
            }
        }
        return Optional.empty();
    }

    /** Runs {@code binary -version}; empty if it cannot run, fails or hangs. */
    static Optional<JavaRuntime> probe(Path binary) {
        Path out = null;
        try {
            out = Files.createTempFile("caravan-java-version", ".txt");
            Process p = new ProcessBuilder(binary.toString(), "-version").redirectErrorStream(true)
                    .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            if (!p.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            if (p.exitValue() != 0) {
                return Optional.empty();
            }
            Path bin = binary.getParent();
            Path home = bin != null && bin.getParent() != null ? bin.getParent() : bin;
            return Optional.of(new JavaRuntime(binary, home,
                    parse(Files.readString(out, StandardCharsets.UTF_8))));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    // a temp file
                }
            }
        }
    }

    /**
     * Nomad's reading of {@code java -version}: a first line {@code Picked up _JAVA_OPTIONS…} is skipped; fewer than
     * three lines left gives {@link Version#UNKNOWN}; the version is the first run of digits, dots and underscores of
     * the first line (the whole line if it has none); runtime and vm are the next two lines, trimmed.
     */
    static Version parse(String output) {
        List<String> lines = new ArrayList<>(List.of(output.strip().split("\n", -1)));
        if (!lines.isEmpty() && lines.get(0).contains("Picked up _JAVA_OPTIONS")) {
            lines.remove(0);
        }
        if (lines.size() < 3) {
            return Version.UNKNOWN;
        }
        String first = lines.get(0).strip();
        Matcher number = VERSION_NUMBER.matcher(first);
        return new Version(number.find() ? number.group() : first, lines.get(1).strip(), lines.get(2).strip());
    }
}
