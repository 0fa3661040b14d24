package io.caravan.cli.command;

import java.io.IOException;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.Body;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Value;

/**
 * A namespace specification file, as {@code nomad namespace apply} reads one: HCL ({@code name}, {@code description},
 * {@code quota}, {@code meta { }}, {@code capabilities { }}, {@code node_pool_config { }}, {@code vault { }},
 * {@code consul { }}) or, with {@code -json}, the API's JSON. Blocks Caravan does not act on are sent as written, for
 * the server to refuse by name; an unknown key is an error here.
 */
final class NamespaceSpec {
    private static final Set<String> ATTRIBUTES = Set.of("name", "description", "quota");
    private static final Set<String> BLOCKS = Set.of("meta", "capabilities", "node_pool_config", "vault", "consul");

    private NamespaceSpec() {
    }

    static ObjectNode parse(String text, String filename, boolean json) throws IOException {
        if (json) {
            JsonNode node = NomadJson.mapper().readTree(text);
            if (!(node instanceof ObjectNode ns)) {
                throw new IOException(filename + ": expected a JSON object");
            }
            return ns;
        }
        Body body;
        try {
            body = HclParser.parse(text, filename).body();
        } catch (HclException e) {
            throw new IOException(e.getMessage());
        }
        ObjectNode ns = NomadJson.mapper().createObjectNode();
        for (Attribute a : body.attributes()) {
            if (!ATTRIBUTES.contains(a.name())) {
                throw new IOException(filename + ":" + a.nameRange().start().line() + ": invalid key \"" + a.name()
                        + "\"");
            }
            ns.set(pascal(a.name()), NomadJson.mapper().valueToTree(value(a, filename)));
        }
        for (Block b : body.blocks()) {
            if (!BLOCKS.contains(b.type())) {
                throw new IOException(filename + ":" + b.typeRange().start().line() + ": invalid key \"" + b.type()
                        + "\"");
            }
            ObjectNode block = ns.putObject(b.type().equals("meta") ? "Meta" : b.type().equals("node_pool_config")
                    ? "NodePoolConfiguration" : pascal(b.type()) + (b.type().equals("capabilities") ? ""
                    : "Configuration"));
            for (Attribute a : b.body().attributes()) {
                block.set(b.type().equals("meta") ? a.name() : pascal(a.name()),
                        NomadJson.mapper().valueToTree(value(a, filename)));
            }
            if (!b.type().equals("meta") && (!b.body().blocks().isEmpty() || block.isEmpty())) {
                block.put("Unparsed", true); // something is there; the server names the block it refuses
            }
        }
        return ns;
    }

    private static Object value(Attribute a, String filename) throws IOException {
        try {
            Value v = a.evaluate(EvalContext.empty());
            return v.toJava();
        } catch (HclException e) {
            throw new IOException(e.getMessage());
        }
    }

    private static String pascal(String snake) {
        StringBuilder out = new StringBuilder();
        for (String part : snake.split("_")) {
            if (!part.isEmpty()) {
                out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return out.toString();
    }
}
