package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.hashicorp.nomad.apimodel.AclPolicy;
import com.hashicorp.nomad.apimodel.AclPolicyListStub;
import com.hashicorp.nomad.apimodel.AclToken;
import com.hashicorp.nomad.apimodel.AclTokenListStub;
import com.hashicorp.nomad.javasdk.ErrorResponseException;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import com.hashicorp.nomad.javasdk.ServerResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;

/**
 * The official Nomad Java SDK's ACL calls, unchanged, against a dev agent with {@code acl { enabled = true }}:
 * {@code AclTokensApi} (bootstrap, create, info, self, update, list, delete) and {@code AclPoliciesApi} (upsert, info,
 * list, delete), with the fields of what they return; refusals reach the SDK as Nomad's status codes and texts; and the
 * bootstrap reset file allows one more bootstrap.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AclSdkE2EIT {
    private static final String RULES = "namespace \"default\" {\n  policy = \"read\"\n}\n";
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static Path dir;
    private static AgentProcess agent;
    private static NomadApiClient nomad;
    private static Instant started;
    private static AclToken bootstrap;
    private static AclToken reader;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-acl-sdk-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\", \"acl\": {\"enabled\": "
                + "true}");
        nomad = client(null);
        started = Instant.now();
    }

    @AfterAll
    static void stop() throws Exception {
        if (nomad != null) {
            nomad.close();
        }
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static NomadApiClient client(String token) {
        NomadApiConfiguration.Builder config = new NomadApiConfiguration.Builder().setAddress(agent.address());
        if (token != null) {
            config.setAuthToken(token);
        }
        return new NomadApiClient(config.build());
    }

    /** What the SDK throws for an error status: Nomad's code and plain-text message. */
    private static ErrorResponseException refused(int status, Executable call) {
        ErrorResponseException e = assertThrows(ErrorResponseException.class, call);
        assertEquals(status, e.getServerErrorCode(), e.getServerErrorMessage());
        return e;
    }

    private static void assertUuid(String value) {
        assertTrue(value != null && UUID.matcher(value).matches(), "not a UUID: " + value);
    }

    private static void assertRecent(java.util.Date time) {
        assertNotNull(time);
        Instant at = time.toInstant();
        assertFalse(at.isBefore(started.minus(Duration.ofMinutes(1))) || at.isAfter(Instant.now().plusSeconds(60)),
                "CreateTime " + at + " is not around now");
    }

    @Test
    @Order(1)
    void bootstrapGivesAManagementToken() throws Exception {
        refused(403, () -> nomad.getAclTokensApi().list());   // anonymous, no anonymous policy

        ServerResponse<AclToken> answer = nomad.getAclTokensApi().bootstrap();
        bootstrap = answer.getValue();
        assertUuid(bootstrap.getAccessorId());
        assertUuid(bootstrap.getSecretId());
        assertNotEquals(bootstrap.getAccessorId(), bootstrap.getSecretId());
        assertEquals("Bootstrap Token", bootstrap.getName());
        assertEquals("management", bootstrap.getType());
        assertTrue(bootstrap.getGlobal());
        assertTrue(bootstrap.getPolicies() == null || bootstrap.getPolicies().isEmpty(), answer.getRawEntity());
        assertRecent(bootstrap.getCreateTime());
        assertTrue(bootstrap.getCreateIndex().signum() > 0, answer.getRawEntity());
        assertEquals(bootstrap.getCreateIndex(), bootstrap.getModifyIndex());

        ErrorResponseException again = refused(400, () -> nomad.getAclTokensApi().bootstrap());
        assertEquals("ACL bootstrap already done (reset index: " + bootstrap.getCreateIndex() + ")",
                again.getServerErrorMessage().strip());
        nomad.setAuthToken(bootstrap.getSecretId());
    }

    @Test
    @Order(2)
    void policiesUpsertInfoAndList() throws Exception {
        nomad.getAclPoliciesApi().upsert(new AclPolicy().setName("readonly").setDescription("reads jobs")
                .setRules(RULES));
        AclPolicy policy = nomad.getAclPoliciesApi().info("readonly").getValue();
        assertEquals("readonly", policy.getName());
        assertEquals("reads jobs", policy.getDescription());
        assertEquals(RULES, policy.getRules());
        assertTrue(policy.getCreateIndex().signum() > 0);
        assertEquals(policy.getCreateIndex(), policy.getModifyIndex());

        nomad.getAclPoliciesApi().upsert(new AclPolicy().setName("readonly").setDescription("reads jobs, v2")
                .setRules(RULES));
        AclPolicy updated = nomad.getAclPoliciesApi().info("readonly").getValue();
        assertEquals("reads jobs, v2", updated.getDescription());
        assertEquals(policy.getCreateIndex(), updated.getCreateIndex());
        assertTrue(updated.getModifyIndex().compareTo(policy.getModifyIndex()) > 0);

        nomad.getAclPoliciesApi().upsert(new AclPolicy().setName("other").setRules(RULES));
        List<AclPolicyListStub> all = nomad.getAclPoliciesApi().list().getValue();
        assertEquals(List.of("other", "readonly"), all.stream().map(AclPolicyListStub::getName).sorted().toList());
        AclPolicyListStub stub = all.stream().filter(p -> p.getName().equals("readonly")).findFirst().orElseThrow();
        assertEquals("reads jobs, v2", stub.getDescription());
        assertEquals(updated.getCreateIndex(), stub.getCreateIndex());
        assertEquals(updated.getModifyIndex(), stub.getModifyIndex());
        assertEquals(List.of("readonly"), nomad.getAclPoliciesApi().list("read").getValue().stream()
                .map(AclPolicyListStub::getName).toList(), "by prefix");

        refused(404, () -> nomad.getAclPoliciesApi().info("no-such-policy"));
        ErrorResponseException bad = refused(400, () -> nomad.getAclPoliciesApi().upsert(new AclPolicy()
                .setName("bad").setRules("namespace \"default\" { capabilities = [\"reed-job\"] }")));
        assertTrue(bad.getServerErrorMessage().contains("reed-job"), bad.getServerErrorMessage());
    }

    @Test
    @Order(3)
    void tokensCreateInfoSelfListAndUpdate() throws Exception {
        ServerResponse<AclToken> created = nomad.getAclTokensApi().create(new AclToken().setName("reader")
                .setType("client").addPolicies("readonly"));
        reader = created.getValue();
        assertUuid(reader.getAccessorId());
        assertUuid(reader.getSecretId());
        assertEquals("reader", reader.getName());
        assertEquals("client", reader.getType());
        assertEquals(List.of("readonly"), reader.getPolicies());
        assertFalse(reader.getGlobal());
        assertRecent(reader.getCreateTime());
        assertTrue(reader.getCreateIndex().compareTo(bootstrap.getCreateIndex()) > 0);

        AclToken info = nomad.getAclTokensApi().info(reader.getAccessorId()).getValue();
        assertEquals(reader.getAccessorId(), info.getAccessorId());
        assertEquals(reader.getSecretId(), info.getSecretId(), "management reads the secret");
        assertEquals("reader", info.getName());
        assertEquals(List.of("readonly"), info.getPolicies());
        assertEquals(reader.getCreateIndex(), info.getCreateIndex());
        assertEquals(reader.getCreateTime(), info.getCreateTime());

        assertEquals(bootstrap.getAccessorId(), nomad.getAclTokensApi().self().getValue().getAccessorId());
        try (NomadApiClient asReader = client(reader.getSecretId())) {
            AclToken self = asReader.getAclTokensApi().self().getValue();
            assertEquals(reader.getAccessorId(), self.getAccessorId());
            assertEquals(reader.getSecretId(), self.getSecretId());
            assertEquals(reader.getAccessorId(), asReader.getAclTokensApi().info(reader.getAccessorId()).getValue()
                    .getAccessorId(), "a token reads itself");
            refused(403, () -> asReader.getAclTokensApi().info(bootstrap.getAccessorId()));
            refused(403, () -> asReader.getAclTokensApi().list());
            refused(403, () -> asReader.getAclPoliciesApi().upsert(new AclPolicy().setName("x").setRules(RULES)));
            assertEquals(List.of("readonly"), asReader.getAclPoliciesApi().list().getValue().stream()
                    .map(AclPolicyListStub::getName).toList(), "a client token sees the policies it holds");
            assertEquals(RULES, asReader.getAclPoliciesApi().info("readonly").getValue().getRules());
            refused(403, () -> asReader.getAclPoliciesApi().info("other"));
            assertEquals(200, asReader.getJobsApi().list().getHttpResponse().getStatusLine().getStatusCode());
        }

        ServerResponse<List<AclTokenListStub>> listed = nomad.getAclTokensApi().list();
        List<AclTokenListStub> tokens = listed.getValue();
        assertEquals(2, tokens.size(), listed.getRawEntity());
        assertFalse(listed.getRawEntity().contains(reader.getSecretId()), "no secrets in a list");
        AclTokenListStub stub = tokens.stream().filter(t -> t.getAccessorId().equals(reader.getAccessorId()))
                .findFirst().orElseThrow();
        assertEquals("reader", stub.getName());
        assertEquals("client", stub.getType());
        assertEquals(List.of("readonly"), stub.getPolicies());
        assertFalse(stub.getGlobal());
        assertEquals(reader.getCreateTime(), stub.getCreateTime());
        assertEquals(reader.getCreateIndex(), stub.getCreateIndex());

        AclToken renamed = nomad.getAclTokensApi().update(new AclToken().setAccessorId(reader.getAccessorId())
                .setName("reader-2").setType("client").addPolicies("readonly", "other")).getValue();
        assertEquals(reader.getAccessorId(), renamed.getAccessorId());
        assertEquals(reader.getSecretId(), renamed.getSecretId(), "an update keeps the secret");
        assertEquals("reader-2", renamed.getName());
        assertEquals(List.of("readonly", "other"), renamed.getPolicies());
        assertEquals(reader.getCreateIndex(), renamed.getCreateIndex());
        assertTrue(renamed.getModifyIndex().compareTo(reader.getModifyIndex()) > 0);

        ErrorResponseException missing = refused(400, () -> nomad.getAclTokensApi().create(new AclToken()
                .setName("x").setType("client").addPolicies("no-such-policy")));
        assertTrue(missing.getServerErrorMessage().contains("no-such-policy"), missing.getServerErrorMessage());
    }

    @Test
    @Order(4)
    void deletesAreSeenAtOnce() throws Exception {
        nomad.getAclTokensApi().delete(reader.getAccessorId());
        ErrorResponseException gone = refused(404, () -> nomad.getAclTokensApi().info(reader.getAccessorId()));
        assertEquals("ACL token not found", gone.getServerErrorMessage().strip());
        try (NomadApiClient asReader = client(reader.getSecretId())) {
            ErrorResponseException revoked = refused(403, () -> asReader.getAclTokensApi().self());
            assertEquals("ACL token not found", revoked.getServerErrorMessage().strip());
        }
        assertEquals(List.of(bootstrap.getAccessorId()), nomad.getAclTokensApi().list().getValue().stream()
                .map(AclTokenListStub::getAccessorId).toList());

        nomad.getAclPoliciesApi().delete("other");
        refused(404, () -> nomad.getAclPoliciesApi().info("other"));
        assertEquals(List.of("readonly"), nomad.getAclPoliciesApi().list().getValue().stream()
                .map(AclPolicyListStub::getName).toList());
    }

    @Test
    @Order(5)
    void theResetFileAllowsOneMoreBootstrap() throws Exception {
        ErrorResponseException done = refused(400, () -> nomad.getAclTokensApi().bootstrap());
        Matcher index = Pattern.compile("reset index: (\\d+)").matcher(done.getServerErrorMessage());
        assertTrue(index.find(), done.getServerErrorMessage());
        Path reset = dir.resolve("data").resolve("server").resolve("acl-bootstrap-reset");
        Files.writeString(reset, Long.toString(Long.parseLong(index.group(1)) + 1));
        refused(400, () -> nomad.getAclTokensApi().bootstrap());   // a wrong index

        Files.writeString(reset, index.group(1));
        AclToken second = nomad.getAclTokensApi().bootstrap().getValue();
        assertEquals("management", second.getType());
        assertNotEquals(bootstrap.getSecretId(), second.getSecretId());
        ErrorResponseException third = refused(400, () -> nomad.getAclTokensApi().bootstrap());
        assertEquals("ACL bootstrap already done (reset index: " + second.getCreateIndex() + ")",
                third.getServerErrorMessage().strip(), "the file allowed exactly one");
        try (NomadApiClient asSecond = client(second.getSecretId())) {
            assertEquals(second.getAccessorId(), asSecond.getAclTokensApi().self().getValue().getAccessorId());
            assertEquals(2, asSecond.getAclTokensApi().list().getValue().size(), "both management tokens");
        }
    }
}
