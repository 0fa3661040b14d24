package io.caravan.cli.command;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;

/** Nomad's layouts of ACL tokens, policies and roles (the {@code acl} commands share them). */
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
}
