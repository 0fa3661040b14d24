package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import org.junit.jupiter.api.Test;

/**
 * Nomad's rules for the snapshot and autopilot endpoints: snapshots need a management token; autopilot's
 * configuration and health take operator:read, writing the configuration operator:write.
 */
class OperatorEndpointsAclTest {
    private static Identity operator(Access granted) {
        return new Identity(Identity.Kind.TOKEN, "accessor-op", "op", new Acl() {
            public boolean isManagement() { return false; }
            public boolean allowNamespace(String namespace, String capability) { return true; }
            public boolean allowAnyNamespace(String capability) { return true; }
            public boolean allow(Scope scope, Access access) {
                return scope == Scope.OPERATOR && (access == Access.READ || granted == Access.WRITE);
            }
            public boolean allowHostVolume(String name, String capability) { return false; }
            public boolean allowVariable(String namespace, String path, String capability) { return false; }
        });
    }

    @Test
    void snapshotsTakeManagementAutopilotTakesOperator() {
        Identity reader = operator(Access.READ);
        Identity writer = operator(Access.WRITE);
        Identity nobody = Identity.anonymous(Acl.NONE);
        assertFalse(SnapshotRoutes.SAVE.rule().allows(writer, "default"));
        assertFalse(SnapshotRoutes.RESTORE.rule().allows(writer, "default"));
        assertTrue(SnapshotRoutes.SAVE.rule().allows(Identity.UNRESTRICTED, "default"));
        assertTrue(AutopilotRoutes.GET_CONFIG.rule().allows(reader, "default"));
        assertTrue(AutopilotRoutes.HEALTH.rule().allows(reader, "default"));
        assertFalse(AutopilotRoutes.SET_CONFIG.rule().allows(reader, "default"));
        assertTrue(AutopilotRoutes.SET_CONFIG.rule().allows(writer, "default"));
        assertFalse(AutopilotRoutes.GET_CONFIG.rule().allows(nobody, "default"));
        assertFalse(AutopilotRoutes.HEALTH.rule().allows(nobody, "default"));
    }
}
