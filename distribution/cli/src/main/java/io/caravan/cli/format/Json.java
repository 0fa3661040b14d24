package io.caravan.cli.format;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.caravan.api.json.NomadJson;

/**
 * {@code -json} output as Nomad's CLI prints it (Go's {@code json.MarshalIndent(v, "", "    ")}): four-space
 * indent, {@code "key": value}, and {@code []}/{@code {}} for empty containers. Jackson's default printer writes
 * {@code "key" : value} and {@code [ ]}, which scripts diffing against Nomad would trip over.
 */
public final class Json {
    private static final DefaultIndenter INDENT = DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withIndent("    ");
    private static final ObjectWriter GO_INDENT = NomadJson.mapper().writer(
            new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEmptySeparator("")
                    .withArrayEmptySeparator(""))
                    .withObjectIndenter(INDENT)
                    .withArrayIndenter(INDENT));

    private Json() {
    }

    public static String indent(JsonNode node) {
        try {
            return GO_INDENT.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            // A tree we parsed ourselves always serializes.
            throw new IllegalStateException(e);
        }
    }

    /** A cell's text: strings unquoted, missing or null as empty, anything else as JSON. */
    public static String text(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return "";
        }
        return node.isValueNode() ? node.asText() : node.toString();
    }

    /** Whether a field is set: neither missing nor JSON null (Nomad's nil pointers). */
    public static boolean present(JsonNode node) {
        return node != null && !node.isNull() && !node.isMissingNode();
    }

    /** An object's keys in sorted order (Go prints maps sorted); empty for anything that is not an object. */
    public static List<String> sortedFieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        if (node != null && node.isObject()) {
            node.fieldNames().forEachRemaining(names::add);
            names.sort(null);
        }
        return names;
    }

    /** A list's items joined, e.g. Datacenters {@code dc1,dc2}; empty for a missing list. */
    public static String join(JsonNode list, String separator) {
        List<String> items = new java.util.ArrayList<>();
        if (list != null) {
            list.forEach(item -> items.add(text(item)));
        }
        return String.join(separator, items);
    }

    /** An ID as one URL path segment (Nomad job IDs may hold spaces or slashes). */
    public static String pathSegment(String id) {
        return java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }
}
