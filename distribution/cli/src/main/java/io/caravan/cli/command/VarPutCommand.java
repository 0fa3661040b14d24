package io.caravan.cli.command;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan var put [-force] [-check-index N] [-in json|hcl] [-out ...] PATH|@spec|- [@spec|-] [k=v|k=@file|k=-]...}:
 * creates or updates a variable. Without {@code -force} the write is a check-and-set on the specification's modify
 * index (0, "must not exist", for a new one) or {@code -check-index}; a conflict prints the server's index and exits 1.
 * An item given as {@code k=} removes {@code k}.
 */
@Command(name = "put", description = "Create or update a variable.")
public final class VarPutCommand extends HttpCommand {
    /** Characters a template can only reach through {@code index}: anything but letters, digits and {@code _}. */
    private static final Pattern NOT_IDENTIFIER = Pattern.compile("[^_\\p{N}\\p{L}]");

    @Option(names = {"-force", "--force"}, description = "Write whatever the server-side variable's index.")
    boolean force;

    @Option(names = {"-check-index", "--check-index"}, paramLabel = "<index>",
            description = "Write only if the server-side variable's modify index is this (0: it must not exist).")
    String checkIndex;

    @Option(names = {"-in", "--in"}, paramLabel = "hcl|json", defaultValue = "json",
            description = "Format of a specification read from stdin or from a file without .hcl/.json.")
    String in;

    @Option(names = {"-out", "--out"}, paramLabel = "go-template|hcl|json|none|table",
            description = "How to print the written variable. Default: none on a terminal, json otherwise.")
    String out;

    @Option(names = {"-template", "--template"}, paramLabel = "<template>",
            description = "The template for -out go-template.")
    String template;

    @Option(names = {"-verbose", "--verbose"}, description = "Say what is done on standard error.")
    boolean verbose;

    @Parameters(arity = "0..*", paramLabel = "ARGS", description = "PATH or @spec or -, then @spec or -, then k=v.")
    List<String> args = new ArrayList<>();

    public VarPutCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating variable";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String format = out != null ? out : Vars.terminal() ? "none" : "json";
        Long index = null;
        if (checkIndex != null && !checkIndex.isEmpty()) {
            try {
                index = Long.parseUnsignedLong(checkIndex);
            } catch (NumberFormatException e) {
                ctx.err().println("Error parsing check-index value \"" + checkIndex + "\": not parsable as uint64");
                return 1;
            }
        }
        String namespace = connection.namespace(ctx);
        if (namespace.equals("*")) {
            ctx.err().println(Vars.ERR_WILDCARD);
            return 1;
        }
        if (args.isEmpty()) {
            throw new UsageException("Not enough arguments (expected >1, got 0)");
        }
        if (args.size() == 1 && !isStdin(args.get(0)) && !isFile(args.get(0))) {
            throw new UsageException("Must supply data");
        }
        if (!in.equals("hcl") && !in.equals("json")) {
            throw new UsageException(Vars.ERR_INVALID_IN);
        }
        Vars.checkOut(format, template, true);

        List<String> rest = new ArrayList<>(args);
        String path = "";
        String spec = null;
        String specName = "stdin";
        String specFormat = in;
        String first = rest.remove(0);
        try {
            if (isStdin(first)) {
                spec = stdin();
            } else if (isFile(first)) {
                specName = first.substring(1);
                specFormat = formatOf(specName);
                spec = Files.readString(ctx.file(specName));
            } else {
                path = Vars.sanitize(first);
            }
            if (!rest.isEmpty() && isStdin(rest.get(0))) {
                rest.remove(0);
                spec = stdin();
            } else if (!rest.isEmpty() && isFile(rest.get(0))) {
                specName = rest.remove(0).substring(1);
                specFormat = formatOf(specName);
                spec = Files.readString(ctx.file(specName));
            }
        } catch (IllegalArgumentException e) {
            ctx.err().println(e.getMessage());
            return 1;
        } catch (IOException e) {
            ctx.err().println("Error reading \"" + specName + "\": " + InputFile.reason(e));
            return 1;
        }

