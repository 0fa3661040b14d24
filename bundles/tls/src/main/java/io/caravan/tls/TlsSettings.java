package io.caravan.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javax.net.ssl.SSLContext;

/**
 * The agent's {@code tls {}} block with Nomad's meaning, as every component that listens or dials receives it: the
 * same {@code tls.*} keys in its Config Admin properties ({@link #properties}, {@link #of}), so a reload reaches each
 * of them as an ordinary configuration update.
 *
 * @param http            HTTPS on the HTTP API
 * @param rpc             mutual TLS on RPC and Raft
 * @param caFile          the CA bundle peers' certificates must chain to (null: none)
 * @param certFile        this agent's certificate (chain), PEM
 * @param keyFile         its private key, PEM
 * @param verifyServerHostname a server must present {@code server.<region>.nomad}, so a client's certificate cannot
 *                        pose as a server's
 * @param verifyHttpsClient the HTTP API asks for a client certificate signed by the CA
 * @param rpcUpgradeMode  the RPC port also accepts plain-text connections (while a cluster moves to TLS)
 * @param minVersion      Nomad's {@code tls_min_version}: tls10, tls11, tls12 (default) or tls13
 * @param cipherSuites    Nomad's {@code tls_cipher_suites} (TLS 1.2 and below), empty: the JDK's defaults
 * @param region          the agent's region, which the role names carry
 */
