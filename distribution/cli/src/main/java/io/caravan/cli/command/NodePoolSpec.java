package io.caravan.cli.command;

import java.io.IOException;
import java.util.List;
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

/**
 * A node pool specification file as {@code nomad node pool apply} reads one: one {@code node_pool "<name>"} block
 * with {@code description}, {@code meta { }} and {@code scheduler_config { scheduler_algorithm,
 * memory_oversubscription = "enabled"|"disabled" }}, or with {@code -json} the API's JSON. Unknown keys are errors.
 */
final class NodePoolSpec {
    private NodePoolSpec() {
    }

    static ObjectNode parse(String text, String filename, boolean json) throws IOException {
        if (json) {
            JsonNode node = NomadJson.mapper().readTree(text);
            if (!(node instanceof ObjectNode pool)) {
                throw new IOException(filename + ": expected a JSON object");
            }
            return pool;
        }
        Body body;
        try {
            body = HclParser.parse(text, filename).body();
        } catch (HclException e) {
            throw new IOException(e.getMessage());
        }
        List<Block> pools = body.blocks().stream().filter(b -> b.type().equals("node_pool")).toList();
        if (pools.size() != 1 || !body.attributes().isEmpty() || body.blocks().size() != 1) {
            throw new IOException(filename + ": expected exactly one node_pool block");
        }
        Block block = pools.get(0);
        if (block.labels().size() != 1) {
            throw new IOException(filename + ":" + block.typeRange().start().line()
                    + ": node_pool takes one label, its name");
        }
        ObjectNode pool = NomadJson.mapper().createObjectNode().put("Name", block.labels().get(0));
        for (Attribute a : block.body().attributes()) {
            if (!a.name().equals("description")) {
                throw invalid(filename, a.nameRange().start().line(), a.name());
            }
            pool.put("Description", String.valueOf(value(a)));
        }
        for (Block b : block.body().blocks()) {
            switch (b.type()) {
                case "meta" -> {
                    ObjectNode meta = pool.putObject("Meta");
                    for (Attribute a : b.body().attributes()) {
                        meta.put(a.name(), String.valueOf(value(a)));
                    }
                }
                case "scheduler_config" -> {
                    ObjectNode sc = pool.putObject("SchedulerConfiguration");
                    for (Attribute a : b.body().attributes()) {
                        Object v = value(a);
                        switch (a.name()) {
                            case "scheduler_algorithm" -> sc.put("SchedulerAlgorithm", String.valueOf(v));
                            case "memory_oversubscription" -> {
                                if (!Set.of("enabled", "disabled").contains(String.valueOf(v))) {
                                    throw new IOException(filename + ":" + a.nameRange().start().line()
                                            + ": memory_oversubscription must be \"enabled\" or \"disabled\"");
                                }
                                sc.put("MemoryOversubscriptionEnabled", "enabled".equals(v));
                            }
                            default -> throw invalid(filename, a.nameRange().start().line(), a.name());
                        }
                    }
                }
                default -> throw invalid(filename, b.typeRange().start().line(), b.type());
            }
        }
        return pool;
    }

    private static IOException invalid(String filename, int line, String key) {
        return new IOException(filename + ":" + line + ": invalid key \"" + key + "\"");
    }

    private static Object value(Attribute a) throws IOException {
        try {
            return a.evaluate(EvalContext.empty()).toJava();
        } catch (HclException e) {
            throw new IOException(e.getMessage());
        }
    }
}