        ObjectNode variable;
        try {
            variable = makeVariable(spec, specFormat, specName, path, namespace);
        } catch (IllegalArgumentException e) {
            ctx.err().println("Failed to parse variable data: " + e.getMessage());
            return 1;
        }
        ObjectNode items = (ObjectNode) variable.get("Items");
        List<String> warnings = new ArrayList<>();
        if (!rest.isEmpty()) {
            Map<String, String> data;
            try {
                data = keyValues(rest);
            } catch (IllegalArgumentException e) {
                ctx.err().println("Failed to parse K=V data: " + e.getMessage());
                return 1;
            }
            data.forEach((k, v) -> {
                if (v.isEmpty()) {
                    say(items.remove(k) != null ? "Removed item \"" + k + "\"" : "Item \"" + k
                            + "\" does not exist, continuing...");
                    return;
                }
                TreeSet<String> bad = new TreeSet<>();
                Matcher m = NOT_IDENTIFIER.matcher(k);
                while (m.find()) {
                    bad.add("\"" + m.group() + "\"");
                }
                if (!bad.isEmpty()) {
                    warnings.add("\"" + k + "\" contains characters [" + String.join(",", bad)
                            + "] that require the 'index' function for direct access in templates");
                }
                items.put(k, v);
            });
        }
        if (index != null) {
            variable.put("ModifyIndex", index);
        }
        long cas = variable.path("ModifyIndex").asLong();
        Map<String, String> query = new LinkedHashMap<>();
        query.put("namespace", variable.path("Namespace").asText());
        if (!force) {
            query.put("cas", Long.toString(cas));
        }
        String target = variable.path("Path").asText();
        ApiClient.Answer answer = api.call("PUT", Vars.url(target), query, variable, 409);
        if (answer.status() == 409) {
            Vars.casConflict(ctx.err(), cas, answer.body(), ctx.zone());
            return 1;
        }
        JsonNode written = answer.body();
        String success = "Created variable \"" + written.path("Path").asText() + "\" with modify index "
                + written.path("ModifyIndex").asLong();
        if (!warnings.isEmpty()) {
            ctx.err().println();
            ctx.err().println("Variable Warnings:");
            warnings.forEach(w -> ctx.err().println("* " + w));
            ctx.err().println();
        }
        switch (format) {
            case "none" -> ctx.out().println(success);
            case "table" -> {
                say(success);
                Vars.table(ctx.out(), written, ctx.zone());
            }
            default -> {
                String rendered;
                try {
                    rendered = Vars.render(written, format, template);
                } catch (IllegalArgumentException e) {
                    ctx.err().println(e.getMessage());
                    return 1;
                }
                say(success);
                ctx.out().println(rendered);
            }
        }
        return 0;
    }

    /**
     * The variable to write: the specification (its namespace and path replaced by those given, which resets its
     * indexes, as a copy would), or an empty one at {@code path}.
     */
    private ObjectNode makeVariable(String spec, String format, String name, String path, String namespace) {
        ObjectNode variable;
        if (spec == null || spec.isEmpty()) {
            variable = NomadJson.mapper().createObjectNode();
            variable.put("Namespace", namespace);
            variable.put("Path", path);
            variable.putObject("Items");
            return variable;
        }
        variable = Vars.parseSpec(spec, format, name);
        if (!(variable.get("Items") instanceof ObjectNode)) {
            variable.putObject("Items");
        }
        boolean reset = false;
        String given = ctx.env("CARAVAN_NAMESPACE", "NOMAD_NAMESPACE");
        if (connection.namespace != null && !connection.namespace.isBlank()) {
            given = connection.namespace.strip();
        }
        if (given != null && !given.equals(variable.path("Namespace").asText())) {
            variable.put("Namespace", given);
            reset = true;
        } else if (!variable.hasNonNull("Namespace") || variable.path("Namespace").asText().isEmpty()) {
            variable.put("Namespace", namespace);
        }
        if (!path.isEmpty() && !path.equals(variable.path("Path").asText())) {
            variable.put("Path", path);
            reset = true;
        }
        if (reset) {
            for (String field : List.of("CreateIndex", "CreateTime", "ModifyIndex", "ModifyTime")) {
                variable.put(field, 0);
            }
        }
        if (variable.path("Path").asText().isEmpty()) {
            throw new IllegalArgumentException("missing variable path");
        }
        return variable;
    }

    /** {@code k=v} pairs: a value {@code @file} is the file, {@code -} standard input, {@code \@} a literal @. */
    private Map<String, String> keyValues(List<String> pairs) {
        Map<String, String> data = new LinkedHashMap<>();
        boolean stdinUsed = false;
        for (String raw : pairs) {
            if (raw.isEmpty()) {
                continue;
            }
            try {
                int eq = raw.indexOf('=');
                if (eq < 0) {
                    if (raw.equals("-") || raw.startsWith("@")) {
                        if (raw.equals("-") && stdinUsed) {
                            throw new IllegalArgumentException("stdin already consumed");
                        }
                        stdinUsed |= raw.equals("-");
                        String json = raw.equals("-") ? stdin() : Files.readString(ctx.file(raw.substring(1)));
                        JsonNode object = NomadJson.mapper().readTree(json);
                        object.fields().forEachRemaining(e -> data.put(e.getKey(), e.getValue().asText()));
                        continue;
                    }
                    throw new IllegalArgumentException("format must be key=value");
                }
                String key = raw.substring(0, eq);
                String value = raw.substring(eq + 1);
                if (value.startsWith("@")) {
                    try {
                        value = Files.readString(ctx.file(value.substring(1)));
                    } catch (IOException e) {
                        throw new IllegalArgumentException("error reading file: " + InputFile.reason(e));
                    }
                } else if (value.startsWith("\\@")) {
                    value = value.substring(1);
                } else if (value.equals("-")) {
                    if (stdinUsed) {
                        throw new IllegalArgumentException("stdin already consumed");
                    }
                    stdinUsed = true;
                    value = stdin();
                }
                data.put(key, value);
            } catch (IOException e) {
                throw new IllegalArgumentException("invalid key/value pair \"" + raw + "\": " + e.getMessage());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid key/value pair \"" + raw + "\": " + e.getMessage());
            }
        }
        return data;
    }

    private String stdin() throws IOException {
        if (ctx.in() == null) {
            throw new IOException("stdin is not supported");
        }
        StringWriter text = new StringWriter();
        ctx.in().transferTo(text);
        return text.toString();
    }

    /** A specification file's format by its extension, as Nomad decides it. */
    private static String formatOf(String file) {
        if (file.endsWith(".json")) {
            return "json";
        }
        if (file.endsWith(".hcl")) {
            return "hcl";
        }
        throw new IllegalArgumentException("Unable to determine format of " + file
                + "; Use the -in flag to specify it.");
    }

    private void say(String message) {
        if (verbose) {
            ctx.err().println(message);
        }
    }

    static boolean isStdin(String arg) {
        return arg.equals("-");
    }

    static boolean isFile(String arg) {
        return arg.startsWith("@");
    }
}
