package io.caravan.agent.internal.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.api.json.NomadNaming;

/**
 * A decoded configuration as Nomad shows it in {@code /v1/agent/self}: Go's field names ({@code node_gc_threshold}
 * → {@code NodeGCThreshold}, with Nomad's few renames such as {@code name} → {@code NodeName}), durations in
 * nanoseconds, the keys inside maps ({@code meta}, {@code options}) left as written, and secrets (keys the schema
 * marks {@code secret}: tokens, passwords, the gossip key) redacted.
 */
public final class NomadConfigView {
    /** Where Nomad's Go field is not the key in PascalCase. */
    private static final Map<String, String> RENAMED = Map.of(
            "name", "NodeName",
            "advertise", "AdvertiseAddrs",
            "leave_on_interrupt", "LeaveOnInt",
            "leave_on_terminate", "LeaveOnTerm",
            "tls", "TLSConfig",
            "consul", "Consuls",
            "vault", "Vaults",
            "plugin", "Plugins");

    /** Renames inside one block: Nomad's TLSConfig says EnableHTTP where the file says http. */
    private static final Map<String, Map<String, String>> RENAMED_IN = Map.of("tls", Map.of(
            "http", "EnableHTTP",
            "rpc", "EnableRPC",
            "ca_file", "CAFile",
            "rpc_upgrade_mode", "RPCUpgradeMode",
            "verify_https_client", "VerifyHTTPSClient",
            "tls_min_version", "TLSMinVersion",
            "tls_cipher_suites", "TLSCipherSuites",
            "tls_prefer_server_cipher_suites", "TLSPreferServerCipherSuites"));

    static final String REDACTED = "<redacted>";

    private NomadConfigView() {
    }

    public static Map<String, Object> render(Map<String, Object> config, Schema.Block schema) {
        return render(config, schema, Map.of());
    }

    private static Map<String, Object> render(Map<String, Object> config, Schema.Block schema,
                                              Map<String, String> renamed) {
        Map<String, Object> out = new LinkedHashMap<>();
        config.forEach((name, value) -> {
            Schema.Key key = schema.key(name);
            out.put(renamed.getOrDefault(name, goName(name)), key instanceof Schema.Attr attr && attr.has("secret")
                    ? REDACTED : key == null ? value : value(name, value, key));
        });
        return out;
    }

    private static Object value(String name, Object value, Schema.Key key) {
        if (key instanceof Schema.Block block) {
            return render(Decoder.asMap(value), block, RENAMED_IN.getOrDefault(name, Map.of()));
        }
        if (key instanceof Schema.Labelled labelled && labelled.body() != null) {
            Map<String, Object> out = new LinkedHashMap<>();
            Decoder.asMap(value).forEach((label, body) -> out.put(label, render(Decoder.asMap(body),
                    labelled.body())));
            return out;
        }
        return value instanceof Duration d ? d.toNanos() : value;
    }

    static String goName(String key) {
        String renamed = RENAMED.get(key);
        if (renamed != null) {
            return renamed;
        }
        StringBuilder camel = new StringBuilder();
        for (String word : key.split("_")) {
            if (!word.isEmpty()) {
                camel.append(camel.length() == 0 ? word : Character.toUpperCase(word.charAt(0)) + word.substring(1));
            }
        }
        return NomadNaming.INSTANCE.translate(camel.toString());
    }

    /** Lays {@code overlay} over {@code base}, nested maps merged key by key. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> overlay(Map<String, Object> base, Map<String, Object> overlay) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        overlay.forEach((k, v) -> out.merge(k, v, (a, b) -> a instanceof Map<?, ?> && b instanceof Map<?, ?>
                ? overlay((Map<String, Object>) a, (Map<String, Object>) b) : b));
        return out;
    }
}
