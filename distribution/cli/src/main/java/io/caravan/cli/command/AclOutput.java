package io.caravan.cli.command;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;

/** Nomad's layouts of ACL tokens, policies, roles, auth methods and binding rules (the {@code acl} commands share them). */
final class AclOutput {
    private AclOutput() {
    }

    /**
     * A token as {@code key = value} lines; a client token's policies as Go prints a list ({@code [a b]}) and its
     * roles as a table after a blank line; a management token has neither ({@code n/a}).
     */
    static void token(PrintWriter out, JsonNode token) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("Accessor ID", Json.text(token.get("AccessorID"))));
        rows.add(List.of("Secret ID", Json.text(token.get("SecretID"))));
        rows.add(List.of("Name", Json.text(token.get("Name"))));
        rows.add(List.of("Type", Json.text(token.get("Type"))));
        rows.add(List.of("Global", Boolean.toString(token.path("Global").asBoolean())));
        rows.add(List.of("Create Time", Nomad.goTimeString(token.get("CreateTime"))));
        rows.add(List.of("Expiry Time", Nomad.goTimeString(token.get("ExpirationTime"))));
        rows.add(List.of("Create Index", Long.toString(token.path("CreateIndex").asLong())));
        rows.add(List.of("Modify Index", Long.toString(token.path("ModifyIndex").asLong())));
        if ("management".equals(Json.text(token.get("Type")))) {
            rows.add(List.of("Policies", "n/a"));
            rows.add(List.of("Roles", "n/a"));
            Nomad.keyValues(out, rows);
            return;
        }
        rows.add(List.of("Policies", "[" + Json.join(token.get("Policies"), " ") + "]"));
        Nomad.keyValues(out, rows);
        out.println();
        out.println("Roles");
        JsonNode roles = token.path("Roles");
        if (roles.isEmpty()) {
            out.println(Nomad.NONE);
            return;
        }
        Table table = new Table("ID", "Name").placeholder(Nomad.NONE);
        roles.forEach(role -> table.row(Json.text(role.get("ID")), Json.text(role.get("Name"))));
        table.print(out);
    }

    /** Token list stubs: a token is expired once its expiration time has passed. */
    static void tokens(PrintWriter out, JsonNode tokens, Instant now) {
        if (tokens.isEmpty()) {
            out.println("No tokens found");
            return;
        }
        Table table = new Table("Name", "Type", "Global", "Accessor ID", "Expired").placeholder(Nomad.NONE);
        for (JsonNode token : tokens) {
            Instant expiry = Nomad.instant(token.get("ExpirationTime"));
            table.row(Json.text(token.get("Name")), Json.text(token.get("Type")),
                    Boolean.toString(token.path("Global").asBoolean()), Json.text(token.get("AccessorID")),
                    Boolean.toString(expiry != null && expiry.isBefore(now)));
        }
        table.print(out);
    }

    /** A policy's fields, then its rules as written, after a "Rules" heading. */
    static void policy(PrintWriter out, JsonNode policy) {
        Nomad.keyValues(out,
                "Name", Json.text(policy.get("Name")),
                "Description", Json.text(policy.get("Description")),
                "CreateIndex", Long.toString(policy.path("CreateIndex").asLong()),
                "ModifyIndex", Long.toString(policy.path("ModifyIndex").asLong()));
        JsonNode job = policy.path("JobACL");
        if (job.isObject()) {
            // Nomad's "Associated Workload" section of a policy attached to a job
            out.println();
            out.println("Associated Workload");
            Nomad.keyValues(out,
                    "Namespace", Json.text(job.get("Namespace")),
                    "JobID", Json.text(job.get("JobID")),
                    "Group", Json.text(job.get("Group")),
                    "Task", Json.text(job.get("Task")));
        }
        out.println();
        out.println("Rules");
        out.println();
        out.println(Json.text(policy.get("Rules")));
    }

    static void policies(PrintWriter out, JsonNode policies) {
        if (policies.isEmpty()) {
            out.println("No policies found");
            return;
        }
        Table table = new Table("Name", "Description").placeholder(Nomad.NONE);
        policies.forEach(p -> table.row(Json.text(p.get("Name")), Json.text(p.get("Description"))));
        table.print(out);
    }

    static void role(PrintWriter out, JsonNode role) {
        Nomad.keyValues(out,
                "ID", Json.text(role.get("ID")),
                "Name", Json.text(role.get("Name")),
                "Description", Json.text(role.get("Description")),
                "Policies", String.join(",", policyNames(role)),
                "Create Index", Long.toString(role.path("CreateIndex").asLong()),
                "Modify Index", Long.toString(role.path("ModifyIndex").asLong()));
    }

    static void roles(PrintWriter out, JsonNode roles) {
        if (roles.isEmpty()) {
            out.println("No ACL roles found");
            return;
        }
        Table table = new Table("ID", "Name", "Description", "Policies").placeholder(Nomad.NONE);
        roles.forEach(r -> table.row(Json.text(r.get("ID")), Json.text(r.get("Name")),
                Json.text(r.get("Description")), String.join(",", policyNames(r))));
        table.print(out);
    }

    /** A role's policy links ({@code [{"Name": …}]}) as sorted names, as Nomad lists them. */
    static List<String> policyNames(JsonNode role) {
        List<String> names = new ArrayList<>();
        role.path("Policies").forEach(link -> names.add(Json.text(link.get("Name"))));
        names.sort(null);
        return names;
    }

    /** A method's fields, then (after a heading) its configuration; durations as Go prints them, "0s" for none. */
    static void authMethod(PrintWriter out, JsonNode method) {
        Nomad.keyValues(out,
                "Name", Json.text(method.get("Name")),
                "Type", Json.text(method.get("Type")),
                "Locality", Json.text(method.get("TokenLocality")),
                "Max Token TTL", duration(method.get("MaxTokenTTL")),
                "Default", Boolean.toString(method.path("Default").asBoolean()),
                "Create Index", Long.toString(method.path("CreateIndex").asLong()),
                "Modify Index", Long.toString(method.path("ModifyIndex").asLong()));
        JsonNode config = method.get("Config");
        if (config == null || !config.isObject()) {
            return;
        }
        out.println();
        out.println("Auth Method Config");
        out.println();
        Nomad.keyValues(out,
                "JWT Validation Public Keys", Json.join(config.get("JWTValidationPubKeys"), ","),
                "JWKS URL", Json.text(config.get("JWKSURL")),
                "OIDC Discovery URL", Json.text(config.get("OIDCDiscoveryURL")),
                "OIDC Client ID", Json.text(config.get("OIDCClientID")),
                "OIDC Client Secret", Json.text(config.get("OIDCClientSecret")),
                "OIDC Scopes", Json.join(config.get("OIDCScopes"), ","),
                "Bound audiences", Json.join(config.get("BoundAudiences"), ","),
                "Bound issuer", Json.join(config.get("BoundIssuer"), ","),
                "Allowed redirects URIs", Json.join(config.get("AllowedRedirectURIs"), ","),
                "Discovery CA pem", Json.join(config.get("DiscoveryCaPem"), ","),
                "JWKS CA cert", Json.text(config.get("JWKSCACert")),
                "Signing algorithms", Json.join(config.get("SigningAlgs"), ","),
                "Expiration Leeway", duration(config.get("ExpirationLeeway")),
                "NotBefore Leeway", duration(config.get("NotBeforeLeeway")),
                "ClockSkew Leeway", duration(config.get("ClockSkewLeeway")),
                "Claim mappings", mappings(config.get("ClaimMappings")),
                "List claim mappings", mappings(config.get("ListClaimMappings")));
    }

    static void authMethods(PrintWriter out, JsonNode methods) {
        if (methods.isEmpty()) {
            out.println("No ACL auth methods found");
            return;
        }
        Table table = new Table("Name", "Type", "Default").placeholder(Nomad.NONE);
        methods.forEach(m -> table.row(Json.text(m.get("Name")), Json.text(m.get("Type")),
                Boolean.toString(m.path("Default").asBoolean())));
        table.print(out);
    }

    static void bindingRule(PrintWriter out, JsonNode rule) {
        Nomad.keyValues(out,
                "ID", Json.text(rule.get("ID")),
                "Description", Json.text(rule.get("Description")),
                "Auth Method", Json.text(rule.get("AuthMethod")),
                "Selector", Nomad.quote(Json.text(rule.get("Selector"))),
                "Bind Type", Json.text(rule.get("BindType")),
                "Bind Name", Json.text(rule.get("BindName")),
                "Create Time", Nomad.goTimeString(rule.get("CreateTime")),
                "Modify Time", Nomad.goTimeString(rule.get("ModifyTime")),
                "Create Index", Long.toString(rule.path("CreateIndex").asLong()),
                "Modify Index", Long.toString(rule.path("ModifyIndex").asLong()));
    }

    static void bindingRules(PrintWriter out, JsonNode rules) {
        if (rules.isEmpty()) {
            out.println("No ACL binding rules found");
            return;
        }
        Table table = new Table("ID", "Description", "Auth Method").placeholder(Nomad.NONE);
        rules.forEach(r -> table.row(Json.text(r.get("ID")), Json.text(r.get("Description")),
                Json.text(r.get("AuthMethod"))));
        table.print(out);
    }

    private static String duration(JsonNode text) {
        String d = Json.text(text);
        return d.isEmpty() ? "0s" : d;
    }

    /** Go prints a map entry as {@code {key: value}}, joined by "; ". */
    private static String mappings(JsonNode map) {
        List<String> entries = new ArrayList<>();
        if (map != null) {
            map.fields().forEachRemaining(e -> entries.add("{" + e.getKey() + ": " + Json.text(e.getValue()) + "}"));
        }
        return String.join("; ", entries);
    }
}
