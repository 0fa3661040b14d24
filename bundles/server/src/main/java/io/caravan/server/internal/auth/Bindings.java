package io.caravan.server.internal.auth;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.http.filter.Filter;

/**
 * From verified claims to what a login's token holds: the method's claim mappings give the selector variables
 * {@code value.<name>} (one string each) and {@code list.<name>} (strings), every binding rule whose selector
 * matches them (an empty selector matches all) binds a role, a policy or management, and {@code ${value.x}} in a
 * bind name or the token name format is replaced by that claim.
 */
public final class Bindings {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]*)}");

    /** The selector variables of one login. */
    public record Claims(Map<String, String> value, Map<String, List<String>> list) {
        /** As the filter sees them: {@code {"value": {...}, "list": {...}}}. */
        JsonNode asJson() {
            ObjectNode root = JsonNodeFactory.instance.objectNode();
            ObjectNode values = root.putObject("value");
            value.forEach(values::put);
            ObjectNode lists = root.putObject("list");
            list.forEach((k, v) -> v.forEach(lists.withArray(k)::add));
            return root;
        }
    }

    /** What the matching rules bind: management, or policies and roles (by name). */
    public record Bound(boolean management, List<String> policies, List<String> roles) {
        public boolean none() {
            return !management && policies.isEmpty() && roles.isEmpty();
        }
    }

    private Bindings() {
    }

    /**
     * Maps claims as the method says: each {@code ClaimMappings} key names a claim (a top-level name, or a JSON
     * pointer such as {@code /groups/0}) whose scalar value becomes {@code value.<mapped name>}; each
     * {@code ListClaimMappings} key a claim whose array (or single scalar) becomes {@code list.<mapped name>}.
     * Claims that are absent, or not of that shape, are left out.
     */
    public static Claims map(AclAuthMethod.Config config, JsonNode claims) {
        Map<String, String> values = new TreeMap<>();
        config.claimMappings().forEach((claim, name) -> {
            JsonNode v = claim(claims, claim);
            if (v != null && v.isValueNode() && !v.isNull()) {
                values.put(name, v.asText());
            }
        });
        Map<String, List<String>> lists = new TreeMap<>();
        config.listClaimMappings().forEach((claim, name) -> {
            JsonNode v = claim(claims, claim);
            List<String> items = new ArrayList<>();
            if (v != null && v.isArray()) {
                v.forEach(item -> {
                    if (item.isValueNode() && !item.isNull()) {
                        items.add(item.asText());
                    }
                });
            } else if (v != null && v.isValueNode() && !v.isNull()) {
                items.add(v.asText());
            }
            if (v != null) {
                lists.put(name, items);
            }
        });
        return new Claims(values, lists);
    }

    private static JsonNode claim(JsonNode claims, String name) {
        JsonNode v = name.startsWith("/") ? claims.at(name) : claims.get(name);
        return v == null || v.isMissingNode() ? null : v;
    }

    /**
     * What the rules that match bind. A bind name that names a variable the login lacks, or a role or policy that
     * does not exist ({@code exists}), binds nothing; a selector that cannot be evaluated does not match.
     */
    public static Bound bind(List<AclBindingRule> rules, Claims claims, Predicate<String> policyExists,
                             Predicate<String> roleExists) {
        JsonNode datum = claims.asJson();
        boolean management = false;
        Set<String> policies = new LinkedHashSet<>();
        Set<String> roles = new LinkedHashSet<>();
        for (AclBindingRule rule : rules) {
            if (!matches(rule.selector(), datum)) {
                continue;
            }
            if (rule.bindType().equals(AclBindingRule.MANAGEMENT)) {
                management = true;
                continue;
            }
            String name = interpolate(rule.bindName(), claims.value(), Map.of());
            if (name == null || name.isEmpty()) {
                continue;
            }
            if (rule.bindType().equals(AclBindingRule.POLICY) && policyExists.test(name)) {
                policies.add(name);
            } else if (rule.bindType().equals(AclBindingRule.ROLE) && roleExists.test(name)) {
                roles.add(name);
            }
        }
        return management ? new Bound(true, List.of(), List.of())
                : new Bound(false, List.copyOf(policies), List.copyOf(roles));
    }

    private static boolean matches(String selector, JsonNode datum) {
        if (selector.isBlank()) {
            return true;
        }
        try {
            return Filter.parse(selector).matches(datum);
        } catch (CaravanException e) {
            return false;
        }
    }

    /**
     * Replaces each {@code ${name}}: {@code value.x} from the mapped claims, other names from {@code extra}.
     *
     * @return null when a name is unknown (the text cannot be completed)
     */
    public static String interpolate(String text, Map<String, String> values, Map<String, String> extra) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1).strip();
            String replacement = name.startsWith("value.") ? values.get(name.substring("value.".length()))
                    : extra.get(name);
            if (replacement == null) {
                return null;
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The names of the {@code ${...}} variables in a text, in order. */
    public static List<String> variables(String text) {
        List<String> names = new ArrayList<>();
        Matcher m = VARIABLE.matcher(text);
        while (m.find()) {
            names.add(m.group(1).strip());
        }
        return names;
    }

    /** Checks a selector when a rule is written, so that a bad one fails then rather than at every login. */
    public static void checkSelector(String selector) {
        if (selector == null || selector.isBlank()) {
            return;
        }
        try {
            Filter.parse(selector);
        } catch (CaravanException e) {
            throw CaravanException.invalid("Selector", "selector is invalid: " + e.getMessage());
        }
    }
}
