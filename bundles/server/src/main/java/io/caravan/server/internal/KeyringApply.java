package io.caravan.server.internal;

import java.util.List;
import java.util.Optional;

import io.caravan.server.internal.Keyring.RootKey;

/** Appliers of the keyring's commands ({@link Keyring}). */
final class KeyringApply {
    /** Nomad's answer to removing a key that variables are still encrypted with. */
    static final String IN_USE = "root key in use, cannot delete";
    private KeyringApply() {
    }

    static Command.Result registerKeystore(Fsm.Txn txn, Command.KeystoreRegister cmd) {
        txn.state().put(Keyring.KEYSTORES, cmd.keystore());
        return Command.Result.ok(txn.index());
    }

    /**
     * A new key; when it is active, the key that was active until now becomes inactive (one active key), or rekeying
     * for a full rotation.
     */
    static Command.Result upsertRootKey(Fsm.Txn txn, Command.RootKeyUpsert cmd) {
        long index = txn.index();
        RootKey key = cmd.key();
        if (txn.state().get(Keyring.ROOT_KEYS, key.keyId()).isPresent()) {
            return Command.Result.rejected(index, 400, "root key " + key.keyId() + " already exists");
        }
        if (key.active()) {
            List<RootKey> active = txn.state().read().all(Keyring.ROOT_KEYS).filter(RootKey::active).toList();
            for (RootKey old : active) {
                txn.state().put(Keyring.ROOT_KEYS, old.withState(cmd.rekey() ? Keyring.REKEYING : Keyring.INACTIVE)
                        .withIndexes(old.createIndex(), index));
            }
        }
        txn.state().put(Keyring.ROOT_KEYS, key.withIndexes(index, index));
        return Command.Result.ok(index);
    }

    /** Another server's sealed copy of a key; the key's metadata does not change (its ModifyIndex neither). */
    static Command.Result wrapRootKey(Fsm.Txn txn, Command.RootKeyWrap cmd) {
        Optional<RootKey> key = txn.state().get(Keyring.ROOT_KEYS, cmd.keyId());
        if (key.isEmpty()) {
            return Command.Result.rejected(txn.index(), 404, "root key " + cmd.keyId() + " not found");
        }
        txn.state().put(Keyring.ROOT_KEYS, key.get().withWrapped(cmd.keystoreId(), cmd.copy()));
        return Command.Result.ok(txn.index());
    }

    static Command.Result deleteRootKey(Fsm.Txn txn, Command.RootKeyDelete cmd) {
        Optional<RootKey> key = txn.state().get(Keyring.ROOT_KEYS, cmd.keyId());
        if (key.isEmpty()) {
            return Command.Result.rejected(txn.index(), 404, "root key " + cmd.keyId() + " not found");
        }
        if (key.get().active()) {
            return Command.Result.rejected(txn.index(), 400, "active root key " + cmd.keyId() + " cannot be deleted");
        }
        if (key.get().rekeying() || inUse(txn, cmd.keyId())) {
            return Command.Result.rejected(txn.index(), 400, IN_USE);
        }
        txn.state().delete(Keyring.ROOT_KEYS, cmd.keyId());
        return Command.Result.ok(txn.index());
    }

    /** The end of a full rotation: the replaced key becomes inactive, once no variable is encrypted with it. */
    static Command.Result rekeyed(Fsm.Txn txn, Command.RootKeyRekeyed cmd) {
        Optional<RootKey> key = txn.state().get(Keyring.ROOT_KEYS, cmd.keyId());
        if (key.isEmpty() || !key.get().rekeying()) {
            return Command.Result.ok(txn.index());   // removed or already done: nothing left to do
        }
        if (inUse(txn, cmd.keyId())) {
            return Command.Result.rejected(txn.index(), 409, "root key " + cmd.keyId() + " still encrypts variables");
        }
        txn.state().put(Keyring.ROOT_KEYS, key.get().withState(Keyring.INACTIVE).withIndexes(key.get().createIndex(),
                txn.index()));
        return Command.Result.ok(txn.index());
    }

    /** Whether a variable is encrypted with the key. */
    static boolean inUse(Fsm.Txn txn, String keyId) {
        return txn.state().read().all(NomadTables.VARIABLES).map(e -> e.variable().data())
                .anyMatch(d -> d != null && keyId.equals(d.keyId()));
    }
}
