package io.caravan.agent.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Nomad's {@code agent} flags, read with Go's flag syntax: {@code -flag}, {@code --flag}, {@code -flag=value},
 * {@code -flag value} for non-boolean flags; booleans take {@code -flag} or {@code -flag=true|false}. The result is
 * the list of config paths and a configuration layer in the decoded form, which Nomad applies last.
 */
final class AgentFlags {
    /** The outcome: {@code -config} paths in order, and the configuration the other flags set. */
    record Parsed(List<String> configPaths, Map<String, Object> layer, boolean dev) {}

    /** A bad command line; the message is the one line the user sees. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private enum Kind { BOOL, STRING, INT, LIST, REPEATED }

    /** A flag and the configuration key it sets. */
    private record Flag(Kind kind, String key) {}

    static final String INTRO_TOKEN_KEY = "client.intro_token";
    /** Nomad's environment variable for the client introduction token: it overrides {@code -client-intro-token}. */
    static final String INTRO_TOKEN_ENV = "NOMAD_CLIENT_INTRO_TOKEN";

    private static final Map<String, Flag> FLAGS = Map.ofEntries(
            Map.entry("dev", new Flag(Kind.BOOL, null)),
            Map.entry("config", new Flag(Kind.REPEATED, null)),
            Map.entry("server", new Flag(Kind.BOOL, "server.enabled")),
            Map.entry("client", new Flag(Kind.BOOL, "client.enabled")),
            Map.entry("acl-enabled", new Flag(Kind.BOOL, "acl.enabled")),
            Map.entry("data-dir", new Flag(Kind.STRING, "data_dir")),
            Map.entry("plugin-dir", new Flag(Kind.STRING, "plugin_dir")),
            Map.entry("bind", new Flag(Kind.STRING, "bind_addr")),
            Map.entry("region", new Flag(Kind.STRING, "region")),
            Map.entry("dc", new Flag(Kind.STRING, "datacenter")),
            Map.entry("node", new Flag(Kind.STRING, "name")),
            Map.entry("log-level", new Flag(Kind.STRING, "log_level")),
            Map.entry("encrypt", new Flag(Kind.STRING, "server.encrypt")),
            Map.entry("bootstrap-expect", new Flag(Kind.INT, "server.bootstrap_expect")),
            Map.entry("servers", new Flag(Kind.LIST, "client.servers")),
            Map.entry("retry-join", new Flag(Kind.REPEATED, "server.retry_join")),
            Map.entry("client-intro-token", new Flag(Kind.STRING, INTRO_TOKEN_KEY)));

    private AgentFlags() {
    }

    static Parsed parse(List<String> args) throws UsageException {
        return parse(args, System.getenv());
    }

    static Parsed parse(List<String> args, Map<String, String> env) throws UsageException {
        List<String> configs = new ArrayList<>();
        Map<String, Object> layer = new LinkedHashMap<>();
        boolean dev = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                if (i + 1 < args.size()) {
                    throw new UsageException("unexpected argument: " + args.get(i + 1));
                }
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                throw new UsageException("unexpected argument: " + arg);
            }
            String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            Flag flag = FLAGS.get(name);
            if (flag == null) {
                throw new UsageException("flag provided but not defined: -" + name);
            }
            String value;
            if (eq >= 0) {
                value = body.substring(eq + 1);
            } else if (flag.kind() == Kind.BOOL) {
                value = "true";
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException("flag needs an argument: -" + name);
            }
            switch (flag.kind()) {
                case BOOL -> {
                    boolean b = parseBool(name, value);
                    if (name.equals("dev")) {
                        dev = b;
                    } else {
                        put(layer, flag.key(), b);
                    }
                }
                case STRING -> put(layer, flag.key(), value);
                case INT -> put(layer, flag.key(), parseInt(name, value));
                case LIST -> put(layer, flag.key(), Arrays.stream(value.split(","))
                        .map(String::trim).filter(v -> !v.isEmpty()).toList());
                case REPEATED -> {
                    if (name.equals("config")) {
                        configs.add(value);
                    } else {
                        List<String> all = new ArrayList<>(listAt(layer, flag.key()));
                        all.add(value);
                        put(layer, flag.key(), List.copyOf(all));
                    }
                }
            }
        }
        String envToken = env.getOrDefault(INTRO_TOKEN_ENV, "");
        if (!envToken.isBlank()) {
            put(layer, INTRO_TOKEN_KEY, envToken.trim());
        }
        return new Parsed(List.copyOf(configs), layer, dev);
    }

    private static boolean parseBool(String name, String v) throws UsageException {
        return switch (v) {
            case "true", "1", "t", "T", "TRUE", "True" -> true;
            case "false", "0", "f", "F", "FALSE", "False" -> false;
            default -> throw new UsageException("invalid boolean value \"" + v + "\" for -" + name + ": parse error");
        };
    }

    private static long parseInt(String name, String v) throws UsageException {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new UsageException("invalid value \"" + v + "\" for flag -" + name + ": parse error");
        }
    }

    @SuppressWarnings("unchecked")
    private static void put(Map<String, Object> layer, String dotted, Object value) {
        String[] parts = dotted.split("\\.");
        Map<String, Object> at = layer;
        for (int i = 0; i < parts.length - 1; i++) {
            at = (Map<String, Object>) at.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>());
        }
        at.put(parts[parts.length - 1], value);
    }

    @SuppressWarnings("unchecked")
    private static List<String> listAt(Map<String, Object> layer, String dotted) {
        Object at = layer;
        for (String part : dotted.split("\\.")) {
            at = at instanceof Map<?, ?> m ? m.get(part) : null;
        }
        return at == null ? List.of() : (List<String>) at;
    }
}
