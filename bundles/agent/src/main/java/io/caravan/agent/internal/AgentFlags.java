package io.caravan.agent.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Nomad's {@code agent} flags, read with Go's flag syntax: {@code -flag}, {@code --flag}, {@code -flag=value},
 * {@code -flag value} for non-boolean flags; booleans take {@code -flag} or {@code -flag=true|false}. The result is
 * the list of config files and the flag layer, which Nomad applies last.
 */
final class AgentFlags {
    /** The outcome: {@code -config} paths in order, and the configuration the other flags set. */
    record Parsed(List<String> configPaths, AgentConfig layer, boolean dev) {}

    /** A bad command line; the message is the one line the user sees. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    private interface Flag {
        boolean takesValue();

        void apply(State state, String value) throws UsageException;
    }

    private static final class State {
        final List<String> configs = new ArrayList<>();
        final AgentConfig.Builder b = new AgentConfig.Builder();
        boolean dev;
        Boolean server, client, aclEnabled;
        Integer bootstrapExpect;
        String encrypt;
        List<String> servers, retryJoin = new ArrayList<>();
    }

    private static final Map<String, Flag> FLAGS = Map.ofEntries(
            bool("dev", (s, v) -> s.dev = v),
            bool("server", (s, v) -> s.server = v),
            bool("client", (s, v) -> s.client = v),
            bool("acl-enabled", (s, v) -> s.aclEnabled = v),
            string("config", (s, v) -> s.configs.add(v)),
            string("data-dir", (s, v) -> s.b.dataDir = v),
            string("plugin-dir", (s, v) -> s.b.pluginDir = v),
            string("bind", (s, v) -> s.b.bindAddr = v),
            string("region", (s, v) -> s.b.region = v),
            string("dc", (s, v) -> s.b.datacenter = v),
            string("node", (s, v) -> s.b.name = v),
            string("log-level", (s, v) -> s.b.logLevel = v),
            string("encrypt", (s, v) -> s.encrypt = v),
            string("servers", (s, v) -> s.servers = splitList(v)),
            string("retry-join", (s, v) -> s.retryJoin.add(v)),
            Map.entry("bootstrap-expect", new Flag() {
                public boolean takesValue() {
                    return true;
                }

                public void apply(State s, String v) throws UsageException {
                    try {
                        s.bootstrapExpect = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        throw new UsageException("invalid value \"" + v + "\" for flag -bootstrap-expect: parse error");
                    }
                }
            }));

    private AgentFlags() {
    }

    static Parsed parse(List<String> args) throws UsageException {
        State state = new State();
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
            } else if (!flag.takesValue()) {
                value = "true";
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException("flag needs an argument: -" + name);
            }
            flag.apply(state, value);
        }
        return new Parsed(List.copyOf(state.configs), layer(state), state.dev);
    }

    private static AgentConfig layer(State s) {
        if (s.server != null || s.bootstrapExpect != null || s.encrypt != null || !s.retryJoin.isEmpty()) {
            s.b.server = new AgentConfig.Server(s.server, s.bootstrapExpect, s.encrypt, null,
                    s.retryJoin.isEmpty() ? null : List.copyOf(s.retryJoin));
        }
        if (s.client != null || s.servers != null) {
            s.b.client = new AgentConfig.Client(s.client, s.servers);
        }
        if (s.aclEnabled != null) {
            s.b.acl = new AgentConfig.Acl(s.aclEnabled);
        }
        return s.b.build();
    }

    private static List<String> splitList(String value) {
        return Arrays.stream(value.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
    }

    private interface ValueSetter<T> {
        void set(State state, T value);
    }

    private static Map.Entry<String, Flag> bool(String name, ValueSetter<Boolean> setter) {
        return Map.entry(name, new Flag() {
            public boolean takesValue() {
                return false;
            }

            public void apply(State s, String v) throws UsageException {
                switch (v) {
                    case "true", "1", "t", "T", "TRUE", "True" -> setter.set(s, true);
                    case "false", "0", "f", "F", "FALSE", "False" -> setter.set(s, false);
                    default -> throw new UsageException(
                            "invalid boolean value \"" + v + "\" for -" + name + ": parse error");
                }
            }
        });
    }

    private static Map.Entry<String, Flag> string(String name, BiConsumer<State, String> setter) {
        return Map.entry(name, new Flag() {
            public boolean takesValue() {
                return true;
            }

            public void apply(State s, String v) {
                setter.accept(s, v);
            }
        });
    }
}
