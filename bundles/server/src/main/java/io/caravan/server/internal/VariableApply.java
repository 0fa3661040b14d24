package io.caravan.server.internal;

import java.util.Objects;
import java.util.Optional;

import io.caravan.api.GoDuration;
import io.caravan.state.StateTxn;

/**
 * Applies the variable commands. Check-and-set and lock ownership are decided here, against the state the command is
 * applied to, with the leader's clock carried in the command: every replica decides the same, and of two racing
 * writers only one wins. A lock whose TTL ran out is released lazily ({@link Variable.Entry#locked}).
 */
final class VariableApply {
    static final String CAS_CONFLICT = "cas conflict";
    static final String LOCKED = "variable is locked";
    static final String ALREADY_LOCKED = "variable already holds a lock";
    static final String LOCK_DELAY = "variable lock delay has not passed";
    static final String NOT_LOCKED = "variable doesn't hold a lock";
    static final String NOT_FOUND = "variable not found";
    static final String LOCK_IMMUTABLE = "Lock: the TTL and LockDelay of a held lock can not be changed";

    private VariableApply() {
    }

    static Command.Result set(Fsm.Txn txn, Command.VariableSet cmd) {
        StateTxn state = txn.state();
        long now = cmd.nowNanos();
        Variable asked = cmd.variable();
        Optional<Variable.Entry> current = state.get(NomadTables.VARIABLES, key(asked.namespace(), asked.path()));
        if (cmd.cas() && current.map(e -> e.variable().modifyIndex()).orElse(0L) != cmd.checkIndex()) {
            return Command.Result.rejected(txn.index(), 409, CAS_CONFLICT);
        }
        boolean held = current.isPresent() && current.get().locked(now);
        if (held && !current.get().variable().lock().id().equals(cmd.lockId())) {
            return Command.Result.rejected(txn.index(), 409, LOCKED);
        }
        if (held && changesLock(asked.lock(), current.get().variable().lock())) {
            return Command.Result.rejected(txn.index(), 400, LOCK_IMMUTABLE);
        }
        if (current.isPresent()) {
            Variable was = current.get().variable();
            // Sealing is deterministic per key (Variables), so equal data under the same key means equal items.
            if (was.items().equals(asked.items()) && Objects.equals(was.data(), asked.data())
                    && (held || was.lock() == null)) {
                return Command.Result.ok(txn.index());   // unchanged, as Nomad: the indexes stay
            }
            Variable written = asked.withLock(held ? was.lock() : null)
                    .withIndexes(was.createIndex(), was.createTime(), txn.index(), now);
            state.put(NomadTables.VARIABLES, new Variable.Entry(written, held ? current.get().lockExpires() : 0));
        } else {
            state.put(NomadTables.VARIABLES, new Variable.Entry(asked.withLock(null)
                    .withIndexes(txn.index(), now, txn.index(), now), 0));
        }
        return Command.Result.ok(txn.index());
    }

    static Command.Result delete(Fsm.Txn txn, Command.VariableDelete cmd) {
        StateTxn state = txn.state();
        String key = key(cmd.namespace(), cmd.path());
        Optional<Variable.Entry> current = state.get(NomadTables.VARIABLES, key);
        if (cmd.cas() && current.map(e -> e.variable().modifyIndex()).orElse(0L) != cmd.checkIndex()) {
            return Command.Result.rejected(txn.index(), 409, CAS_CONFLICT);
        }
        if (current.isPresent() && current.get().locked(cmd.nowNanos())
                && !current.get().variable().lock().id().equals(cmd.lockId())) {
            return Command.Result.rejected(txn.index(), 409, LOCKED);
        }
        state.delete(NomadTables.VARIABLES, key);
        return Command.Result.ok(txn.index());
    }

    static Command.Result lock(Fsm.Txn txn, Command.VariableLockUpdate cmd) {
        StateTxn state = txn.state();
        long now = cmd.nowNanos();
        Variable asked = cmd.variable();
        Variable.Lock lock = asked.lock();
        Optional<Variable.Entry> current = state.get(NomadTables.VARIABLES, key(asked.namespace(), asked.path()));
        if (cmd.operation().equals(Command.VariableLockUpdate.ACQUIRE)) {
            if (current.isPresent()) {
                Variable.Entry was = current.get();
                if (was.locked(now)) {
                    return Command.Result.rejected(txn.index(), 409, ALREADY_LOCKED);
                }
                if (was.variable().lock() != null
                        && now < was.lockExpires() + nanos(was.variable().lock().lockDelay())) {
                    return Command.Result.rejected(txn.index(), 409, LOCK_DELAY);
                }
            }
            // Items given replace the variable's; none given keep them (Nomad's rule for lock-acquire).
            Variable base = current.map(Variable.Entry::variable).orElse(asked);
            if (current.isPresent() && asked.hasContent()) {
                base = base.withContentOf(asked);
            }
            long createIndex = current.isPresent() ? base.createIndex() : txn.index();
            long createTime = current.isPresent() ? base.createTime() : now;
            Variable written = base.withLock(lock).withIndexes(createIndex, createTime, txn.index(), now);
            state.put(NomadTables.VARIABLES, new Variable.Entry(written, now + nanos(lock.ttl())));
            return Command.Result.ok(txn.index());
        }
        if (current.isEmpty()) {
            return Command.Result.rejected(txn.index(), 404, NOT_FOUND);
        }
        Variable.Entry was = current.get();
        if (!was.locked(now) || !was.variable().lock().id().equals(lock.id())) {
            return Command.Result.rejected(txn.index(), 409, NOT_LOCKED);
        }
        Variable held = was.variable();
        if (cmd.operation().equals(Command.VariableLockUpdate.RENEW)) {
            // A renewal moves the deadline only: the variable itself, and its ModifyIndex, stay.
            state.put(NomadTables.VARIABLES, new Variable.Entry(held, now + nanos(held.lock().ttl())));
        } else {
            state.put(NomadTables.VARIABLES, new Variable.Entry(held.withLock(null)
                    .withIndexes(held.createIndex(), held.createTime(), txn.index(), now), 0));
        }
        return Command.Result.ok(txn.index());
    }

    /** Re-encrypted data replaces the stored data of variables not written since it was read; indexes stay. */
    static Command.Result rekey(Fsm.Txn txn, Command.VariableRekey cmd) {
        StateTxn state = txn.state();
        for (Command.VariableRekey.Rekeyed r : cmd.variables()) {
            Optional<Variable.Entry> current = state.get(NomadTables.VARIABLES, key(r.namespace(), r.path()));
            if (current.isPresent() && current.get().variable().modifyIndex() == r.modifyIndex()) {
                state.put(NomadTables.VARIABLES, new Variable.Entry(current.get().variable().withData(r.data()),
                        current.get().lockExpires()));
            }
        }
        return Command.Result.ok(txn.index());
    }

    /** Whether a write names lock parameters other than those of the lock held (unnamed ones stay as they are). */
    private static boolean changesLock(Variable.Lock given, Variable.Lock held) {
        if (given == null) {
            return false;
        }
        return given.ttl() != null && !given.ttl().isEmpty() && nanos(given.ttl()) != nanos(held.ttl())
                || given.lockDelay() != null && !given.lockDelay().isEmpty()
                && nanos(given.lockDelay()) != nanos(held.lockDelay());
    }

    static String key(String namespace, String path) {
        return NomadTables.key(namespace, path);
    }

    /** A stored Go duration in nanoseconds; the endpoint wrote it, so it parses. */
    static long nanos(String duration) {
        return GoDuration.parse(duration).toNanos();
    }
}
