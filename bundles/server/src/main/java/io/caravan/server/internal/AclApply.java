package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;

import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.state.StateTxn;

/** Applies the ACL commands: policies, tokens, roles, the bootstrap, auth methods and binding rules. */
final class AclApply {

    /** The cluster was bootstrapped at {@code index}: a reset file naming that index allows one more bootstrap. */
    record Bootstrapped(long index) {
        static final String KEY = "bootstrap";
    }

    private AclApply() {
    }

    static Command.Result upsertPolicies(Fsm.Txn txn, Command.AclPolicyUpsert cmd) {
        StateTxn state = txn.state();
        for (AclPolicy policy : cmd.policies()) {
            long created = state.get(NomadTables.ACL_POLICIES, policy.name()).map(AclPolicy::createIndex)
                    .orElse(txn.index());
            state.put(NomadTables.ACL_POLICIES, policy.withIndexes(created, txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deletePolicies(Fsm.Txn txn, Command.AclPolicyDelete cmd) {
        cmd.names().forEach(name -> txn.state().delete(NomadTables.ACL_POLICIES, name));
        return Command.Result.ok(txn.index());
    }

    static Command.Result upsertTokens(Fsm.Txn txn, Command.AclTokenUpsert cmd) {
        StateTxn state = txn.state();
        for (AclToken token : cmd.tokens()) {
            Optional<AclToken> bySecret = state.read().byIndex(NomadTables.ACL_TOKENS, "secret", token.secretId())
                    .findFirst();
            if (bySecret.isPresent() && !bySecret.get().accessorId().equals(token.accessorId())) {
                return Command.Result.rejected(txn.index(), 400, "ACL token secret ID is already in use");
            }
            long created = state.get(NomadTables.ACL_TOKENS, token.accessorId()).map(AclToken::createIndex)
                    .orElse(txn.index());
            state.put(NomadTables.ACL_TOKENS, token.withIndexes(created, txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteTokens(Fsm.Txn txn, Command.AclTokenDelete cmd) {
        cmd.accessorIds().forEach(id -> txn.state().delete(NomadTables.ACL_TOKENS, id));
        return Command.Result.ok(txn.index());
    }

    static Command.Result bootstrap(Fsm.Txn txn, Command.AclBootstrap cmd) {
        StateTxn state = txn.state();
        Optional<Bootstrapped> done = state.get(NomadTables.ACL_BOOTSTRAP, Bootstrapped.KEY);
        if (done.isPresent() && done.get().index() != cmd.resetIndex()) {
            return Command.Result.rejected(txn.index(), 400, alreadyDone(done.get().index()));
        }
        Command.Result token = upsertTokens(txn, new Command.AclTokenUpsert(List.of(cmd.token())));
        if (token.errorCode() == 0) {
            state.put(NomadTables.ACL_BOOTSTRAP, new Bootstrapped(txn.index()));
        }
        return token;
    }

    /** Nomad's answer to a second bootstrap, naming the index an operator writes into the reset file. */
    static String alreadyDone(long index) {
        return "ACL bootstrap already done (reset index: " + index + ")";
    }

    static Command.Result upsertRoles(Fsm.Txn txn, Command.AclRoleUpsert cmd) {
        StateTxn state = txn.state();
        for (AclRole role : cmd.roles()) {
            Optional<AclRole> byName = state.read().byIndex(NomadTables.ACL_ROLES, "name", role.name()).findFirst();
            if (byName.isPresent() && !byName.get().id().equals(role.id())) {
                return Command.Result.rejected(txn.index(), 400, "ACL role with name " + role.name()
                        + " already exists");
            }
            long created = state.get(NomadTables.ACL_ROLES, role.id()).map(AclRole::createIndex).orElse(txn.index());
            state.put(NomadTables.ACL_ROLES, role.withIndexes(created, txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteRoles(Fsm.Txn txn, Command.AclRoleDelete cmd) {
        cmd.ids().forEach(id -> txn.state().delete(NomadTables.ACL_ROLES, id));
        return Command.Result.ok(txn.index());
    }

    static Command.Result upsertAuthMethods(Fsm.Txn txn, Command.AclAuthMethodUpsert cmd) {
        StateTxn state = txn.state();
        for (AclAuthMethod method : cmd.methods()) {
            if (method.isDefault()) {
                Optional<AclAuthMethod> other = state.read().all(NomadTables.ACL_AUTH_METHODS)
                        .filter(m -> m.isDefault() && !m.name().equals(method.name())).findFirst();
                if (other.isPresent()) {
                    return Command.Result.rejected(txn.index(), 400, "Default: default method already exists: "
                            + other.get().name());
                }
            }
            long created = state.get(NomadTables.ACL_AUTH_METHODS, method.name()).map(AclAuthMethod::createIndex)
                    .orElse(txn.index());
            state.put(NomadTables.ACL_AUTH_METHODS, method.withIndexes(created, txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    /** A method's binding rules go with it: nothing else could use them, and a new method of that name must not. */
    static Command.Result deleteAuthMethods(Fsm.Txn txn, Command.AclAuthMethodDelete cmd) {
        StateTxn state = txn.state();
        for (String name : cmd.names()) {
            List<String> rules = state.read().byIndex(NomadTables.ACL_BINDING_RULES, "method", name)
                    .map(AclBindingRule::id).toList();
            rules.forEach(id -> state.delete(NomadTables.ACL_BINDING_RULES, id));
            state.delete(NomadTables.ACL_AUTH_METHODS, name);
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result upsertBindingRules(Fsm.Txn txn, Command.AclBindingRuleUpsert cmd) {
        StateTxn state = txn.state();
        for (AclBindingRule rule : cmd.rules()) {
            if (state.get(NomadTables.ACL_AUTH_METHODS, rule.authMethod()).isEmpty()) {
                return Command.Result.rejected(txn.index(), 400, "AuthMethod: ACL auth method "
                        + rule.authMethod() + " not found");
            }
            long created = state.get(NomadTables.ACL_BINDING_RULES, rule.id()).map(AclBindingRule::createIndex)
                    .orElse(txn.index());
            state.put(NomadTables.ACL_BINDING_RULES, rule.withIndexes(created, txn.index()));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteBindingRules(Fsm.Txn txn, Command.AclBindingRuleDelete cmd) {
        cmd.ids().forEach(id -> txn.state().delete(NomadTables.ACL_BINDING_RULES, id));
        return Command.Result.ok(txn.index());
    }
}
