package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.resolvers.JwksVerificationKeyResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The keyring in the real agent: the first leader's key, its keystore on disk, the JWKS, rotation through the CLI,
 * and a client introduction token signed by the active key.
 */
class KeyringE2EIT {
    private static Path dir;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-keyring-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\"");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static String cli(String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        String[] full = new String[args.length + 1];
        System.arraycopy(args, 0, full, 0, args.length);
        full[args.length] = "-address=" + agent.address();
        Process p = AgentProcess.runIn(dir, log, full);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " finishes");
        String out = AgentProcess.read(log);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static JsonNode keys() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode keys = agent.json("/v1/operator/keyring/keys");
        while (keys.size() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            keys = agent.json("/v1/operator/keyring/keys");
        }
        return keys;
    }

    @Test
    void theFirstKeyIsPublishedRotatedAndSignsIntroTokens() throws Exception {
        JsonNode keys = keys();
        assertEquals(1, keys.size(), keys.toString());
        assertEquals("active", keys.get(0).get("State").asText());
        assertTrue(Files.exists(dir.resolve("data/server/keystore/kek")), "the keystore is on disk");

        JsonNode jwks = agent.json("/.well-known/jwks.json");
        assertTrue(jwks.has("keys"), jwks.toString());
        assertEquals(keys.get(0).get("KeyID").asText(), jwks.get("keys").get(0).get("kid").asText());

        String rotated = cli("rotate", "operator", "root", "keyring", "rotate", "-verbose");
        JsonNode after = agent.json("/v1/operator/keyring/keys");
        assertEquals(2, after.size(), rotated);
        String active = after.get(1).get("KeyID").asText();
        assertTrue(rotated.contains(active), rotated);

        String jwt = cli("intro", "node", "intro", "create", "-node-pool", "default").trim();
        JsonNode header = AgentProcess.JSON.readTree(new String(Base64.getUrlDecoder().decode(jwt.split("\\.")[0]),
                StandardCharsets.UTF_8));
        assertEquals(active, header.get("kid").asText());
        assertEquals("RS256", header.get("alg").asText());
        // an independent library verifies it against the JWKS the agent publishes
        String keySet = AgentProcess.JSON.writeValueAsString(agent.json("/.well-known/jwks.json"));
        JwtClaims claims = new JwtConsumerBuilder()
                .setVerificationKeyResolver(new JwksVerificationKeyResolver(new JsonWebKeySet(keySet).getJsonWebKeys()))
                .setSkipDefaultAudienceValidation().build().processToClaims(jwt);
        assertTrue(claims.getExpirationTime() != null, claims.toJson());

        // A full rotation re-encrypts the variables written before it; the replaced key ends inactive.
        var put = agent.call("PUT", "/v1/var/app/rekey", null, "{\"Items\": {\"k\": \"v\"}}");
        assertEquals(200, put.statusCode(), put.body());
        String full = cli("full", "operator", "root", "keyring", "rotate", "-full", "-verbose");
        AgentProcess.await("the replaced key is inactive", Duration.ofSeconds(30), () -> {
            for (JsonNode k : agent.json("/v1/operator/keyring/keys")) {
                if (k.get("KeyID").asText().equals(active)) {
                    return k.get("State").asText().equals("inactive");
                }
            }
            return false;
        });
        assertTrue(agent.log().contains("variables re-encrypted"), full);
        assertEquals("v", agent.json("/v1/var/app/rekey").path("Items").path("k").asText());
    }
}
