package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.resolvers.JwksVerificationKeyResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A task's workload identity on a dev agent with ACLs: a raw_exec task reads its {@code secrets/nomad_token} and
 * calls the API with it (its own job's variable, allowed by the implicit policy; a variable elsewhere, refused until
 * a policy is attached to the job with {@code caravan acl policy apply -job}); the token is also its
 * {@code NOMAD_TOKEN}, and jose4j verifies it against {@code /.well-known/jwks.json} with Nomad's claims.
 */
class WorkloadIdentityE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String JOB_ID = "wid-job";
    private static final String MANAGEMENT = UUID.randomUUID().toString();
    /** Writes what the task sees into $OUT: its token (file and env), its own variable once, the shared one each second. */
    private static final String SCRIPT = """
            cp "$NOMAD_SECRETS_DIR/nomad_token" "$OUT/file_token.tmp" && mv "$OUT/file_token.tmp" "$OUT/file_token"
            printf %s "$NOMAD_TOKEN" > "$OUT/env_token"
            T=$(cat "$NOMAD_SECRETS_DIR/nomad_token")
            curl -s -w '\\n%{http_code}' -H "X-Nomad-Token: $T" "$API/v1/var/nomad/jobs/wid-job" > "$OUT/own.tmp"
            mv "$OUT/own.tmp" "$OUT/own"
            while true; do
              curl -s -w '\\n%{http_code}' -H "X-Nomad-Token: $T" "$API/v1/var/shared/config" > "$OUT/shared.tmp"
              mv "$OUT/shared.tmp" "$OUT/shared"
              sleep 1
            done
            """;
    private static DevAgent dev;
    private static Path out;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.startWithAcls("caravan-wid-", MANAGEMENT);
        out = Files.createDirectories(dev.dir().resolve("out"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            try {
                dev.agent().call("DELETE", "/v1/job/" + JOB_ID + "?purge=true", MANAGEMENT, null);
            } finally {
                dev.close();
            }
        }
    }

    private static HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        return dev.agent().call(method, path, token, body);
    }

    private static void ok(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
    }

    /** The file's last line (the HTTP status curl wrote) once the task wrote it; empty until then. */
    private static String status(String name) throws Exception {
        Path f = out.resolve(name);
        if (!Files.exists(f)) {
            return "";
        }
        List<String> lines = Files.readAllLines(f);
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
    }

    private static String cli(String name, String... args) throws Exception {
        Path log = dev.dir().resolve(name + ".log");
        String[] full = new String[args.length + 2];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "-address=" + dev.agent().address();
        full[args.length + 1] = "-token=" + MANAGEMENT;
        Process p = AgentProcess.runIn(dev.dir(), log, full);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " finishes");
        String output = AgentProcess.read(log);
        assertEquals(0, p.exitValue(), output);
        return output;
    }

    private static String job() {
        ObjectNode task = AgentProcess.JSON.createObjectNode().put("Name", "t").put("Driver", "raw_exec");
        task.putObject("Config").put("command", "/bin/sh").putArray("args").add("-c").add(SCRIPT);
        task.putObject("Env").put("OUT", out.toString()).put("API", dev.agent().address());
        task.putObject("Identity").put("Env", true).put("File", true);
        ObjectNode job = AgentProcess.JSON.createObjectNode();
        ObjectNode j = job.putObject("Job").put("ID", JOB_ID).put("Type", "service");
        j.putArray("Datacenters").add("dc1");
        ObjectNode group = j.putArray("TaskGroups").addObject().put("Name", "g").put("Count", 1);
        group.putArray("Tasks").add(task);
        return job.toString();
    }

    @Test
    void aTaskCallsTheApiWithItsIdentityAndAJobAttachedPolicyWidensIt() throws Exception {
        ok(call("PUT", "/v1/var/nomad/jobs/" + JOB_ID, MANAGEMENT,
                "{\"Namespace\": \"default\", \"Path\": \"nomad/jobs/" + JOB_ID + "\", \"Items\": {\"secret\": \"s3cret\"}}"));
        ok(call("PUT", "/v1/var/shared/config", MANAGEMENT,
                "{\"Namespace\": \"default\", \"Path\": \"shared/config\", \"Items\": {\"k\": \"attached\"}}"));
        ok(call("PUT", "/v1/jobs", MANAGEMENT, job()));

        AgentProcess.await("the task read its own variable", WAIT, () -> {
            try {
                return !status("own").isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        String own = Files.readString(out.resolve("own"));
        assertEquals("200", status("own"), own);
        assertTrue(own.contains("s3cret"), own);

        String token = Files.readString(out.resolve("file_token")).strip();
        assertEquals(token, Files.readString(out.resolve("env_token")), "NOMAD_TOKEN is the file's token");

        JsonNode allocs = AgentProcess.JSON.readTree(call("GET", "/v1/job/" + JOB_ID + "/allocations", MANAGEMENT,
                null).body());
        String allocId = allocs.get(0).get("ID").asText();
        HttpResponse<String> jwks = call("GET", "/.well-known/jwks.json", null, null);
        ok(jwks);
        JwtClaims claims = new JwtConsumerBuilder()
                .setVerificationKeyResolver(new JwksVerificationKeyResolver(new JsonWebKeySet(jwks.body())
                        .getJsonWebKeys()))
                .setExpectedAudience("nomadproject.io").build().processToClaims(token);
        assertEquals("global:default:" + JOB_ID + ":g:t:default", claims.getSubject());
        assertEquals("default", claims.getStringClaimValue("nomad_namespace"));
        assertEquals(JOB_ID, claims.getStringClaimValue("nomad_job_id"));
        assertEquals(allocId, claims.getStringClaimValue("nomad_allocation_id"));
        assertEquals("t", claims.getStringClaimValue("nomad_task"));

        AgentProcess.await("the task tried the shared variable", WAIT, () -> {
            try {
                return !status("shared").isEmpty();
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals("403", status("shared"), "outside its implicit policy, without an attached policy");

        Path rules = Files.writeString(dev.dir().resolve("shared.hcl"),
                "namespace \"default\" {\n  variables {\n    path \"shared/*\" { capabilities = [\"read\"] }\n  }\n}\n");
        cli("apply", "acl", "policy", "apply", "-namespace", "default", "-job", JOB_ID, "shared-read",
                rules.toString());
        AgentProcess.await("the attached policy lets the task read the shared variable", WAIT, () -> {
            try {
                return status("shared").equals("200");
            } catch (Exception e) {
                return false;
            }
        });
        assertTrue(Files.readString(out.resolve("shared")).contains("attached"));
        assertEquals(200, call("GET", "/v1/var/shared/config", token, null).statusCode());

        ok(call("DELETE", "/v1/job/" + JOB_ID, MANAGEMENT, null));
        AgentProcess.await("a stopped allocation's identity is refused", WAIT, () -> {
            try {
                return call("GET", "/v1/var/nomad/jobs/" + JOB_ID, token, null).statusCode() == 403;
            } catch (Exception e) {
                return false;
            }
        });
    }
}
