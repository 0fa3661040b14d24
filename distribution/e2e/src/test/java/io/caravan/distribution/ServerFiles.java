package io.caravan.distribution;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** Agent files as a deployment guide writes them, for tests that start several server processes on loopback. */
final class ServerFiles {
    private ServerFiles() {
    }

    /** A fresh gossip key, as {@code caravan operator keygen} makes one. */
    static String gossipKey() {
        byte[] raw = new byte[32];
        new java.security.SecureRandom().nextBytes(raw);
        return java.util.Base64.getEncoder().encodeToString(raw);
    }

    /** One agent's ports. */
    record Ports(int http, int rpc, int serf) {
        String rpcAddress() {
            return "127.0.0.1:" + rpc;
        }
    }

    /** Every agent's ports, taken in one batch so that no two agents are handed the same one. */
    static List<Ports> ports(int agents) throws java.io.IOException {
        int[] free = AgentProcess.freePorts(3 * agents);
        return java.util.stream.IntStream.range(0, agents)
                .mapToObj(i -> new Ports(free[3 * i], free[3 * i + 1], free[3 * i + 2])).toList();
    }

    /** What every agent's file starts with: its name, data dir, loopback addresses and ports. */
    static String agentConfig(Path dir, String name, Ports own) {
        return """
                name      = "%s"
                data_dir  = "%s"
                bind_addr = "127.0.0.1"
                advertise {
                  http = "127.0.0.1"
                  rpc  = "127.0.0.1"
                  serf = "127.0.0.1"
                }
                ports {
                  http = %d
                  rpc  = %d
                  serf = %d
                }
                """.formatted(name, dir.resolve(name), own.http(), own.rpc(), own.serf());
    }

    /** A client-only agent that knows {@code servers} (RPC addresses) and runs the raw_exec driver. */
    static String clientConfig(Path dir, String name, Ports own, List<String> servers) {
        String known = servers.stream().map(a -> "\"" + a + "\"").collect(Collectors.joining(", "));
        return agentConfig(dir, name, own) + """
                client {
                  enabled = true
                  servers = [%s]
                }
                plugin "raw_exec" {
                  config {
                    enabled = true
                  }
                }
                """.formatted(known);
    }

    /** A server that is a cluster of its own ({@code bootstrap_expect = 1}), for tests that add clients to it. */
    static String soloServerConfig(Path dir, String name, Ports own) {
        return agentConfig(dir, name, own) + """
                server {
                  enabled          = true
                  bootstrap_expect = 1
                }
                """;
    }

    /** Server {@code i} of a group that bootstraps once all of {@code all} see each other; no key: no encrypt. */
    static String serverConfig(Path dir, int i, Ports own, List<Ports> all, String key) {
        String join = all.stream().map(p -> "\"127.0.0.1:" + p.serf() + "\"").collect(Collectors.joining(", "));
        return agentConfig(dir, "server" + i, own) + """
                server {
                  enabled          = true
                  bootstrap_expect = %d
                  %s
                  server_join {
                    retry_join     = [%s]
                    retry_interval = "1s"
                  }
                }
                """.formatted(all.size(), key == null ? "" : "encrypt = \"" + key + "\"", join);
    }

    /** The leader's RPC address as this agent sees it; empty when it knows none or does not answer. */
    static String leaderOf(AgentProcess a) {
        try {
            var r = a.get("/v1/status/leader");
            return r.statusCode() == 200 ? AgentProcess.JSON.readTree(r.body()).asText() : "";
        } catch (Exception e) {
            return "";
        }
    }

    static int indexOf(List<Ports> ports, String rpcAddress) {
        for (int i = 0; i < ports.size(); i++) {
            if (rpcAddress.equals(ports.get(i).rpcAddress())) {
                return i;
            }
        }
        throw new AssertionError("leader " + rpcAddress + " is none of the servers' RPC addresses " + ports);
    }
}
