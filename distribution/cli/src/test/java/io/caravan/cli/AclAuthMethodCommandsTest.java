package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code acl auth-method}, {@code acl binding-rule} and {@code login} against a fake agent. */
class AclAuthMethodCommandsTest extends FakeAgentTest {
    private static final String METHOD = """
            {"Name":"corp","Type":"JWT","TokenLocality":"local","TokenNameFormat":"${auth_method_name}",
             "MaxTokenTTL":"1h0m0s","Default":true,"CreateIndex":7,"ModifyIndex":8,
             "Config":{"JWTValidationPubKeys":[],"JWKSURL":"https://idp/jwks","BoundAudiences":["caravan"],
              "BoundIssuer":["https://idp"],"SigningAlgs":["RS256","ES256"],"ExpirationLeeway":"",
              "ClaimMappings":{"sub":"user"},"ListClaimMappings":{}}}""";
    private static final String RULE = """
            {"ID":"dc0e494d-0878-4e56-37d4-482e371e5bdb","Description":"devs read","AuthMethod":"corp",
             "Selector":"\\"dev\\" in list.groups","BindType":"policy","BindName":"readonly",
             "CreateTime":"2026-11-25T02:00:00Z","ModifyTime":"2026-11-25T02:00:00Z","CreateIndex":9,
             "ModifyIndex":9}""";
    private final ObjectMapper mapper = new ObjectMapper();
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "3f4a0fcd-7c42-773c-25db-2d31ba0c05fe");
    }

    @Test
    void createPostsTheMethodWithItsConfigFromAFileAndPrintsIt(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("config.json");
        Files.writeString(config, "{\"JWKSURL\": \"https://idp/jwks\", \"BoundAudiences\": [\"caravan\"]}");
        agent.json("/v1/acl/auth-method", METHOD);
        Cli.Result r = Cli.run(env, "acl", "auth-method", "create", "-name", "corp", "-type", "jwt",
                "-max-token-ttl", "1h", "-token-locality", "local", "-default", "-config", "@" + config);
        assertEquals(0, r.code(), r.err());
        assertEquals(mapper.readTree("""
                {"Name":"corp","Type":"JWT","MaxTokenTTL":"1h","TokenLocality":"local","TokenNameFormat":"",
                 "Default":true,"Config":{"JWKSURL":"https://idp/jwks","BoundAudiences":["caravan"]}}"""),
                mapper.readTree(agent.last("/v1/acl/auth-method").body()));
        assertEquals("""
                Name          = corp
                Type          = JWT
                Locality      = local
                Max Token TTL = 1h0m0s
                Default       = true
                Create Index  = 7
                Modify Index  = 8

                Auth Method Config

                JWT Validation Public Keys = <none>
                JWKS URL                   = https://idp/jwks
                OIDC Discovery URL         = <none>
                OIDC Client ID             = <none>
                OIDC Client Secret         = <none>
                OIDC Scopes                = <none>
                Bound audiences            = caravan
                Bound issuer               = https://idp
                Allowed redirects URIs     = <none>
                Discovery CA pem           = <none>
                JWKS CA cert               = <none>
                Signing algorithms         = RS256,ES256
                Expiration Leeway          = 0s
                NotBefore Leeway           = 0s
                ClockSkew Leeway           = 0s
                Claim mappings             = {sub: user}
                List claim mappings        = <none>
                """, r.out());
    }

    @Test
    void createChecksItsFlagsBeforeAnyRequest() {
        Cli.Result r = Cli.run(env, "acl", "auth-method", "create", "-name", "corp", "-type", "JWT");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("ACL auth method max token TTL must be specified using the -max-token-ttl "
                + "flag\n"), r.err());
        Cli.Result badJson = Cli.run(env, "acl", "auth-method", "create", "-name", "corp", "-type", "JWT",
                "-max-token-ttl", "1h", "-token-locality", "local", "-config", "{nope");
        assertEquals(1, badJson.code());
        assertTrue(badJson.err().startsWith("Unable to parse the auth method config as JSON"), badJson.err());
        assertEquals(0, agent.requests().size());
    }

    @Test
    void listAndUpdateAndDelete() throws Exception {
        agent.json("/v1/acl/auth-methods", "[{\"Name\":\"corp\",\"Type\":\"JWT\",\"Default\":true}]");
        Cli.Result list = Cli.run(env, "acl", "auth-method", "list");
        assertEquals(0, list.code(), list.err());
        assertEquals("""
                Name  Type  Default
                corp  JWT   true
                """, list.out());

        agent.json("/v1/acl/auth-method/corp", METHOD);
        Cli.Result update = Cli.run(env, "acl", "auth-method", "update", "-max-token-ttl", "2h", "corp");
        assertEquals(0, update.code(), update.err());
        var sent = mapper.readTree(agent.last("/v1/acl/auth-method/corp").body());
        assertEquals("2h", sent.path("MaxTokenTTL").asText());
        assertEquals("https://idp/jwks", sent.path("Config").path("JWKSURL").asText());

        agent.json("/v1/acl/auth-method/corp", "null");
        Cli.Result delete = Cli.run(env, "acl", "auth-method", "delete", "corp");
        assertEquals(0, delete.code(), delete.err());
        assertEquals("ACL auth method corp successfully deleted\n", delete.out());
        assertEquals("DELETE", agent.last("/v1/acl/auth-method/corp").method());
    }

    @Test
    void bindingRulesAreCreatedAndShownAsNomadShowsThem() throws Exception {
        agent.json("/v1/acl/binding-rule", RULE);
        Cli.Result r = Cli.run(env, "acl", "binding-rule", "create", "-description", "devs read", "-auth-method",
                "corp", "-bind-type", "policy", "-bind-name", "readonly", "-selector", "\"dev\" in list.groups");
        assertEquals(0, r.code(), r.err());
        assertEquals(mapper.readTree("""
                {"Description":"devs read","AuthMethod":"corp","Selector":"\\"dev\\" in list.groups",
                 "BindType":"policy","BindName":"readonly"}"""),
                mapper.readTree(agent.last("/v1/acl/binding-rule").body()));
        assertEquals("""
                ID           = dc0e494d-0878-4e56-37d4-482e371e5bdb
                Description  = devs read
                Auth Method  = corp
                Selector     = "\\"dev\\" in list.groups"
                Bind Type    = policy
                Bind Name    = readonly
                Create Time  = 2026-11-25 02:00:00 +0000 UTC
                Modify Time  = 2026-11-25 02:00:00 +0000 UTC
                Create Index = 9
                Modify Index = 9
                """, r.out());
        Cli.Result missing = Cli.run(env, "acl", "binding-rule", "create", "-auth-method", "corp");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("ACL binding rule bind type must be specified"), missing.err());

        agent.json("/v1/acl/binding-rules", "[" + RULE + "]");
        Cli.Result list = Cli.run(env, "acl", "binding-rule", "list");
        assertEquals(0, list.code(), list.err());
        assertEquals("""
                ID                                    Description  Auth Method
                dc0e494d-0878-4e56-37d4-482e371e5bdb  devs read    corp
                """, list.out());
    }

    @Test
    void loginUsesTheDefaultMethodAndPrintsTheToken() throws Exception {
        agent.json("/v1/acl/auth-methods", "[{\"Name\":\"other\",\"Type\":\"JWT\",\"Default\":false},"
                + "{\"Name\":\"corp\",\"Type\":\"JWT\",\"Default\":true}]");
        agent.json("/v1/acl/login", """
                {"AccessorID":"a1","SecretID":"s1","Name":"corp-alice","Type":"client","Policies":["readonly"],
                 "Roles":[],"Global":false,"CreateTime":"2026-11-25T02:00:00Z",
                 "ExpirationTime":"2026-11-25T03:00:00Z","CreateIndex":10,"ModifyIndex":10}""");
        Cli.Result r = Cli.run(env, "login", "-login-token", "e.y.j");
        assertEquals(0, r.code(), r.err());
        assertEquals(mapper.readTree("{\"AuthMethodName\":\"corp\",\"LoginToken\":\"e.y.j\"}"),
                mapper.readTree(agent.last("/v1/acl/login").body()));
        assertTrue(r.out().startsWith("Successfully logged in via JWT and corp\n\nAccessor ID  = a1\n"), r.out());
        assertTrue(r.out().contains("Secret ID    = s1\n"), r.out());

        agent.reply("/v1/acl/login", 403, "Permission denied: JWT is expired");
        Cli.Result refused = Cli.run(env, "login", "-method", "corp", "-type", "JWT", "-login-token", "e.y.j");
        assertEquals(1, refused.code());
        assertEquals("Error logging in: Unexpected response code: 403 (Permission denied: JWT is expired)\n",
                refused.err());
    }
}
