package io.caravan.server.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.caravan.api.model.GoTime;
import io.caravan.state.IndexSpec;
import io.caravan.state.StateSnapshot;
import io.caravan.state.TableSpec;

/**
 * Nomad's one-time tokens: a short-lived secret that stands for an ACL token and can be exchanged for it exactly
 * once (the UI's sign-in link from {@code caravan ui -authenticate}). The exchange deletes the one-time secret in the
 * same Raft entry that checks it, so two racing exchanges cannot both succeed; the leader's ACL token collection
 * deletes the ones that expired unused.
 */
final class OneTimeTokens {
    /** Nomad's lifetime of a one-time token. */
    static final Duration TTL = Duration.ofMinutes(10);

    /** Nomad's {@code OneTimeToken}: the one-time secret and the accessor of the ACL token it stands for. */
    record OneTimeToken(String oneTimeSecretId, String accessorId, @GoTime Instant expiresAt, long createIndex,
                        long modifyIndex) {
        OneTimeToken withIndexes(long create, long modify) {
            return new OneTimeToken(oneTimeSecretId, accessorId, expiresAt, create, modify);
        }

        boolean expired(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }

    /** Keyed by the one-time secret (what an exchange names), indexed by the token it stands for. */
    static final TableSpec<OneTimeToken> TABLE = TableSpec.of("acl_one_time_token", OneTimeToken.class,
            OneTimeToken::oneTimeSecretId).withIndex(IndexSpec.single("accessor", OneTimeToken::accessorId));

    private OneTimeTokens() {
    }

    static Command.Result upsert(Fsm.Txn txn, Command.OneTimeTokenUpsert cmd) {
        txn.state().put(TABLE, cmd.token().withIndexes(txn.index(), txn.index()));
        return Command.Result.ok(txn.index());
    }

    /**
     * The exchange: refused (403, as Nomad) unless the secret is stored, unexpired at the time the endpoint read, and
     * still stands for an ACL token; an accepted one is deleted, so it never works twice (a refused one writes
     * nothing, like every rejection, and an expired one waits for the collection).
     */
    static Command.Result exchange(Fsm.Txn txn, Command.OneTimeTokenExchange cmd) {
        Optional<OneTimeToken> found = txn.state().get(TABLE, cmd.oneTimeSecretId());
        if (found.isEmpty()) {
            return Command.Result.rejected(txn.index(), 403, "Permission denied");
        }
        if (found.get().expired(Instant.ofEpochMilli(cmd.nowMillis()))) {
            return Command.Result.rejected(txn.index(), 403, "one-time token is expired");
        }
        if (txn.state().get(NomadTables.ACL_TOKENS, found.get().accessorId()).isEmpty()) {
            return Command.Result.rejected(txn.index(), 403, "Permission denied");
        }
        txn.state().delete(TABLE, cmd.oneTimeSecretId());
        return Command.Result.ok(txn.index());
    }

    /** Deletes every one-time token that expired before the command's time (chosen by the leader). */
    static Command.Result expire(Fsm.Txn txn, Command.OneTimeTokenExpire cmd) {
        expired(txn.state().read(), Instant.ofEpochMilli(cmd.nowMillis()))
                .forEach(secret -> txn.state().delete(TABLE, secret));
        return Command.Result.ok(txn.index());
    }

    static List<String> expired(StateSnapshot s, Instant now) {
        return s.all(TABLE).filter(t -> t.expired(now)).map(OneTimeToken::oneTimeSecretId).toList();
    }
}
