package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/** Applies the ACL commands: policies, tokens, roles, the bootstrap, auth methods and binding rules. */
final class AclApply {

    /** The cluster was bootstrapped at {@code index}: a reset file naming that index allows one more bootstrap. */
    record Bootstrapped(long index) {
        static final String KEY = "bootstrap";
    }

    private AclApply() {
    }

    static Command.Result upsertPolicies(Fsm.Txn txn, Command.AclPolicyUpsert cmd) {
        for (AclPolicy policy : cmd.policies()) {
            put(txn, NomadTables.ACL_POLICIES, policy, AclPolicy::createIndex, AclPolicy::withIndexes);
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deletePolicies(Fsm.Txn txn, Command.AclPolicyDelete cmd) {
        return delete(txn, NomadTables.ACL_POLICIES, cmd.names());
    }

    static Command.Result upsertTokens(Fsm.Txn txn, Command.AclTokenUpsert cmd) {
        StateTxn state = txn.state();
        for (AclToken token : cmd.tokens()) {
            Optional<AclToken> bySecret = state.read().byIndex(NomadTables.ACL_TOKENS, "secret", token.secretId())
                    .findFirst();
            if (bySecret.isPresent() && !bySecret.get().accessorId().equals(token.accessorId())) {
                return Command.Result.rejected(txn.index(), 400, "ACL token secret ID is already in use");
            }
            put(txn, NomadTables.ACL_TOKENS, token, AclToken::createIndex, AclToken::withIndexes);
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteTokens(Fsm.Txn txn, Command.AclTokenDelete cmd) {
        return delete(txn, NomadTables.ACL_TOKENS, cmd.accessorIds());
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
            put(txn, NomadTables.ACL_ROLES, role, AclRole::createIndex, AclRole::withIndexes);
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteRoles(Fsm.Txn txn, Command.AclRoleDelete cmd) {
        return delete(txn, NomadTables.ACL_ROLES, cmd.ids());
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
            put(txn, NomadTables.ACL_AUTH_METHODS, method, AclAuthMethod::createIndex, AclAuthMethod::withIndexes);
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
            put(txn, NomadTables.ACL_BINDING_RULES, rule, AclBindingRule::createIndex, AclBindingRule::withIndexes);
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteBindingRules(Fsm.Txn txn, Command.AclBindingRuleDelete cmd) {
        return delete(txn, NomadTables.ACL_BINDING_RULES, cmd.ids());
    }

    /** How a row of an ACL table takes its create and modify indexes. */
    @FunctionalInterface
    private interface Stamp<T> {
        T withIndexes(T row, long createIndex, long modifyIndex);
    }

    /** Writes {@code row}, keeping the create index of the row it replaces. */
    private static <T> void put(Fsm.Txn txn, TableSpec<T> table, T row, ToLongFunction<T> createIndex,
                                Stamp<T> stamp) {
        long created = txn.state().get(table, table.idOf(row)).map(createIndex::applyAsLong).orElse(txn.index());
        txn.state().put(table, stamp.withIndexes(row, created, txn.index()));
    }

    private static <T> Command.Result delete(Fsm.Txn txn, TableSpec<T> table, List<String> ids) {
        ids.forEach(id -> txn.state().delete(table, id));
        return Command.Result.ok(txn.index());
    }
}
