package io.caravan.api.json;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;

import java.util.Set;

/**
 * Maps Java's camelCase to the names Nomad's Go structs put on the wire: each word capitalised, and the
 * initialisms Go spells in capitals ({@code id → ID}, {@code httpAddr → HTTPAddr}, {@code memoryMb → MemoryMB})
 * written in capitals. Names that follow no rule carry {@code @JsonProperty}.
 */
public final class NomadNaming extends PropertyNamingStrategies.NamingBase {
    private static final long serialVersionUID = 1L;

    /** Words that Nomad writes in capitals wherever they appear in a field name. */
    static final Set<String> INITIALISMS = Set.of(
            "acl", "api", "cni", "cpu", "csi", "dns", "gc", "http", "https", "id", "ids", "io", "ip", "jwt", "kms", "mb", "mhz",
            "oidc", "rpc", "tg", "tls", "ttl", "ui", "uri", "url", "uuid", "vsn");

    public static final NomadNaming INSTANCE = new NomadNaming();

    @Override
    public String translate(String name) {
        if (name == null || name.isEmpty()) {
            return name;
        }
        StringBuilder out = new StringBuilder(name.length() + 4);
        int start = 0;
        for (int i = 1; i <= name.length(); i++) {
            if (i == name.length() || Character.isUpperCase(name.charAt(i))) {
                appendWord(out, name.substring(start, i));
                start = i;
            }
        }
        return out.toString();
    }

    private static void appendWord(StringBuilder out, String word) {
        String lower = word.toLowerCase(java.util.Locale.ROOT);
        if (INITIALISMS.contains(lower)) {
            // Go writes the plural of an initialism with a small s: "IDs", not "IDS".
            out.append(lower.equals("ids") ? "IDs" : lower.toUpperCase(java.util.Locale.ROOT));
        } else {
            out.append(Character.toUpperCase(word.charAt(0))).append(word, 1, word.length());
        }
    }
}
