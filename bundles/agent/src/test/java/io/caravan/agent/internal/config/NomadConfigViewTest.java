package io.caravan.agent.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class NomadConfigViewTest {
    @Test
    void theTlsBlockShowsAsNomadsTlsConfigWithTheKeyFileRedacted() {
        Map<String, Object> tls = new LinkedHashMap<>();
        tls.put("http", true);
        tls.put("rpc", true);
        tls.put("ca_file", "/tls/ca.pem");
        tls.put("cert_file", "/tls/server.pem");
        tls.put("key_file", "/tls/server-key.pem");
        tls.put("verify_https_client", true);
        tls.put("rpc_upgrade_mode", false);
        Map<String, Object> config = Map.of("tls", tls, "ports", Map.of("http", 4646L));
        Map<String, Object> view = NomadConfigView.render(config, Schema.nomadAgent().root());
        assertEquals(Map.of("EnableHTTP", true, "EnableRPC", true, "CAFile", "/tls/ca.pem",
                "CertFile", "/tls/server.pem", "KeyFile", "<redacted>", "VerifyHTTPSClient", true,
                "RPCUpgradeMode", false), view.get("TLSConfig"));
        assertEquals(Map.of("HTTP", 4646L), view.get("Ports"), "renames stay inside their block");
    }
}
