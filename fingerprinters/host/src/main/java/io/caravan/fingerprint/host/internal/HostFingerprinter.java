package io.caravan.fingerprint.host.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code host} fingerprint ({@code os.name}, {@code os.version}, {@code kernel.name},
 * {@code kernel.version}, {@code kernel.arch}, {@code unique.hostname}, {@code unique.host_id}) and its
 * {@code signal} fingerprint ({@code os.signals}). Values follow gopsutil, which Nomad uses: on Debian the
 * version is {@code /etc/debian_version} (e.g. {@code 12.11}), not os-release's {@code VERSION_ID}.
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("host")
public final class HostFingerprinter implements Fingerprinter {

    /** The signals Nomad lists on Unix (consul-template's table), sorted; Nomad's own order is random. */
    static final String UNIX_SIGNALS = String.join(",", List.of("SIGABRT", "SIGALRM", "SIGBUS", "SIGCONT",
            "SIGFPE", "SIGHUP", "SIGILL", "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGNULL", "SIGPIPE", "SIGPROF",
            "SIGQUIT", "SIGSEGV", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
            "SIGUSR1", "SIGUSR2", "SIGWINCH", "SIGXCPU", "SIGXFSZ"));

    private static final Pattern RELEASE = Pattern.compile("release (\\w[\\d.]*)");

    private final Path root;
    private final String javaOsArch;

    public HostFingerprinter() {
        this(Path.of("/"), System.getProperty("os.arch"));
    }

    /**
     * @param root where {@code etc/}, {@code proc/} and {@code sys/} are looked up (a fixture in tests)
     * @param javaOsArch the JVM's {@code os.arch}, used when the kernel does not tell its machine name
     */
    HostFingerprinter(Path root, String javaOsArch) {
        this.root = root;
        this.javaOsArch = javaOsArch;
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        Map<String, String> attributes = new HashMap<>();
        Platform platform = platform();
        attributes.put("os.name", platform.name());
        attributes.put("os.version", platform.version());
        attributes.put("kernel.name", "linux");
        firstLine("proc/sys/kernel/osrelease").ifPresent(v -> attributes.put("kernel.version", v));
        attributes.put("kernel.arch", firstLine("proc/sys/kernel/arch").orElseGet(() -> unameMachine(javaOsArch)));
        attributes.put("unique.hostname", hostname());
        hostId().ifPresent(id -> attributes.put("unique.host_id", id));
        attributes.put("os.signals", UNIX_SIGNALS);
        return FingerprintResult.attributes(attributes);
    }

    record Platform(String name, String version) {
    }

    /** gopsutil's order of release files, reduced to the distributions seen in practice. */
    Platform platform() throws IOException {
        if (hasContent("etc/oracle-release")) {
            return new Platform("oracle", redhatishVersion(read("etc/oracle-release")));
        }
        if (hasContent("etc/debian_version")) {
            Map<String, String> lsb = keyValues("etc/lsb-release");
            String id = lsb.getOrDefault("DISTRIB_ID", "");
            String release = lsb.getOrDefault("DISTRIB_RELEASE", "");
            switch (id) {
                case "Ubuntu": return new Platform("ubuntu", release);
                case "LinuxMint": return new Platform("linuxmint", release);
                default:
                    String name = Files.exists(root.resolve("usr/bin/raspi-config")) ? "raspbian" : "debian";
                    return new Platform(name, firstLine("etc/debian_version").orElse(""));
            }
        }
        for (String file : List.of("etc/redhat-release", "etc/system-release")) {
            if (hasContent(file)) {
                String text = read(file);
                return new Platform(redhatishName(text), redhatishVersion(text));
            }
        }
        if (hasContent("etc/alpine-release")) {
            return new Platform("alpine", firstLine("etc/alpine-release").orElse(""));
        }
        if (hasContent("etc/arch-release")) {
            return new Platform("arch", keyValues("etc/lsb-release").getOrDefault("DISTRIB_RELEASE", ""));
        }
        Map<String, String> osRelease = keyValues("etc/os-release");
        String id = osRelease.getOrDefault("ID", "");
        return new Platform(id.equals("amzn") ? "amazon" : id, osRelease.getOrDefault("VERSION_ID", ""));
    }

    /** "Red Hat Enterprise Linux release 9.3 (Plow)" → redhat; "Rocky Linux release 9.3" → rocky. */
    static String redhatishName(String text) {
        String lower = text.toLowerCase(Locale.ROOT).replace("\n", "");
        return lower.contains("red hat") ? "redhat" : lower.split(" ")[0];
    }

    static String redhatishVersion(String text) {
        String lower = text.toLowerCase(Locale.ROOT).replace("\n", "");
        if (lower.contains("rawhide")) {
            return "rawhide";
        }
        Matcher matcher = RELEASE.matcher(lower);
        return matcher.find() ? matcher.group(1) : "";
    }

    /** Go's os.Hostname reads this file first on Linux. */
    private String hostname() throws IOException {
        Optional<String> kernel = firstLine("proc/sys/kernel/hostname");
        return kernel.isPresent() ? kernel.get() : InetAddress.getLocalHost().getHostName();
    }

    /** gopsutil: the DMI product UUID (root only), else machine-id as a UUID, else this boot's id. */
    private Optional<String> hostId() throws IOException {
        Optional<String> productUuid = readable("sys/class/dmi/id/product_uuid");
        if (productUuid.isPresent()) {
            return productUuid.map(s -> s.toLowerCase(Locale.ROOT));
        }
        Optional<String> machineId = readable("etc/machine-id").filter(s -> s.length() == 32);
        if (machineId.isPresent()) {
            String m = machineId.get();
            return Optional.of(m.substring(0, 8) + "-" + m.substring(8, 12) + "-" + m.substring(12, 16) + "-"
                    + m.substring(16, 20) + "-" + m.substring(20));
        }
        return readable("proc/sys/kernel/random/boot_id").map(s -> s.toLowerCase(Locale.ROOT));
    }

    /** uname's machine for the JVM's arch names (amd64 is x86_64 to the kernel). */
    static String unameMachine(String javaOsArch) {
        switch (javaOsArch) {
            case "amd64": return "x86_64";
            case "x86": return "i686";
            case "arm": return "armv7l";
            default: return javaOsArch;
        }
    }

    private boolean hasContent(String file) throws IOException {
        Path path = root.resolve(file);
        return Files.isRegularFile(path) && Files.size(path) > 0;
    }

    private String read(String file) throws IOException {
        return Files.readString(root.resolve(file));
    }

    private Optional<String> firstLine(String file) throws IOException {
        Path path = root.resolve(file);
        if (!Files.isRegularFile(path)) {
            return Optional.empty();
        }
        return Files.readAllLines(path).stream().findFirst().map(String::trim).filter(s -> !s.isEmpty());
    }

    /** Like {@link #firstLine} but an unreadable file (product_uuid needs root) counts as absent. */
    private Optional<String> readable(String file) {
        try {
            return firstLine(file);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** KEY=value and KEY="value" lines (os-release, lsb-release). */
    private Map<String, String> keyValues(String file) throws IOException {
        Map<String, String> values = new HashMap<>();
        Path path = root.resolve(file);
        if (!Files.isRegularFile(path)) {
            return values;
        }
        for (String line : Files.readAllLines(path)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                String value = line.substring(eq + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                values.put(line.substring(0, eq).trim(), value);
            }
        }
        return values;
    }
}
