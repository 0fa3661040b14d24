package io.caravan.agent.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Nomad's start-up banner: labels right-aligned, one setting per line. */
final class Banner {
    private Banner() {
    }

    static String render(AgentSettings s, String nodeId, String version, String consoleCredentials) {
        Map<String, String> lines = new LinkedHashMap<>();
        lines.put("Advertise Addrs", "HTTP: " + s.advertiseHttp() + "; RPC: " + s.advertiseRpc() + "; Serf: "
                + s.advertiseSerf());
        lines.put("Bind Addrs", "HTTP: [" + hostPort(s.httpAddr(), s.httpPort()) + "]; RPC: "
                + hostPort(s.rpcAddr(), s.rpcPort()) + "; Serf: " + hostPort(s.serfAddr(), s.serfPort()));
        lines.put("Client", Boolean.toString(s.client()));
        lines.put("Log Level", s.logLevel());
        lines.put("Node Id", nodeId);
        lines.put("Region", s.region() + " (DC: " + s.datacenter() + ")");
        lines.put("Server", Boolean.toString(s.server()));
        lines.put("Version", version);
        lines.put("Web Console", "http://" + hostPort(consoleHost(s), s.httpPort()) + PidTranslator.CONSOLE_ROOT
                + " (" + consoleCredentials + ")");

        StringBuilder out = new StringBuilder();
        List<String> files = s.files().stream().map(Object::toString).toList();
        if (!files.isEmpty()) {
            out.append("==> Loaded configuration from ").append(String.join(", ", files)).append('\n');
        }
        out.append("==> Starting Caravan agent...\n");
        out.append("==> Caravan agent configuration:\n\n");
        out.append(lines.entrySet().stream()
                .map(e -> String.format("%22s: %s", e.getKey(), e.getValue()))
                .collect(Collectors.joining("\n")));
        out.append("\n\n==> Caravan agent started! Log data will stream in below:\n");
        return out.toString();
    }

    private static String consoleHost(AgentSettings s) {
        return s.httpAddr().equals("0.0.0.0") || s.httpAddr().equals("::") ? "127.0.0.1" : s.httpAddr();
    }

    private static String hostPort(String host, int port) {
        return new AgentSettings.HostPort(host, port).toString();
    }
}
