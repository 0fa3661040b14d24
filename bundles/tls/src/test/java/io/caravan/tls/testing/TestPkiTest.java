package io.caravan.tls.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

import io.caravan.tls.ReloadableTls;
import io.caravan.tls.TlsMaterial;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestPkiTest {
    @TempDir
    Path dir;

    @Test
    void leavesLoadAsAgentMaterialCarryTheirRoleAndChainOnlyToTheirOwnCa() throws Exception {
        TestPki pki = TestPki.create(dir, "main");
        TestPki other = TestPki.create(dir, "other");
        TestPki.Leaf server = pki.server("global");
        ReloadableTls tls = new ReloadableTls(pki.rpcSettings(server, true, false),
                TlsMaterial.load(pki.rpcSettings(server, true, false)));
        X509Certificate[] chain = {server.certificate()};
        assertTrue(tls.isServer(server.certificate()));
        assertFalse(tls.isServer(pki.client("global").certificate()));
        assertDoesNotThrow(() -> tls.trustManager(true).checkClientTrusted(chain, "EC"));
        X509Certificate[] foreign = {other.server("global").certificate()};
        assertThrows(CertificateException.class, () -> tls.trustManager(false).checkClientTrusted(foreign, "EC"));
        assertNotEquals(server.serial(), pki.server("global").serial(), "a new serial at each issue");
        assertEquals(server.cert(), pki.server("global").cert(), "at the same path");
    }
}
