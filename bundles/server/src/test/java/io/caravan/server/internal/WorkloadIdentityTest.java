package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.acl.internal.PolicyCompilerService;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Identity;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Task;
import io.caravan.state.StateTxn;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A task's identity: Nomad's claims, and the implicit policy it carries back to the API. */
class WorkloadIdentityTest {
    private final ServerState state = new ServerState();
    private final RaftWrites raft = JobLimitsTest.writes(state, new AtomicLong());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final KeyringService keyring = new KeyringService(state.store(), raft, Keyring.newKeystorePair(), clock,
            false);
    private final ServerAclResolver resolver = new ServerAclResolver(state.store(), new PolicyCompilerService(),
            clock);
    private Job job;

    @BeforeEach
    void setUp() throws Exception {
        keyring.tick();
        new KeyringDuties(state.store()::snapshot, keyring, raft, KeyringTest.config("720h", "1h")).ensureActive()
                .orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        resolver.keyring = keyring;
        job = FsmTest.job("web", 50);
        put(alloc("a1", Allocation.CLIENT_RUNNING));
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    private Allocation alloc(String id, String clientStatus) {
        try {
            return io.caravan.api.json.NomadJson.mapper().readValue("""
                    {"ID": "%s", "Namespace": "default", "JobID": "web", "TaskGroup": "web", "NodeID": "n1",
                     "DesiredStatus": "run", "ClientStatus": "%s"}""".formatted(id, clientStatus), Allocation.class)
                    .toBuilder().job(job).build();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void put(Allocation alloc) {
        long index = state.store().snapshot().tableIndex(NomadTables.ALLOCS.name()) + 100;
        try (StateTxn txn = state.store().begin(index)) {
            txn.put(NomadTables.ALLOCS, alloc);
            txn.commit();
        }
    }

    private String sign(String allocId, Task task) {
        Allocation alloc = state.store().snapshot().get(NomadTables.ALLOCS, allocId).orElseThrow();
        return keyring.sign(WorkloadIdentities.claims(alloc, task, "default", clock.millis() / 1000, ""));
    }

    private Task task() {
        return job.taskGroups().get(0).tasks().get(0);
    }

    @Test
    void theClaimsAreNomads() {
        Task withTtl = task();
        Map<String, Object> claims = WorkloadIdentities.claims(alloc("a1", "running"), withTtl, "default", 1000,
                "https://nomad.example.com");
        assertEquals("default", claims.get("nomad_namespace"));
        assertEquals("web", claims.get("nomad_job_id"));
        assertEquals("a1", claims.get("nomad_allocation_id"));
        assertEquals("server", claims.get("nomad_task"));
        assertEquals("global:default:web:web:server:default", claims.get("sub"));
        assertEquals(List.of("nomadproject.io"), claims.get("aud"));
        assertEquals(1000L, claims.get("iat"));
        assertEquals(1000L, claims.get("nbf"));
        assertFalse(claims.containsKey("exp"), "no ttl: no expiry, as Nomad");
        assertEquals("https://nomad.example.com", claims.get("iss"));
    }

    @Test
    void aTtlAndAudiencesFromTheIdentityBlock() throws Exception {
        Job withIdentity = Jobs.canonical(io.caravan.api.json.NomadJson.mapper().readTree("""
                {"Job": {"ID": "web", "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "server",
                  "Driver": "raw_exec", "Config": {"command": "/bin/sleep"},
                  "Identities": [{"Name": "vault", "File": true, "TTL": 3600000000000, "Audience": ["vault.io"]}]}]}]}}
                """), "global");
        Map<String, Object> claims = WorkloadIdentities.claims(alloc("a1", "running"),
                withIdentity.taskGroups().get(0).tasks().get(0), "vault", 1000, "");
        assertEquals(4600L, claims.get("exp"));
        assertEquals(List.of("vault.io"), claims.get("aud"));
    }

    @Test
    void theIdentityReadsItsOwnJobsVariablesOnly() {
        Identity id = resolver.resolve(sign("a1", task()));
        assertEquals("workload:global:default:web:web:server:default", id.name());
        assertTrue(id.acl().allowVariable("default", "nomad/jobs/web", "read"));
        assertTrue(id.acl().allowVariable("default", "nomad/jobs/web/web/server", "list"));
        assertTrue(id.acl().allowVariable("default", "nomad/jobs", "read"));
        assertFalse(id.acl().allowVariable("default", "nomad/jobs/other", "read"));
        assertFalse(id.acl().allowVariable("default", "nomad/jobs/web", "write"));
        assertFalse(id.acl().allowVariable("prod", "nomad/jobs/web", "read"));
        assertEquals("workload:global:default:web:web:server:default",
                resolver.lookup(sign("a1", task())).name());
    }

    @Test
    void aFinishedAllocationsOrAForgedIdentityIsDenied() {
        String jwt = sign("a1", task());
        String[] parts = jwt.split("\\.");
        CaravanException forged = assertThrows(CaravanException.class,
                () -> resolver.resolve(parts[0] + "." + parts[1] + "." + parts[2].substring(3) + "abc"));
        assertEquals(ErrorCode.PERMISSION_DENIED, forged.code());
        put(alloc("a1", Allocation.CLIENT_COMPLETE).toBuilder().desiredStatus(Allocation.DESIRED_STOP).build());
        assertEquals(ErrorCode.PERMISSION_DENIED, assertThrows(CaravanException.class, () -> resolver.resolve(jwt))
                .code());
    }

    @Test
    void anExpiredIdentityIsDenied() {
        Allocation alloc = state.store().snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow();
        Map<String, Object> claims = new java.util.HashMap<>(WorkloadIdentities.claims(alloc, task(), "default",
                clock.millis() / 1000, ""));
        claims.put("exp", clock.millis() / 1000 + 60);
        String jwt = keyring.sign(claims);
        resolver.resolve(jwt);
        clock.advance(Duration.ofMinutes(2));
        assertThrows(CaravanException.class, () -> resolver.resolve(jwt));
    }

    private Job jobWithAlternateIdentity() throws Exception {
        return Jobs.canonical(io.caravan.api.json.NomadJson.mapper().readTree("""
                {"Job": {"ID": "web", "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "server",
                  "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}, "Identity": {"File": true},
                  "Identities": [{"Name": "vault_default", "Audience": ["vault.io"], "TTL": 3600000000000}]}]}]}}
                """), "global");
    }

    private static List<io.caravan.api.endpoint.NodeEndpoint.IdentityRequest> ask(String allocId, String name) {
        return List.of(new io.caravan.api.endpoint.NodeEndpoint.IdentityRequest(allocId, "server", name));
    }

    @Test
    void theNodeOfARunningAllocationGetsItsTasksIdentitiesSigned() throws Exception {
        job = jobWithAlternateIdentity();
        put(alloc("a2", Allocation.CLIENT_RUNNING));
        var signed = NodeEndpoints.signIdentities(state.store().snapshot(), keyring, "n1",
                List.of(ask("a2", "default").get(0), ask("a2", "vault_default").get(0)));
        assertEquals(2, signed.size());
        assertEquals(0L, signed.get(0).expiresAtSeconds(), "the default identity has no ttl: it never expires");
        assertEquals(clock.millis() / 1000 + 3600, signed.get(1).expiresAtSeconds());
        Map<String, Object> alternate = keyring.verify(signed.get(1).jwt()).orElseThrow();
        assertEquals(List.of("vault.io"), alternate.get("aud"));
        assertEquals("global:default:web:web:server:vault_default", alternate.get("sub"));
        assertEquals("workload:global:default:web:web:server:default",
                resolver.resolve(signed.get(0).jwt()).name());
    }

    @Test
    void anotherNodesAllocationIsForbidden() {
        CaravanException e = assertThrows(CaravanException.class,
                () -> NodeEndpoints.signIdentities(state.store().snapshot(), keyring, "n2", ask("a1", "default")));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals(403, e.code().httpStatus());
    }

    @Test
    void aTerminalAllocationIsRefused() {
        put(alloc("a3", Allocation.CLIENT_COMPLETE));
        CaravanException e = assertThrows(CaravanException.class,
                () -> NodeEndpoints.signIdentities(state.store().snapshot(), keyring, "n1", ask("a3", "default")));
        assertEquals(400, e.code().httpStatus());
    }

    @Test
    void anIdentityTheTaskDoesNotDeclareIsABadRequest() {
        CaravanException e = assertThrows(CaravanException.class, () -> NodeEndpoints.signIdentities(
                state.store().snapshot(), keyring, "n1", ask("a1", "vault_default")));
        assertEquals(400, e.code().httpStatus());
        assertTrue(e.getMessage().contains("vault_default"), e.getMessage());
    }

    private static Job withIdentities(String identities) throws Exception {
        return Jobs.canonical(io.caravan.api.json.NomadJson.mapper().readTree("""
                {"Job": {"ID": "web", "TaskGroups": [{"Name": "web", "Tasks": [{"Name": "server",
                  "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}, %s}]}]}}
                """.formatted(identities)), "global");
    }

    @Test
    void registrationCanonicalisesAndValidatesIdentitiesAsNomad() throws Exception {
        Task t = withIdentities("""
                "Identity": {"Env": true, "Audience": ["elsewhere"]},
                "Identities": [{"Name": "vault_default", "ChangeMode": "signal", "ChangeSignal": "sighup"}]""")
                .taskGroups().get(0).tasks().get(0);
        assertEquals("default", t.identity().get("Name"));
        assertEquals(List.of("nomadproject.io"), t.identity().get("Audience"), "the default identity is Nomad's");
        assertEquals("SIGHUP", t.identities().get(0).get("ChangeSignal"));

        CaravanException e = assertThrows(CaravanException.class, () -> withIdentities("""
                "Identity": {"Env": true},
                "Identities": [{"Name": "default"}, {"Name": "a b"}, {"Name": "x", "ChangeMode": "signal"},
                  {"Name": "y", "ChangeMode": "noop", "ChangeSignal": "SIGHUP"}, {"Name": "z", "ChangeMode": "reload"},
                  {"Name": "w", "Audience": [""]}]"""));
        assertEquals(400, e.code().httpStatus());
        for (String expected : List.of("Identities[0].Name: duplicate identity name \"default\"",
                "Identities[1].Name: invalid name \"a b\"", "Identities[2].ChangeSignal: change_signal must be specified",
                "Identities[3].ChangeSignal: can only use", "Identities[4].ChangeMode: invalid change_mode \"reload\"",
                "Identities[5].Audience: an empty string")) {
            assertTrue(e.getMessage().contains(expected), expected + " in " + e.getMessage());
        }
    }

    private void attach(String name, String path, io.caravan.api.acl.AclPolicy.JobAcl acl) throws Exception {
        String rules = "namespace \"default\" {\n  variables {\n    path \"" + path
                + "\" { capabilities = [\"read\"] }\n  }\n}\n";
        long index = state.store().latestIndex() + 1;
        try (StateTxn txn = state.store().begin(index)) {
            txn.put(NomadTables.ACL_POLICIES, new io.caravan.api.acl.AclPolicy(name, "", rules, AclRoutes.jobAcl(acl),
                    index, index));
            txn.commit();
        }
    }

    @Test
    void policiesAttachedToTheJobGroupOrTaskAddToTheImplicitPolicy() throws Exception {
        String jwt = sign("a1", task());
        assertFalse(resolver.resolve(jwt).acl().allowVariable("default", "shared/db", "read"));
        attach("job-wide", "shared/db", new io.caravan.api.acl.AclPolicy.JobAcl("", "web", "", ""));
        attach("other-task", "shared/other", new io.caravan.api.acl.AclPolicy.JobAcl("default", "web", "web",
                "sidecar"));
        attach("other-job", "shared/api", new io.caravan.api.acl.AclPolicy.JobAcl("default", "api", "", ""));
        attach("this-task", "shared/mine", new io.caravan.api.acl.AclPolicy.JobAcl("default", "web", "web",
                "server"));
        Identity id = resolver.resolve(jwt);
        assertTrue(id.acl().allowVariable("default", "shared/db", "read"));
        assertTrue(id.acl().allowVariable("default", "shared/mine", "read"));
        assertFalse(id.acl().allowVariable("default", "shared/other", "read"), "another task's policy");
        assertFalse(id.acl().allowVariable("default", "shared/api", "read"), "another job's policy");
        assertTrue(id.acl().allowVariable("default", "nomad/jobs/web", "read"), "the implicit policy stays");
        assertEquals(3, resolver.lookup(jwt).rules().size(), "what a client agent receives too");

        CaravanException e = assertThrows(CaravanException.class, () -> AclRoutes.jobAcl(
                new io.caravan.api.acl.AclPolicy.JobAcl("default", "web", "", "server")));
        assertEquals("JobACL.Task", e.field().orElseThrow());
    }
}