public record TlsSettings(boolean http, boolean rpc, Path caFile, Path certFile, Path keyFile,
                          boolean verifyServerHostname, boolean verifyHttpsClient, boolean rpcUpgradeMode,
                          String minVersion, List<String> cipherSuites, String region) {
    public static final String PREFIX = "tls.";
    public static final String FINGERPRINT = "tls.fingerprint";
    public static final TlsSettings DISABLED = new TlsSettings(false, false, null, null, null, false, false, false,
            "tls12", List.of(), "global");
    private static final List<String> VERSIONS = List.of("tls10", "tls11", "tls12", "tls13");
    /** TLS 1.3's suites are not configurable in Nomad (Go); they stay on whatever tls_cipher_suites says. */
    private static final List<String> TLS13_SUITES = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");

    public TlsSettings {
        minVersion = minVersion == null || minVersion.isBlank() ? "tls12" : minVersion.toLowerCase(Locale.ROOT);
        cipherSuites = List.copyOf(cipherSuites);
        region = region == null || region.isBlank() ? "global" : region;
    }

    /** The same settings with other files (the only keys a reload changes in place). */
    public TlsSettings withFiles(Path ca, Path cert, Path key) {
        return new TlsSettings(http, rpc, ca, cert, key, verifyServerHostname, verifyHttpsClient, rpcUpgradeMode,
                minVersion, cipherSuites, region);
    }

    /** Whether anything is served or dialled over TLS. */
    public boolean enabled() {
        return http || rpc;
    }

    /** The name a server's certificate carries, and the one {@code verify_server_hostname} demands. */
    public String serverName() {
        return roleName("server", region);
    }

    /** {@code server.global.nomad}, {@code client.global.nomad}: the names Nomad's certificates carry per role. */
    public static String roleName(String role, String region) {
        return role + "." + region + ".nomad";
    }

    /** The JDK protocol names from {@code tls_min_version} up. */
    public String[] protocols() {
        int from = VERSIONS.indexOf(minVersion);
        List<String> out = new ArrayList<>();
        for (int i = VERSIONS.size() - 1; i >= Math.max(from, 0); i--) {
            out.add(i == 0 ? "TLSv1" : "TLSv1." + i);
        }
        return out.toArray(String[]::new);
    }

    /**
     * The JDK names of the configured suites plus TLS 1.3's, or null for the JDK's defaults. Go writes the
     * ChaCha20 suites without their {@code _SHA256}, which the JDK's names carry.
     */
    public String[] jdkCipherSuites() {
        if (cipherSuites.isEmpty()) {
            return null;
        }
        List<String> out = new ArrayList<>(TLS13_SUITES);
        for (String s : cipherSuites) {
            out.add(s.endsWith("_CHACHA20_POLY1305") ? s + "_SHA256" : s);
        }
        return out.toArray(String[]::new);
    }

    /** The settings' own faults (a version or suite the JDK does not know), field by field. */
    public void validate() throws TlsException {
        if (!VERSIONS.contains(minVersion)) {
            throw new TlsException(null, "tls.tls_min_version: \"" + minVersion + "\" is not one of " + VERSIONS);
        }
        if (!cipherSuites.isEmpty()) {
            Set<String> known;
            try {
                known = Set.of(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JDK has no default TLS context", e);
            }
            for (String s : jdkCipherSuites()) {
                if (!known.contains(s)) {
                    throw new TlsException(null, "tls.tls_cipher_suites: unsupported cipher suite \""
                            + s.replaceFirst("_CHACHA20_POLY1305_SHA256$", "_CHACHA20_POLY1305") + "\"");
                }
            }
        }
        if (enabled() && (certFile == null || keyFile == null)) {
            throw new TlsException(null, "tls: " + (certFile == null ? "cert_file" : "key_file")
                    + " is required when " + (http ? "http" : "rpc") + " = true");
        }
        if ((rpc || (http && verifyHttpsClient)) && caFile == null) {
            throw new TlsException(null, "tls: ca_file is required when "
                    + (rpc ? "rpc = true" : "verify_https_client = true"));
        }
    }

    /** The Config Admin properties for these settings (with the files' fingerprint, so a new file is a change). */
    public Map<String, Object> properties(String fingerprint) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("tls.http", http);
        p.put("tls.rpc", rpc);
        p.put("tls.ca.file", caFile == null ? "" : caFile.toString());
        p.put("tls.cert.file", certFile == null ? "" : certFile.toString());
        p.put("tls.key.file", keyFile == null ? "" : keyFile.toString());
        p.put("tls.verify.server.hostname", verifyServerHostname);
        p.put("tls.verify.https.client", verifyHttpsClient);
        p.put("tls.rpc.upgrade.mode", rpcUpgradeMode);
        p.put("tls.min.version", minVersion);
        p.put("tls.cipher.suites", cipherSuites.toArray(String[]::new));
        p.put("tls.region", region);
        p.put(FINGERPRINT, fingerprint == null ? "" : fingerprint);
        return p;
    }

    /** Reads {@link #properties} back; absent keys are the defaults (TLS off). */
    public static TlsSettings of(Map<String, ?> props) {
        return new TlsSettings(bool(props.get("tls.http")), bool(props.get("tls.rpc")),
                path(props.get("tls.ca.file")), path(props.get("tls.cert.file")), path(props.get("tls.key.file")),
                bool(props.get("tls.verify.server.hostname")), bool(props.get("tls.verify.https.client")),
                bool(props.get("tls.rpc.upgrade.mode")), string(props.get("tls.min.version")),
                strings(props.get("tls.cipher.suites")), string(props.get("tls.region")));
    }

    private static boolean bool(Object v) {
        return v instanceof Boolean b ? b : v != null && Boolean.parseBoolean(v.toString());
    }

    private static String string(Object v) {
        return v == null ? null : v.toString();
    }

    private static Path path(Object v) {
        return v == null || v.toString().isBlank() ? null : Path.of(v.toString());
    }

    private static List<String> strings(Object v) {
        if (v instanceof String[] a) {
            return Arrays.asList(a);
        }
        if (v instanceof java.util.Collection<?> c) {
            return c.stream().map(Object::toString).toList();
        }
        return v instanceof String s ? suites(s) : List.of();
    }

    /** Nomad's {@code tls_cipher_suites}: one comma-separated string. */
    public static List<String> suites(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
}
