package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PidTranslatorTest {
    @TempDir
    Path tmp;

    private static Map<String, Map<String, Object>> translate(Configs.Both b, String id, String v, String pw) {
        return PidTranslator.translate(b.settings(), b.config(), id, 4649, v, pw, "");
    }

    @Test
    void devAgentConfiguresEveryComponent() throws Exception {
        Map<String, Map<String, Object>> pids = translate(Configs.both(tmp, List.of("-dev"),
                "{\"http_api_response_headers\": {\"Access-Control-Allow-Origin\": \"*\"}}"), "id-1", "0.1.0", "pw");
        assertEquals(List.of("io.caravan.tls", "io.caravan.agent", "io.caravan.http", "org.apache.felix.http",
                "org.apache.felix.webconsole.internal.servlet.OsgiManager", "org.apache.felix.fileinstall~plugins",
                "io.caravan.server", "io.caravan.server.introduction", "io.caravan.client", "io.caravan.acl", "io.caravan.driver.raw_exec~raw_exec"),
                List.copyOf(pids.keySet()));
        Map<String, Object> agent = pids.get("io.caravan.agent");
        assertEquals("id-1", agent.get("node.id"));
        assertEquals(4646, agent.get("ports.http"));
        assertEquals(true, agent.get("dev.mode"));
        // The API listens on the http bundle's connector; Felix's own stays internal.
        assertEquals("127.0.0.1:4646", pids.get("io.caravan.http").get("bind.addr"));
        assertEquals("127.0.0.1", pids.get("org.apache.felix.http").get("org.apache.felix.http.host"));
        assertEquals(0, pids.get("org.apache.felix.http").get("org.osgi.service.http.port"));
        assertArrayEquals(new String[] {"Access-Control-Allow-Origin: *"},
                (String[]) pids.get("io.caravan.http").get("response.headers"));
        assertEquals("pw", pids.get("org.apache.felix.webconsole.internal.servlet.OsgiManager").get("password"));
        Map<String, Object> server = pids.get("io.caravan.server");
        assertEquals("id-1", server.get("node.id"));
        assertEquals("127.0.0.1:4647", server.get("rpc.addr"));
        assertEquals("127.0.0.1:4649", server.get("raft.addr"));
        assertEquals("127.0.0.1:4648", server.get("serf.bind"));
        assertEquals(tmp.resolve("dev").resolve("server").resolve("raft").toString(), server.get("raft.dir"));
        assertEquals(1L, server.get("bootstrap.expect"));
        assertEquals(tmp.resolve("dev").resolve("plugins").toString(),
                pids.get("org.apache.felix.fileinstall~plugins").get("felix.fileinstall.dir"));
    }

    @Test
    void clientIntroductionHasItsOwnPidSoItsReloadRestartsNothingElse() throws Exception {
        Map<String, Map<String, Object>> pids = translate(Configs.both(tmp, List.of("-dev", "-client-intro-token=t"),
                "{\"server\": {\"client_introduction\": {\"enforcement\": \"strict\", \"max_identity_ttl\": "
                        + "\"1h\"}}}"), "id", "v", "pw");
        Map<String, Object> intro = pids.get(PidTranslator.SERVER_INTRO_PID);
        assertEquals("strict", intro.get("client.introduction.enforcement"));
        assertEquals("1h0m0s", intro.get("client.introduction.max.identity.ttl"));
        assertEquals("global", intro.get("region"));
        assertTrue(pids.get(PidTranslator.SERVER_PID).keySet().stream().noneMatch(k -> k.startsWith("client.intro")),
                pids.get(PidTranslator.SERVER_PID).toString());
        assertEquals("t", pids.get(PidTranslator.CLIENT_PID).get("intro.token"));
    }

    @Test
    void seed002sTelemetryBlockConfiguresTheTelemetryComponentAsWritten() throws Exception {
        Path hcl = tmp.resolve("telemetry.hcl");
        java.nio.file.Files.writeString(hcl, """
                telemetry {
                  collection_interval = "1s"
                  disable_hostname = true
                  prometheus_metrics = true
                  publish_allocation_metrics = true
                  publish_node_metrics = true
                  prefix_filter = ["+nomad.raft", "-nomad.client.host"]
                }
                """);
        AgentFlags.Parsed parsed = AgentFlags.parse(List.of("-dev", "-config", hcl.toString()));
        io.caravan.agent.internal.config.ConfigLoader.Loaded loaded = io.caravan.agent.internal.config.ConfigLoader
                .load(parsed.dev(), parsed.configPaths(), parsed.layer());
        assertEquals(List.of(), loaded.unsupported().stream().map(io.caravan.agent.UnsupportedKey::key).toList(),
                "every key of the seed's block is acted on");
        Map<String, Object> telemetry = PidTranslator.translate(AgentSettings.resolve(loaded.config(), parsed.dev(),
                loaded.files(), tmp.resolve("dev"), "host1"), loaded.config(), "id", 4649, "v", "pw", "")
                .get("io.caravan.telemetry");
        assertEquals("1s", telemetry.get("collection.interval"));
        assertEquals(true, telemetry.get("disable.hostname"));
        assertEquals(true, telemetry.get("prometheus.metrics"));
        assertEquals(true, telemetry.get("publish.allocation.metrics"));
        assertEquals(true, telemetry.get("publish.node.metrics"));
        assertArrayEquals(new String[] {"+nomad.raft", "-nomad.client.host"},
                (String[]) telemetry.get("prefix.filter"));
    }

    @Test
    void theRequestBodyLimitReachesTheHttpComponentInBytes() throws Exception {
        Map<String, Map<String, Object>> pids = translate(Configs.both(tmp, List.of("-dev"),
                "{\"limits\": {\"http_max_request_body\": \"8MiB\"}}"), "id", "v", "pw");
        assertEquals(8L * 1024 * 1024, pids.get("io.caravan.http").get("max.request.body"));
        Map<String, Map<String, Object>> unset = translate(Configs.both(tmp, List.of("-dev")), "id", "v", "pw");
        assertFalse(unset.get("io.caravan.http").containsKey("max.request.body"), "the component's default applies");
    }

    @Test
    void theAclTokenGcThresholdReachesTheServerAsWritten() throws Exception {
        Map<String, Map<String, Object>> pids = translate(Configs.both(tmp, List.of("-dev"),
                "{\"server\": {\"acl_token_gc_threshold\": \"30m\"}}"), "id", "v", "pw");
        assertEquals("30m0s", pids.get("io.caravan.server").get("acl.token.gc.threshold"));
        Map<String, Map<String, Object>> unset = translate(Configs.both(tmp, List.of("-dev")), "id", "v", "pw");
        assertFalse(unset.get("io.caravan.server").containsKey("acl.token.gc.threshold"), "Nomad's 1h applies");
    }

    @Test
    void nomadsLegacyClientOptionEnablesRawExec() throws Exception {
        Map<String, Map<String, Object>> on = translate(Configs.both(tmp,
                List.of("-client", "-servers", "10.0.0.1:4647", "-data-dir", tmp.toString(), "-bind", "10.0.0.9"),
                "{\"client\": {\"options\": {\"driver.raw_exec.enable\": \"1\"}}}"), "id", "v", "pw");
        assertEquals(true, on.get("io.caravan.driver.raw_exec~raw_exec").get("config.enabled"));
        Map<String, Map<String, Object>> off = translate(Configs.both(tmp,
                List.of("-client", "-servers", "10.0.0.1:4647", "-data-dir", tmp.toString(), "-bind", "10.0.0.9"),
                "{\"client\": {\"options\": {\"driver.raw_exec.enable\": \"0\"}}}"), "id", "v", "pw");
        assertFalse(off.containsKey("io.caravan.driver.raw_exec~raw_exec"));
    }

    @Test
    void modesAreConfigurationPresentOnlyWhenEnabled() throws Exception {
        Map<String, Map<String, Object>> pids = translate(Configs.both(tmp,
                List.of("-client", "-servers", "10.0.0.1:4647", "-data-dir", tmp.toString(), "-bind", "10.0.0.9"),
                "{\"client\": {\"meta\": {\"rack\": \"r1\"}, \"gc_interval\": \"90s\", \"node_class\": \"big\"},"
                + " \"plugin\": {\"raw_exec\": {\"args\": [\"-v\"], \"config\": {\"enabled\": true, \"nested\": {\"n\": 2}}}},"
                + " \"consul\": {\"address\": \"127.0.0.1:8500\"}, \"acl\": {\"token_ttl\": \"30s\"}}"),
                "id", "v", "pw");
        assertFalse(pids.containsKey("io.caravan.server"));
        assertTrue(pids.containsKey("io.caravan.client"));
        Map<String, Object> client = pids.get("io.caravan.client");
        assertArrayEquals(new String[] {"10.0.0.1:4647"}, (String[]) client.get("servers"));
        assertEquals("r1", client.get("meta.rack"));
        assertEquals("1m30s", client.get("gc.interval"), "Go's duration format");
        assertEquals("big", client.get("node.class"));
        Map<String, Object> rawExec = pids.get("io.caravan.driver.raw_exec~raw_exec");
        assertEquals(true, rawExec.get("config.enabled"));
        assertEquals(2L, rawExec.get("config.nested.n"));
        assertArrayEquals(new String[] {"-v"}, (String[]) rawExec.get("args"));
        assertEquals("127.0.0.1:8500", pids.get("io.caravan.consul~default").get("address"));
        assertEquals("30s", pids.get("io.caravan.acl").get("token.ttl"));
    }

    @Test
    void translationIsDeterministic() throws Exception {
        Configs.Both s = Configs.both(tmp, List.of("-dev"));
        Map<String, Map<String, Object>> a = translate(s, "id", "v", "pw");
        Map<String, Map<String, Object>> b = translate(s, "id", "v", "pw");
        assertEquals(a.keySet(), b.keySet());
        a.forEach((pid, props) -> props.forEach((k, v) -> {
            Object other = b.get(pid).get(k);
            if (v instanceof Object[] arr) {
                assertArrayEquals(arr, (Object[]) other, pid + "/" + k);
            } else {
                assertEquals(v, other, pid + "/" + k);
            }
        }));
    }
}
