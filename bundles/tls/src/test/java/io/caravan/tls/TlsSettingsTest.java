package io.caravan.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class TlsSettingsTest {
    private static TlsSettings with(String minVersion, List<String> suites) {
        return new TlsSettings(true, true, Path.of("/ca.pem"), Path.of("/c.pem"), Path.of("/k.pem"), true, true, true,
                minVersion, suites, "eu");
    }

    @Test
    void configAdminPropertiesReadBackAsWritten() {
        TlsSettings s = with("tls13", List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"));
        Map<String, Object> p = s.properties("abc");
        assertEquals("abc", p.get(TlsSettings.FINGERPRINT));
        assertEquals(s, TlsSettings.of(p));
        assertEquals(TlsSettings.DISABLED, TlsSettings.of(Map.of()), "no keys: TLS off");
        assertEquals("server.eu.nomad", s.serverName());
    }

    @Test
    void protocolsStartAtTheMinimumVersion() {
        assertArrayEquals(new String[] {"TLSv1.3", "TLSv1.2"}, with("tls12", List.of()).protocols());
        assertArrayEquals(new String[] {"TLSv1.3"}, with("tls13", List.of()).protocols());
        assertArrayEquals(new String[] {"TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1"}, with("tls10", List.of()).protocols());
    }

    @Test
    void goSuiteNamesMapToTheJdksAndTls13StaysOn() {
        assertNull(with("tls12", List.of()).jdkCipherSuites(), "none configured: the JDK's defaults");
        List<String> suites = List.of(with("tls12", List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305")).jdkCipherSuites());
        assertTrue(suites.contains("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"), suites.toString());
        assertTrue(suites.contains("TLS_AES_128_GCM_SHA256"), suites.toString());
    }

    @Test
    void badValuesAreNamedByKey() {
        TlsException e = assertThrows(TlsException.class, () -> with("tls9", List.of()).validate());
        assertTrue(e.getMessage().startsWith("tls.tls_min_version"), e.getMessage());
        e = assertThrows(TlsException.class, () -> with("tls12", List.of("TLS_NOPE")).validate());
        assertTrue(e.getMessage().contains("unsupported cipher suite \"TLS_NOPE\""), e.getMessage());
        e = assertThrows(TlsException.class, () -> new TlsSettings(false, true, null, Path.of("/c"), Path.of("/k"),
                false, false, false, null, List.of(), null).validate());
        assertTrue(e.getMessage().contains("ca_file is required when rpc = true"), e.getMessage());
        e = assertThrows(TlsException.class, () -> new TlsSettings(true, false, null, null, Path.of("/k"),
                false, false, false, null, List.of(), null).validate());
        assertTrue(e.getMessage().contains("cert_file is required when http = true"), e.getMessage());
    }
}
